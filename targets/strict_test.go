package targets_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// An empty item of a list of sections is refused, naming where, not
// dropped without a word (setup: [null] is a mistake, not "no setup").
func TestEmptyListItemsAreRefused(t *testing.T) {
	for _, c := range []struct{ extra, want string }{
		{"setup: [null]\n", "t.yaml:4: setup[0]: expected a mapping of fields, not null"},
		{"setup:\n  - {name: a, path: /a}\n  - ~\n", "t.yaml:6: setup[1]: expected a mapping of fields, not null"},
		{"tenants: [x, y]\n", "t.yaml:4: tenants[0]: expected a mapping of fields, not x"},
	} {
		if _, err := targets.Parse("t.yaml", targetFile("http://127.0.0.1:1", "/r?m={{.Marker}}", c.extra)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.extra, err, c.want)
		}
	}
}
