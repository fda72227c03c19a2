package fakes

import (
	"context"
	"database/sql"
	"runtime"
	"sync"
	"time"
)

// The record-after-answer mutant: some middlewares send the answer first
// and store the key's record afterwards, asynchronously, through a hook
// on the send function. While the process lives, the stored answer is
// served from memory, so a retry sees nothing wrong; a stop right after
// the answer loses the write, and the key stays "in flight" in the
// database for the whole in-progress timeout.

// How long after the answer is sent the record is written; a graceful
// stop does not wait for it. record-after-answer's delay is generous;
// record-after-answer-quick's is that of a write to a Redis on loopback
// (about 100 µs), the narrow window a real middleware leaves.
const (
	recordDelay      = 150 * time.Millisecond
	quickRecordDelay = 100 * time.Microsecond
)

// recordAfterAnswer replaces the reference's execute, and serves the
// records it has answered but not stored from memory: the record is
// written delay after the answer was sent.
func recordAfterAnswer(delay time.Duration) func(*Server) {
	return func(s *Server) { recordBehind(s, delay) }
}

func recordBehind(s *Server, delay time.Duration) {
	b := &behind{s: s, delay: delay, records: map[[2]string]record{}}
	read := s.steps.record
	s.steps.record = func(ctx context.Context, tenant, key string) (record, error) {
		if rec, ok := b.answered(tenant, key); ok {
			return rec, nil
		}
		return read(ctx, tenant, key)
	}
	s.steps.execute = b.execute
}

// behind holds the records answered but not yet stored, by tenant and
// key.
type behind struct {
	s       *Server
	delay   time.Duration
	mu      sync.Mutex
	records map[[2]string]record
}

func (b *behind) answered(tenant, key string) (record, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	rec, ok := b.records[[2]string{tenant, key}]
	return rec, ok
}

// execute does the work and commits the resource, answers, and completes
// the key record b.delay after the answer was sent, in the background.
func (b *behind) execute(ctx context.Context, c claim) answer {
	s := b.s
	s.work(c.key)
	a, err := s.commitResource(ctx, c.tenant, c.parent, c.body)
	if err != nil {
		return s.finish(ctx, c, a, err)
	}
	rec, _ := s.steps.record(ctx, c.tenant, c.key)
	rec.State, rec.ResourceID, rec.Status, rec.Body, rec.Location = stateComplete, a.id, a.status, a.body, a.location
	id := [2]string{c.tenant, c.key}
	b.mu.Lock()
	b.records[id] = rec
	b.mu.Unlock()
	sent := a.answer
	sent.sent = func() {
		go func() {
			// A stopped server's database is closed, a killed one
			// refuses writes: either way the record is lost.
			if s.opts.HeldWindow {
				waitForEnd(s)
			} else {
				wait(b.delay)
			}
			s.write(context.Background(), func(tx *sql.Tx) error {
				return complete(context.Background(), tx, c, a)
			})
			b.mu.Lock()
			delete(b.records, id)
			b.mu.Unlock()
		}()
	}
	return sent
}

// wait waits d. The runtime's timers sleep at least a millisecond on
// Linux (its poller's resolution), ten times a loopback Redis write, so
// a short wait yields the processor until d has passed instead.
func wait(d time.Duration) {
	if d >= time.Millisecond {
		time.Sleep(d)
		return
	}
	for start := time.Now(); time.Since(start) < d; {
		runtime.Gosched()
	}
}

// heldWindow bounds how long a window held open (Options.HeldWindow)
// waits for the server's end.
const heldWindow = 5 * time.Second

// waitForEnd holds a window open until the server is closed (a restart
// or a crash has ended it), or heldWindow.
func waitForEnd(s *Server) {
	select {
	case <-s.closed:
	case <-time.After(heldWindow):
	}
}
