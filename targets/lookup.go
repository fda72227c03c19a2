package targets

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoLookup is returned by LookupKey for a target without a look-up path.
var ErrNoLookup = errors.New("the target declares no look-up path")

// LookupKey reads the record the target keeps for key, straight from the
// target (never through a faulty lane): the status (2xx known, 404 not)
// and the body.
func (t *Target) LookupKey(ctx context.Context, key string) (int, []byte, error) {
	if t.LookupPath == "" {
		return 0, nil, ErrNoLookup
	}
	p, err := t.lookupPath(key)
	if err != nil {
		return 0, nil, err
	}
	return t.get(ctx, p)
}

// lookupPath is lookup.path for key, the key escaped where it stands.
func (t *Target) lookupPath(key string) (string, error) {
	tmpl, err := parseTemplate("lookup.path", t.LookupPath, inPath)
	if err != nil {
		return "", fmt.Errorf("lookup.path: %w", err)
	}
	return execute(tmpl, struct{ Key string }{key})
}
