package fakes

import "testing"

// Every entry's Change is its bug in the type that Open, RunClient or
// RunJob applies: a func of another type would be passed over, and the
// mutant would run as the reference. (mcpserver holds its own entries to
// func(*steps).)
func TestEveryMutantChangesWhatItIsAMutantOf(t *testing.T) {
	for _, m := range mutants {
		var ok bool
		switch m.Of {
		case OfServer:
			_, ok = m.Change.(func(*Server))
		case OfClient:
			_, ok = m.Change.(func(*clientSteps))
		case OfWorkflow:
			_, ok = m.Change.(func(*jobSteps))
		case OfMCP:
			ok = m.Change != nil
		}
		if !ok {
			t.Errorf("%s, a mutant of the %s: its Change is a %T", m.Name, m.Of, m.Change)
		}
	}
}
