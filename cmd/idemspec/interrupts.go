package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// interrupts counts SIGINT and SIGTERM over a run, as Ginkgo's own
// message describes them: the first ends the run (it cancels first, and
// Ginkgo, listening too, skips the remaining checks) and the cleanup
// still runs; the second skips the cleanup (it cancels second, which
// bounds the cleanup). No signal kills idemspec outright, so whatever
// it started is always stopped. first's cause names the signal
// (errSignal), so the reports say which one it was.
type interrupts struct {
	first, second context.Context
	stop          func()
}

// errSignal is the cause of a run ended by a signal.
type errSignal struct{ name string }

func (e errSignal) Error() string { return "interrupted by " + e.name }

// errRunEnded is first's cause when the run ended with no signal.
var errRunEnded = errors.New("the run ended")

func watchInterrupts() *interrupts {
	c := make(chan os.Signal, 2)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	first, cancelFirst := context.WithCancelCause(context.Background())
	second, cancelSecond := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		for n := 1; ; n++ {
			select {
			case s := <-c:
				if n == 1 {
					cancelFirst(errSignal{signalName(s)})
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
		cancelFirst(errRunEnded)
		cancelSecond()
	}}
}

func signalName(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// ginkgoInterrupted is how Ginkgo names any interrupt by a signal in a
// run's failure reasons; namedSignal puts the signal's own name in its
// place when ctx (an interrupts' first) ended by one.
const ginkgoInterrupted = "Interrupted by User"

func namedSignal(ctx context.Context, reason string) string {
	var sig errSignal
	if ctx == nil || !errors.As(context.Cause(ctx), &sig) {
		return reason
	}
	return strings.ReplaceAll(reason, ginkgoInterrupted, sig.Error())
}
