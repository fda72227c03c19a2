package main_test

import (
	"os"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
)

// TestConformanceDocIsUpToDate: docs/CONFORMANCE.md is generated from
// the check registry; a check added, retitled or re-levelled without
// `make docs` fails here.
func TestConformanceDocIsUpToDate(t *testing.T) {
	r := idemspec(t, "list", "--format", "markdown")
	if r.code != 0 {
		t.Fatalf("list --format markdown: exit %d\n%s", r.code, r.stderr)
	}
	committed, err := os.ReadFile("../../docs/CONFORMANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != r.stdout {
		t.Fatalf("docs/CONFORMANCE.md is out of date: run `make docs` and commit it.\n--- generated:\n%s", r.stdout)
	}
	for _, c := range check.All() {
		if !strings.Contains(r.stdout, "| "+c.ID+" | "+string(c.Level)+" | ") {
			t.Errorf("the conformance document has no row for %s", c.ID)
		}
	}
}

func TestListFormats(t *testing.T) {
	text := idemspec(t, "list")
	if text.code != 0 || !strings.HasPrefix(text.stdout, "ID  ") || !strings.Contains(text.stdout, "S1  ") {
		t.Errorf("list: exit %d\n%s", text.code, text.stdout)
	}
	if r := idemspec(t, "list", "--format", "yaml"); r.code != 2 || !strings.Contains(r.stderr, `list --format "yaml": want text or markdown`) {
		t.Errorf("list --format yaml: exit %d, %q", r.code, r.stderr)
	}
}
