package wire

import (
	"fmt"
	"strings"
	"sync"
)

// Fault is what the interposer does to a request it is aimed at. The
// zero Fault forwards the request and delivers the answer.
type Fault struct {
	// Respond, when set, is a status idemspec answers itself: the API
	// never sees the request (a 503 nothing committed, a final 422).
	Respond int
	// RetryAfter is the Retry-After of idemspec's own answer ("": none).
	// Keep it short: SDKs honour it without a cap.
	RetryAfter string
	// Drop closes the program's connection instead of answering, at once
	// (an SDK waits its own long timeout on an answer held open). After
	// the API ran the request, unless Respond says otherwise.
	Drop bool
	// Hold keeps the request until the aim is released (Armed.Release)
	// or the interposer's HoldLimit passes; released to run, it goes on
	// as the rest of the Fault says; else, or at the limit, it is dropped
	// unrun.
	Hold bool
	// Blackhole swallows the request: never forwarded, never answered;
	// the connection stays open until the program gives up, the
	// interposer closes, or HoldLimit passes.
	Blackhole bool
}

// Common faults.
var (
	// LoseAnswer lets the API run the request and drops its answer.
	LoseAnswer = Fault{Drop: true}
	// Unavailable answers 503 without forwarding, with no Retry-After.
	Unavailable = Fault{Respond: 503}
	// Unprocessable answers 422 without forwarding: final for the request.
	Unprocessable = Fault{Respond: 422}
	// Blackhole swallows the request.
	Blackhole = Fault{Blackhole: true}
)

// Name describes the fault for the record and the reports.
func (f Fault) Name() string {
	var parts []string
	switch {
	case f.Blackhole:
		return "blackhole"
	case f.Hold:
		parts = append(parts, "held until idemspec let it go")
	}
	switch {
	case f.Respond != 0 && f.Drop:
		parts = append(parts, fmt.Sprintf("not forwarded, answered %d by idemspec, and that answer dropped (connection closed)", f.Respond))
	case f.Respond != 0:
		parts = append(parts, fmt.Sprintf("not forwarded, answered %d by idemspec", f.Respond))
	case f.Drop:
		parts = append(parts, "forwarded, answer dropped (connection closed)")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", then ")
}

// Aim points a fault at requests of one operation: the First'th request
// of it the interposer sees after the aim is armed (1 for the next one),
// and Count of them from there (0 or 1: that one; Every: all).
type Aim struct {
	Operation string
	First     int
	Count     int
	Fault     Fault
}

// Every is Aim.Count for every request from First on.
const Every = -1

// Armed is an aim in force: the requests it reaches, and its holds.
type Armed struct {
	aim Aim

	mu      sync.Mutex
	seen    int  // requests of the operation since it was armed
	off     bool // disarmed: reaches nothing further
	reached chan struct{}
	hit     bool
	first   int // the Seq of the first request it reached
	release chan struct{}
	run     bool
	freed   bool
}

func newArmed(a Aim) *Armed {
	if a.First < 1 {
		a.First = 1
	}
	if a.Count == 0 {
		a.Count = 1
	}
	return &Armed{aim: a, reached: make(chan struct{}), release: make(chan struct{})}
}

// Reached is closed when the first request the aim reaches has arrived
// (and, for a hold, is held).
func (a *Armed) Reached() <-chan struct{} { return a.reached }

// Release lets the aim's held requests go, present and future: run says
// whether they go on (forwarded, or answered as the Fault says, then
// dropped or delivered) or are dropped unrun. Only the first call counts.
func (a *Armed) Release(run bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.freed {
		return
	}
	a.freed, a.run = true, run
	close(a.release)
}

// Disarm stops the aim reaching further requests, and drops unrun any
// it still holds.
func (a *Armed) Disarm() {
	a.mu.Lock()
	a.off = true
	a.mu.Unlock()
	a.Release(false)
}

// count notes one request of the aim's operation and says whether the
// aim reaches it.
func (a *Armed) count(op string) bool {
	if op != a.aim.Operation {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.off {
		return false
	}
	a.seen++
	n := a.seen - a.aim.First
	return n >= 0 && (a.aim.Count == Every || n < a.aim.Count)
}

// First is the record's Seq of the first request the aim reached (0:
// none yet).
func (a *Armed) First() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.first
}

// arrived marks the aim reached by exchange seq.
func (a *Armed) arrived(seq int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.hit {
		a.hit, a.first = true, seq
		close(a.reached)
	}
}

// released is whether the hold was released to run (after release).
func (a *Armed) released() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.run
}
