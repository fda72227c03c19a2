package targets

import (
	"fmt"
	"sort"
	"strings"
)

// Profile is the convention a target follows: which status answers which
// situation. A target file may override single codes.
type Profile struct {
	Name       string
	Mismatch   int // same key, another payload
	InFlight   int // same key while the first request is still running
	MissingKey int // a create without the key header
}

// profiles are the known conventions. ietf is draft-ietf-httpapi-
// idempotency-key-header: 422 for a mismatch, 409 while in flight, 400
// for a missing key.
var profiles = map[string]Profile{
	"ietf": {Name: "ietf", Mismatch: 422, InFlight: 409, MissingKey: 400},
}

// LookupProfile finds a profile by name.
func LookupProfile(name string) (Profile, error) {
	p, ok := profiles[name]
	if !ok {
		names := make([]string, 0, len(profiles))
		for n := range profiles {
			names = append(names, n)
		}
		sort.Strings(names)
		return Profile{}, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(names, ", "))
	}
	return p, nil
}
