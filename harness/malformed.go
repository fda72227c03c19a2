package harness

import "strings"

// MalformedKey is a key header that is not a well-formed key: its values
// (two for a duplicated header). K2, K2a and the properties send them.
type MalformedKey struct {
	Name   string
	Values []string
}

// InFormat says whether the target's declared format accepts the key
// after all, so that accepting it is no fault.
func (k MalformedKey) InFormat(e *Env) bool {
	return len(k.Values) == 1 && e.Target.Key.Matches(k.Values[0])
}

// MalformedKeys are the malformed keys K2, K2a and the properties send,
// each made from fresh keys; the last is the duplicated header. Leading
// and trailing whitespace is not among them: HTTP strips it, so the
// target would see a well-formed key.
func MalformedKeys(e *Env) []MalformedKey {
	good := e.NewKey()
	long := strings.Repeat(good, 1+1024/len(good))
	return []MalformedKey{
		{"empty", []string{""}},
		{"256 characters", []string{long[:256]}},
		{"1024 characters", []string{long[:1024]}},
		{"non-ASCII", []string{good[:len(good)-1] + "é"}},
		{"inner whitespace", []string{good[:len(good)/2] + " " + good[len(good)/2+1:]}},
		{"duplicated header", []string{e.NewKey(), e.NewKey()}},
	}
}
