package harness

import (
	"strings"

	"github.com/idemspec/idemspec/targets"
)

// MalformedKey is a key that is not a well-formed key: its values (two
// for a duplicated header), sent where the target takes its key. K2, K2a
// and the properties send them.
type MalformedKey struct {
	Name   string
	Values []string
	// May says why a target may accept the key as well as refuse it
	// ("": it must refuse it unless its declared format takes it): a
	// note, never a WARN or a FAIL, whichever it does.
	May string
}

// DuplicatedHeaderMay is why two key headers in one request are a MAY:
// the draft forbids the client to send them and says nothing of the
// server that receives them; RFC 8941 would have a strict parser ignore
// the field (the key would be missing), and no implementation tried
// parses it so: they take one of the two, or join them.
const DuplicatedHeaderMay = "the draft (§2.1) forbids a client to send two key headers and says nothing of a server that receives them; RFC 8941 would have a strict parser ignore the field, which no implementation tried does: accepting or refusing them is the server's choice (a MAY)"

// InFormat says whether the target's declared format accepts the key
// after all, so that accepting it is no fault. Two key headers are
// outside the draft's grammar (one sf-string) whatever the format, but
// accepting them is a MAY (May); with no format or length declared,
// nothing else is outside (uuid is idemspec's default, not the
// target's).
func (k MalformedKey) InFormat(e *Env) bool {
	return len(k.Values) == 1 && e.Target.Key.Matches(k.Values[0])
}

// MalformedKeys are the malformed keys K2, K2a and the properties send,
// each made from fresh keys; the last is the duplicated header, made only
// where the key travels in a header (a body field or a query parameter
// read once has no such form). Leading and trailing whitespace is not
// among them: HTTP strips it, so the target would see a well-formed key.
func MalformedKeys(e *Env) []MalformedKey {
	return malformedKeys(e.Target.Key, e.NewKey(), e.NewKey(), e.NewKey())
}

// MalformedKeyCount is how many keys MalformedKeys makes for t: what the
// dry run counts.
func MalformedKeyCount(t *targets.Target) int {
	return len(malformedKeys(t.Key, "good", "one", "two"))
}

func malformedKeys(k targets.Key, good, one, two string) []MalformedKey {
	long := strings.Repeat(good, 1+1024/len(good))
	keys := []MalformedKey{
		{Name: "empty", Values: []string{""}},
		{Name: "256 characters", Values: []string{long[:256]}},
		{Name: "1024 characters", Values: []string{long[:1024]}},
		{Name: "non-ASCII", Values: []string{good[:len(good)-1] + "é"}},
		{Name: "inner whitespace", Values: []string{good[:len(good)/2] + " " + good[len(good)/2+1:]}},
	}
	if k.InHeader() {
		keys = append(keys, MalformedKey{Name: "duplicated header", Values: []string{one, two}, May: DuplicatedHeaderMay})
	}
	return keys
}
