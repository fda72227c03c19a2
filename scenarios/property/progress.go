package property

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
)

// Progress is how far a search has got, for a person watching it: a
// search against a slow target takes tens of seconds.
type Progress struct {
	// Level is the pass: MUST (P1, noting the SHOULD rules), or SHOULD
	// when P1 held and a SHOULD rule broke (P2).
	Level check.Level
	// Sequences is how many sequences the pass has tried, of Of;
	// Steps how many steps it has taken in all.
	Sequences, Of, Steps int
	// Shrinking says a counterexample was found and is being shortened:
	// Shrinks sequences tried since, Shortest steps in it now.
	Shrinking         bool
	Shrinks, Shortest int
}

// String reads as the status line shows it.
func (p Progress) String() string {
	s := fmt.Sprintf("%s rules: ", p.Level)
	if p.Shrinking {
		return s + fmt.Sprintf("shrinking, %s now, %d sequences tried", steps(p.Shortest), p.Shrinks)
	}
	return s + fmt.Sprintf("sequence %d of %d, %s", p.Sequences, p.Of, steps(p.Steps))
}

func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

// report tells Config.Progress where the pass is.
func (r *pass) report() {
	if r.cfg.Progress == nil {
		return
	}
	p := Progress{Level: r.level, Sequences: r.sequences, Of: r.cfg.Sequences, Steps: r.steps}
	if r.best != nil {
		p.Shrinking, p.Shrinks, p.Shortest = true, r.sequences-r.firstCalls, len(r.best.steps)
	}
	r.cfg.Progress(p)
}
