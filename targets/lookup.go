package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"text/template"
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
	tmpl, err := template.New("lookup").Parse(t.LookupPath)
	if err != nil {
		return 0, nil, fmt.Errorf("lookup.path: %w", err)
	}
	var p bytes.Buffer
	if err := tmpl.Execute(&p, struct{ Key string }{url.PathEscape(key)}); err != nil {
		return 0, nil, fmt.Errorf("lookup.path: %w", err)
	}
	return t.get(ctx, p.String())
}
