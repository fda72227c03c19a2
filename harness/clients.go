package harness

import (
	"errors"
	"sync"
)

// Clients are the client programs a run has started and not yet seen
// exit, so that an interrupt stops them all at once and none outlives
// idemspec (a check cut short may never wait for its own). The zero
// value is ready to use.
type Clients struct {
	// Watch, when set before the first start, is called as each program
	// starts; the function it returns is called once that program has
	// exited (which may be after its caller saw Exited closed).
	Watch func() (exited func(*ClientProcess))

	mu      sync.Mutex
	live    map[*ClientProcess]bool
	stopped bool
}

// ErrClientsStopped is Start's error once Stop was called: the run is
// ending, and no program may start after its last stop.
var ErrClientsStopped = errors.New("the run is ending: no client program starts any more")

// Start runs command as StartClient does, and keeps it until it exits.
func (c *Clients) Start(command string, env []string) (*ClientProcess, error) {
	return c.StartIn("", command, env)
}

// StartIn runs command as StartClientIn does, in dir, and keeps it
// until it exits.
func (c *Clients) StartIn(dir, command string, env []string) (*ClientProcess, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil, ErrClientsStopped
	}
	var exited func(*ClientProcess)
	if c.Watch != nil {
		exited = c.Watch()
	}
	p, err := StartClientIn(dir, command, env)
	if err != nil {
		return nil, err
	}
	if c.live == nil {
		c.live = map[*ClientProcess]bool{}
	}
	c.live[p] = true
	go func() {
		<-p.Exited()
		if exited != nil {
			exited(p)
		}
		c.mu.Lock()
		delete(c.live, p)
		c.mu.Unlock()
	}()
	return p, nil
}

// Stop stops every program still running (SIGTERM, then SIGKILL after
// proc.DefaultGrace, all at once) and refuses to start more; it returns
// once they are gone. Stop may be called more than once.
func (c *Clients) Stop(why string) {
	c.mu.Lock()
	c.stopped = true
	var live []*ClientProcess
	for p := range c.live {
		live = append(live, p)
	}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range live {
		wg.Go(func() { p.Stop(why) })
	}
	wg.Wait()
}
