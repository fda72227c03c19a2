package main_test

import (
	"os"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
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
	// Each check's entry opens with its ID and level; its why and fix
	// follow on the next line, as the reports show them.
	rows := map[string]string{}
	for _, c := range check.All() {
		row := "\n**" + c.ID + "** " + string(c.Level) + ", "
		if i := strings.Index(r.stdout, row); i >= 0 {
			rows[c.ID], _, _ = strings.Cut(r.stdout[i+1:], "\n")
		} else {
			t.Errorf("the conformance document has no entry for %s", c.ID)
		}
		if line := "\n" + rows[c.ID] + "\n*Why:* " + c.Why + " *Fix:* " + c.Fix + "\n"; !strings.Contains(r.stdout, line) {
			t.Errorf("the conformance document lacks %s's why and fix: %q", c.ID, line)
		}
	}
	// Each entry names the mutants that must fail its check, the server's
	// and the client's, and the mutant's line names the check.
	for _, m := range fakes.Mutants() {
		for _, id := range m.CaughtBy() {
			if row, ok := rows[id]; ok && !strings.Contains(row, "`"+m.Name+"`") {
				t.Errorf("the entry of %s does not name %s, a mutant of the %s that it catches: %s", id, m.Name, m.Of, row)
			}
		}
		line := "\n- `" + m.Name + "`: "
		if ids := m.CaughtBy(); len(ids) > 0 {
			line += ids[0]
		}
		if !strings.Contains(r.stdout, line) {
			t.Errorf("the conformance document lacks %s's line %q", m.Name, line)
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
