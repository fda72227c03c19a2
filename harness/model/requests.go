package model

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/history"
)

// Requests outside the key pool: a create without the key, one with a
// malformed key, and a variation of a request already answered. Each is
// judged on its own; none may create what the rules forbid.

// NoKey names, in findings, the creates sent without a key.
const NoKey = "no key"

// Keyless judges a create sent without the key the target requires. One
// that got no answer may or may not have been applied, which breaks no
// rule by itself (as K1 judges it): KeylessOracle's count says whether
// it created anything.
func (m *Model) Keyless(x history.Exchange) []Finding {
	switch {
	case x.Outcome != history.OK:
		return nil
	case x.Is2xx():
		return []Finding{must(violation(NoKey, x.Seq, "a create without the required key was accepted",
			fmt.Sprintf("%d, nothing created", m.conv.MissingKey), fmt.Sprintf("%d %s", x.Status, x.ResourceID)))}
	case x.Status != m.conv.MissingKey:
		return []Finding{should(violation(NoKey, x.Seq, "a create without the required key was refused with another status than the profile's",
			fmt.Sprint(m.conv.MissingKey), fmt.Sprint(x.Status)))}
	}
	return nil
}

// ExpectKeyless says what a create without the key must get.
func (m *Model) ExpectKeyless() string {
	return fmt.Sprintf("%d, nothing created", m.conv.MissingKey)
}

// KeylessOracle judges the oracle's count for the marker of the creates
// sent without a key: the target refuses them all, so none.
func (m *Model) KeylessOracle(count int, ids []string) []Finding {
	if count == 0 {
		return nil
	}
	return []Finding{must(violation(NoKey, 0, "resources were created without the key", "0", counted(count, ids)))}
}

// OddKey is a create sent with a malformed key (or two key headers).
type OddKey struct {
	Case string // what is odd: "empty", "256 characters", "duplicated header", ...
	// InFormat is set when the target's declared format accepts the key
	// after all: accepting it is then no fault.
	InFormat bool
	// May says why accepting the key is no fault either (a duplicated
	// key header: harness.DuplicatedHeaderMay).
	May string
	X   history.Exchange
}

// OddKeys names, in findings, the creates sent with malformed keys.
const OddKeys = "malformed key"

// OddKey judges a create with a malformed key: never a server error or a
// dropped connection (MUST), and refused with a 4xx when the key is
// outside the declared format (SHOULD), unless accepting it is a MAY.
// One whose answer did not come before the request's timeout may or may
// not have been applied, and breaks no rule by itself (as Keyless): a
// busy machine or a slow target times out, and OddOracle's count says
// whether it created anything. So does one dropped on a reused
// keep-alive connection: the server may have closed it as idle while the
// request was on its way.
func (m *Model) OddKey(o OddKey) []Finding {
	x := o.X
	subject := OddKeys + " (" + o.Case + ")"
	switch {
	case x.Outcome == history.Failed:
		return nil
	case x.TimedOut || x.Reused:
		m.oddUnanswered++
		return nil
	case x.Outcome != history.OK:
		return []Finding{must(violation(subject, x.Seq, "got no answer: the connection was dropped", "an HTTP response", string(x.Outcome)+": "+x.Error))}
	case x.Status >= 500:
		return []Finding{must(violation(subject, x.Seq, "answered with a server error", "a 4xx", fmt.Sprint(x.Status)))}
	case x.Is2xx():
		m.oddIDs[x.ResourceID] = true
		if !o.InFormat && o.May == "" {
			return []Finding{should(violation(subject, x.Seq, "accepted", "a 4xx", fmt.Sprintf("%d %s", x.Status, x.ResourceID)))}
		}
	}
	return nil
}

// ExpectOddKey says what a create with a malformed key may get.
func (m *Model) ExpectOddKey(inFormat bool, may string) string {
	switch {
	case inFormat:
		return "2xx or a 4xx (the key is in the declared format), never a 5xx"
	case may != "":
		return "2xx or a 4xx (a MAY), never a 5xx"
	}
	return "a 4xx, never a 5xx"
}

// OddOracle judges the oracle's count for the marker of the creates sent
// with malformed keys: only those accepted may have created anything.
func (m *Model) OddOracle(count int, ids []string) []Finding {
	if count <= len(m.oddIDs)+m.oddUnanswered {
		return nil
	}
	return []Finding{must(violation(OddKeys, 0, "refused keys created resources",
		fmt.Sprintf("at most %d (the accepted ones and those with no answer in time)", len(m.oddIDs)+m.oddUnanswered), counted(count, ids)))}
}

// Variation judges a variation of a request (another query string, an
// added header, the same JSON reordered or reindented) sent under its key
// after the original succeeded: the target treats it as the same request
// (a replay with the key's id) or refuses it, never executes it again.
func (m *Model) Variation(name, kind string, x history.Exchange) []Finding {
	k := m.key(name)
	if !x.Is2xx() || x.ResourceID == k.id {
		return nil
	}
	return []Finding{must(k.violation(x.Seq, "a variation of the request ("+kind+") executed it again",
		k.id+" (the same request), or a refusal", fmt.Sprintf("%d %s", x.Status, x.ResourceID)))}
}

// ExpectVariation says what a variation of an answered request may get.
func (m *Model) ExpectVariation(name string) string {
	return fmt.Sprintf("2xx with id %s (the same request) or a refusal; never a new resource", m.key(name).id)
}
