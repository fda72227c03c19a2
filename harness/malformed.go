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
}

// InFormat says whether the target's declared format accepts the key
// after all, so that accepting it is no fault. Two key headers are an
// error whatever the format (the draft's grammar: one sf-string); with
// no format or length declared, nothing else is (uuid is idemspec's
// default, not the target's).
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
		{"empty", []string{""}},
		{"256 characters", []string{long[:256]}},
		{"1024 characters", []string{long[:1024]}},
		{"non-ASCII", []string{good[:len(good)-1] + "é"}},
		{"inner whitespace", []string{good[:len(good)/2] + " " + good[len(good)/2+1:]}},
	}
	if k.InHeader() {
		keys = append(keys, MalformedKey{"duplicated header", []string{one, two}})
	}
	return keys
}
