package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interrupts counts SIGINT and SIGTERM over a run, as Ginkgo's own
// message describes them: the first ends the run (it cancels first, and
// Ginkgo, listening too, skips the remaining checks) and the cleanup
// still runs; the second skips the cleanup (it cancels second, which
// bounds the cleanup). No signal kills idemspec outright, so whatever
// it started is always stopped.
type interrupts struct {
	first, second context.Context
	stop          func()
}

func watchInterrupts() *interrupts {
	c := make(chan os.Signal, 2)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	first, cancelFirst := context.WithCancel(context.Background())
	second, cancelSecond := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		for n := 1; ; n++ {
			select {
			case <-c:
				if n == 1 {
					cancelFirst()
				} else {
					cancelSecond()
				}
			case <-done:
				return
			}
		}
	}()
	return &interrupts{first: first, second: second, stop: func() {
		signal.Stop(c)
		close(done)
		cancelFirst()
		cancelSecond()
	}}
}
