package mutant

// Mutant is a reference implementation plus exactly one named bug, with
// the checks that must catch it. The detection matrices hold the harness
// to Catches: every listed check is found wanting (FAIL for a MUST
// check, WARN for a SHOULD one), every other check passes. The entry of
// a reference that has findings of its own (the MCP server's append_log,
// which no agent can retry safely) lists them the same way.
type Mutant struct {
	Name    string
	Of      string  // what it is a mutant of (fakes.OfServer, OfClient, ...)
	Bug     string  // what is wrong, in one sentence
	Catches []Catch // the verdicts that must find it wanting
	// MayCatch lists checks that may also fail, with the reason in Why;
	// the matrix accepts either verdict for these and no others.
	MayCatch []string
	Why      string
	// Multi lists the checks that must fail when two instances of the
	// mutant share one database (a single instance fails only Catches).
	Multi []string
	// Skips lists the checks that must be SKIP: the check their
	// judgement rests on fails (no refusal came, so there is no status
	// to judge; a step abandoned after a kill shows no key), and a PASS
	// would claim what nobody saw.
	Skips []string

	// Change is the bug: a func that replaces one step of the reference,
	// of the type its own package applies (fakes: func(*Server),
	// func(*clientSteps), func(*jobSteps); mcpserver: func(*steps)).
	// Those packages' tests hold every entry to its type; nothing else
	// reads it.
	Change any
}

// Catch is one verdict that must find a mutant wanting: a check, on a
// subject (On) where the check is judged per subject, as an MCP check is
// per tool; On is "" for a check judged once per run.
type Catch struct{ Check, On string }

// Checks is the catches of checks judged once per run, by their IDs.
func Checks(ids ...string) []Catch {
	out := make([]Catch, len(ids))
	for i, id := range ids {
		out[i] = Catch{Check: id}
	}
	return out
}

// On is the catches of checks judged per subject, each on subject.
func On(subject string, ids ...string) []Catch {
	out := Checks(ids...)
	for i := range out {
		out[i].On = subject
	}
	return out
}

// CaughtBy lists the IDs of the checks in m's Catches, in their order,
// each once.
func (m Mutant) CaughtBy() []string {
	out := []string{}
	seen := map[string]bool{}
	for _, c := range m.Catches {
		if !seen[c.Check] {
			seen[c.Check] = true
			out = append(out, c.Check)
		}
	}
	return out
}
