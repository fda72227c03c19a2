package property

import (
	"context"
	"fmt"
	"sync"
	"time"

	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/model"
	"github.com/idemspec/idemspec/targets"
)

// pass is one rapid search: the sequences it drew, the requests
// spent, and the shortest counterexample seen.
type pass struct {
	ctx     context.Context
	env     *harness.Env
	cfg     Config
	model   model.Convention
	actions []action
	// twinTenant is whom the pool keys' twins are sent as (nil: no twins).
	twinTenant *targets.Tenant
	start      time.Time
	// level is the strength of the rules that fail a sequence; the
	// others are noted and the sequence goes on.
	level check.Level

	sequences int           // sequences rapid asked for
	replayed  int           // of which the memo answered without the target
	skipped   int           // sequences the budget left no request for
	late      int           // sequences the search's time left no room for
	ran       int           // sequences run against the target (MinSequences)
	begun     int           // sequences the pool started (0 alone: see sequences)
	alone     time.Duration // how long restarts and crashes held the pool's target alone
	drained   time.Duration // how long they waited for the other sequences' steps to end
	unpaid    int           // actions the budget could not pay for
	held      int           // restarts and crashes not taken (see hold)
	// heldForOthers counts the crashes held because another sequence's
	// lost answer may still be at work (see unsafeCrash); wholes, the
	// restarts and crashes that took the pool's target alone.
	heldForOthers, wholes int
	// heldForCrash counts the lost answers not taken while another
	// sequence's crash waited for the lost answers under way to end
	// (see awaitSafeCrash).
	heldForCrash int
	// missed says why a crash meant to land in a request's work came
	// after its answer (the first such; see sequence.crash).
	missed string
	steps  int
	// ledger holds the creates sent and the crashes left, which the
	// pool's workers share (see pool).
	ledger *ledger
	// pool runs this pass's sequences beside others' (nil: alone); index
	// is then the sequence rapid is drawing, counted over the whole pool.
	pool        *searchPool
	index       int
	drawn       map[string]int
	freshBursts int // bursts on a key no request had bound yet: the race window
	// mayAccepted counts, per malformed key, the creates accepted with a
	// key the target may accept (harness.MalformedKey.May): not charged.
	mayAccepted map[mayCase]int
	err         error
	memo        memo

	best          *sequence
	idle          int // sequences run against the target since the counterexample last changed
	stale         int // sequences not run: shrinking had stopped paying
	failingSeed   uint64
	first         time.Duration
	firstSequence int
	firstCalls    int // the sequences rapid had asked for by then
	firstSteps    int

	// shouldSeen is the first sequence, while searching, that broke a
	// SHOULD rule (when MUST rules fail sequences): rapid drew it as
	// sequence shouldIndex (from 0), shouldAt after the start.
	shouldSeen  *sequence
	shouldIndex int
	shouldAt    time.Duration
}

// mayCase is a malformed key a target may accept, and why.
type mayCase struct{ name, why string }

// shrunk says whether shrinking has stopped paying: rapid's shrinker
// keeps minimising bits nobody sees until its deadline (and checks the
// deadline only between blocks); the memo answers most of those tries,
// but not those that change a drawn key or payload. Once as many
// sequences as idleLimit have run against the target since the
// counterexample last got shorter or changed, every sequence passes at
// once, without the target, and the shrinker, which keeps only failing
// candidates, runs out quickly.
func (r *pass) shrunk() bool {
	if r.best == nil || r.idle < r.idleLimit() {
		return false
	}
	r.stale++
	return true
}

// idleLimit lets each step of the counterexample be tried away a few
// times over.
func (r *pass) idleLimit() int { return 10 + 3*len(r.best.steps) }

// action finds an available action by name.
func (r *pass) action(name string) (action, bool) {
	for _, a := range r.actions {
		if a.name == name {
			return a, true
		}
	}
	return action{}, false
}

// fail stops the run: the harness, not the target, went wrong. rapid
// cannot reproduce it (every later sequence returns at once), so it stops
// searching.
func (r *pass) fail(t *rapid.T, err error) {
	if r.err == nil {
		r.err = err
	}
	t.Fatalf("the harness could not run the sequence")
}

// exhausted says whether cost more create requests would break the budget.
func (r *pass) exhausted(cost int) bool {
	return r.cfg.Budget > 0 && r.ledger.sent()+cost > r.cfg.Budget
}

// afford reserves cost create requests, or says the budget is spent.
// The check and the reservation are one step of the ledger's: a pool's
// workers share it, and two that each saw room for their action would
// otherwise both take it past the budget.
func (r *pass) afford(cost int) bool {
	return r.ledger.reserve(r.cfg.Budget, cost)
}

// maxSteps bounds a sequence: rapid draws its length with no upper bound.
func (r *pass) maxSteps() int { return 4 * r.cfg.Steps }

// keep remembers a failing sequence in the memo and, if it is the
// shortest yet (the later one on a tie: shrinking only ever accepts
// smaller ones), as the counterexample.
func (r *pass) keep(s *sequence, msg string) {
	r.memo.fail(s.plan[:s.done], s.reconciled(), msg)
	if r.first == 0 {
		r.first, r.firstSequence, r.firstSteps = time.Since(r.start), r.number(), len(s.steps)
		r.firstCalls = r.sequences
		r.pool.claim(r)
	}
	if r.best == nil || len(s.steps) <= len(r.best.steps) {
		if r.best == nil || planKey(s.plan[:s.done]) != planKey(r.best.plan[:r.best.done]) {
			r.idle = 0
		}
		r.best = s
	}
}

// number is the sequence under way, counted from 1: over the whole pool
// when there is one, so that the same number names the same seed.
func (r *pass) number() int {
	if r.pool != nil {
		return r.index + 1
	}
	return r.sequences
}

// ledger is what a search spends from its budgets: create requests
// (Config.Budget) and crashes that land in a request's work
// (Config.Crashes). The pool's workers share one.
type ledger struct {
	mu      sync.Mutex
	spent   int
	crashes int
	// landed and missed count the crashes meant to land in a request's
	// work that did, and that came after the answer instead.
	landed, missed int
	// resent counts the creates resent to a key still in flight while
	// an action settled it: the budget is checked before each action,
	// and an action under way finishes.
	resent int
}

// resend counts n creates resent to a key still in flight.
func (l *ledger) resend(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.spent += n
	l.resent += n
}

func (l *ledger) resends() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.resent
}

// refund gives back n creates reserved for an action not taken.
func (l *ledger) refund(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.spent -= n
}

// reserve spends n if that keeps the creates sent within budget (0: no
// budget), and says whether it did.
func (l *ledger) reserve(budget, n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if budget > 0 && l.spent+n > budget {
		return false
	}
	l.spent += n
	return true
}

func (l *ledger) sent() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spent
}

func (l *ledger) crashesLeft() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.crashes
}

// landCrash takes one crash from the budget.
func (l *ledger) landCrash() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.crashes--
}

// crashed counts a crash meant to land in a request's work: it landed,
// or came after the answer. One drawn from the crash window that came
// late (a busy machine) gives its place in the budget back, so another
// sequence may land it, up to maxMissedCrashes times; a crash point
// missed is missed every time, and gives nothing back.
func (l *ledger) crashed(landed, drawn bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if landed {
		l.landed++
		return
	}
	l.missed++
	if drawn && l.missed < maxMissedCrashes {
		l.crashes++
	}
}

// maxMissedCrashes is how many crashes drawn from the crash window may
// come after their answer before the search stops giving them back.
const maxMissedCrashes = 3

// crashEvidence says why the search's crashes are no evidence ("": they
// are, or none was meant to land): some were meant to land in a
// request's work and none did.
func (l *ledger) crashEvidence(why string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.missed == 0 || l.landed > 0 {
		return ""
	}
	return fmt.Sprintf("none of the search's %d crashes meant for a request's work landed there: %s; a PASS cannot rest on crashes that never landed", l.missed, why)
}
