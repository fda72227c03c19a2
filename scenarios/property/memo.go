package property

import (
	"fmt"
	"strings"
)

// planned is one action drawn and not yet taken.
type planned struct {
	action  action
	key     string
	payload string
	n       int // burst size
}

func (p planned) String() string {
	return fmt.Sprintf("%s/%s/%s/%d", p.action.name, p.key, p.payload, p.n)
}

// cost is how many create requests the action sends (a submit may send
// more while the target answers "in flight").
func (p planned) cost() int {
	switch p.action.name {
	case "burst":
		return p.n
	case "lookup":
		return 0
	case "restart":
		return 2 // the request before the restart and the one after
	}
	return 1
}

// memo remembers how each plan of actions fared once a counterexample is
// known. rapid shrinks by minimising the bits it drew, most of which
// nobody sees (how it decided to draw one more action, say), so it runs
// the very same sequence of actions again and again; against a live
// target each run costs real requests and tens of milliseconds. With the
// memo a sequence identical to one already run is answered at once: the
// same failure at the same step, or the same pass. A sequence is taken
// against the target as soon as it differs from every one seen.
type memo struct {
	failures  map[string]string // plan -> the failure at its last step ("|end": at the reconciliation)
	passes    map[string]bool   // complete plans that passed
	continued map[string]bool   // plans some run went on from without failing
}

func planKey(plan []planned) string {
	parts := make([]string, len(plan))
	for i, p := range plan {
		parts[i] = p.String()
	}
	return strings.Join(parts, ";")
}

func (m *memo) init() {
	if m.failures == nil {
		m.failures, m.passes, m.continued = map[string]string{}, map[string]bool{}, map[string]bool{}
	}
}

// wentOn records that a run took plan and its last step held: a run
// cut short afterwards (rapid ran out of drawn bits) still teaches that.
func (m *memo) wentOn(plan []planned) {
	m.init()
	m.continued[planKey(plan)] = true
}

// fail records a run that failed after taking plan: at its last action,
// or at the reconciliation after it (atEnd).
func (m *memo) fail(plan []planned, atEnd bool, msg string) {
	m.init()
	if atEnd {
		m.failures[planKey(plan)+"|end"] = msg
	} else {
		m.failures[planKey(plan)] = msg
	}
}

// pass records a run that took plan and passed the reconciliation.
func (m *memo) pass(plan []planned) {
	m.init()
	m.passes[planKey(plan)] = true
}

// failedAt says whether a run of plan failed at its last action, and how.
func (m *memo) failedAt(plan []planned) (string, bool) {
	msg, ok := m.failures[planKey(plan)]
	return msg, ok
}

// failedAtEnd says whether a run of plan failed at the reconciliation.
func (m *memo) failedAtEnd(plan []planned) (string, bool) {
	msg, ok := m.failures[planKey(plan)+"|end"]
	return msg, ok
}

// continues says whether a run took plan and its last step held.
func (m *memo) continues(plan []planned) bool { return len(plan) > 0 && m.continued[planKey(plan)] }

// passed says whether a run of exactly plan passed.
func (m *memo) passed(plan []planned) bool { return m.passes[planKey(plan)] }
