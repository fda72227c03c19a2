package property

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// A counterexample's replay takes the very actions the report shows, in
// their order, with nothing drawn and nothing shrunk. A replay from the
// failing sequence's seed alone would draw the unshrunk sequence and
// shrink it again, and shrinking tries sequences whose outcome rides the
// machine's timing (a burst's arrivals, a crash, a lost answer): on a
// busy machine it can end at another counterexample than the one the
// report shows. The seed stays in the line for the search it began.

// planText is the sequence's actions taken, as Config.Counterexample
// (--counterexample) gives them: each action's name, pool key, payload
// and number (a burst's size, a variation's, a malformed key's case),
// "/" between them, ";" between actions.
func (s *sequence) planText() string { return planKey(s.plan[:s.done]) }

// parsePlan reads a counterexample's actions against the actions the
// target supports.
func parsePlan(text string, available []action) ([]planned, error) {
	var plan []planned
	for i, part := range strings.Split(text, ";") {
		fields := strings.Split(part, "/")
		if len(fields) != 4 {
			return nil, fmt.Errorf("--counterexample: action %d %q: want ACTION/KEY/PAYLOAD/N", i+1, part)
		}
		n, err := strconv.Atoi(fields[3])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--counterexample: action %d %q: N %q is not a count", i+1, part, fields[3])
		}
		j := slices.IndexFunc(available, func(a action) bool { return a.name == fields[0] })
		if j < 0 {
			return nil, fmt.Errorf("--counterexample: action %d %q: %q is no action this target supports", i+1, part, fields[0])
		}
		plan = append(plan, planned{action: available[j], key: fields[1], payload: fields[2], n: n})
	}
	return plan, nil
}

// replayPlan is the sequence when the config gives a counterexample: its
// actions, each judged as it is taken, then the reconciliation, as a
// drawn sequence's. It draws nothing, so rapid has nothing to shrink.
func (s *sequence) replayPlan(t *rapid.T) {
	plan, err := parsePlan(s.r.cfg.Counterexample, s.r.actions)
	if err != nil {
		s.r.fail(t, err)
	}
	for _, p := range plan {
		if _, ok := s.keys[p.key]; !ok && p.key != "" {
			s.r.fail(t, fmt.Errorf("--counterexample: %q: no key %q in a sequence's pool against this target", p, p.key))
		}
	}
	s.plan = plan
	s.invariant(t)
	s.conclude(t)
}

// counterexampleNote says why a replayed counterexample may have broken
// no rule (summary says how one that did went).
func (r *pass) counterexampleNote() string {
	var timed []string
	for _, part := range strings.Split(r.cfg.Counterexample, ";") {
		name, _, _ := strings.Cut(part, "/")
		if slices.Contains(timedActions, name) && !slices.Contains(timed, name) {
			timed = append(timed, name)
		}
	}
	why := "none of its actions rides the machine's timing, so the target answered them otherwise than when the counterexample was found"
	if len(timed) > 0 {
		why = "its " + strings.Join(timed, ", ") + " ride the machine's timing (arrivals, where a crash lands, when an answer is lost), so what it showed may not recur on every run"
	}
	return "replayed the counterexample given (--counterexample), its actions as given: no rule broke this time; " + why
}

// oneSequence is the Config.Sequences that runs one sequence: rapid
// runs a fifth of the checks it is asked for under go test -short.
func oneSequence() int {
	if testing.Short() {
		return 5
	}
	return 1
}

// timedActions are the actions whose outcome rides the machine's
// scheduling.
var timedActions = []string{"burst", "submit-lost", "restart", "crash"}
