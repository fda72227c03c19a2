package targets_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// cleanup.timeout is capped like every wait: the probe's 10h was
// accepted, and a 75 s cleanup command was waited out.
func TestCleanupTimeoutIsCapped(t *testing.T) {
	for _, c := range []struct{ timeout, want string }{
		{"10h", "t.yaml:4: cleanup.timeout: 10h0m0s is longer than 1m0s, the most idemspec waits for anything"},
		{"61s", "t.yaml:4: cleanup.timeout: 1m1s is longer than 1m0s"},
		{"-1s", `t.yaml:4: cleanup.timeout: "-1s" is not a positive duration`},
		{"soon", `t.yaml:4: cleanup.timeout: "soon" is not a positive duration`},
	} {
		_, err := targets.Parse("t.yaml", targetFile("http://127.0.0.1:1", "/r?m={{.Marker}}", "cleanup: {command: ./clean.sh, timeout: "+c.timeout+"}\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("timeout %s: %v, want %q", c.timeout, err, c.want)
		}
	}
	tg, err := targets.Parse("t.yaml", targetFile("http://127.0.0.1:1", "/r?m={{.Marker}}", "cleanup: {command: ./clean.sh, timeout: 1m}\n"))
	if err != nil || tg.Cleanup.Timeout != targets.MaxWait {
		t.Errorf("the cap itself: %v", err)
	}
}

// An empty item of a list of sections is refused, naming where: setup:
// [null] was dropped without a word.
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

// {{index}} (the probe's out-of-range index said only "create.body: 99")
// is not part of the language: the error says which construct, and
// where.
func TestIndexIsNamedWhereItStands(t *testing.T) {
	_, err := targets.Parse("t.yaml", file(`
base_url: http://127.0.0.1:1
setup: [{name: order, path: /orders}]
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}},"x":"{{index .Setup.order.items 99}}"}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:3: create.body: {{index .Setup.order.items 99}} is not part of a target file's templates") {
		t.Errorf("index: %v", err)
	}
}
