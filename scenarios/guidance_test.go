package scenarios_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idemspec/idemspec/harness/check"
	_ "github.com/idemspec/idemspec/scenarios"
	_ "github.com/idemspec/idemspec/scenarios/mcptools"
)

// TestEveryCheckSaysWhyAndHowToFix: every check of the registry, of
// every kind, carries the texts a finding shows its owner (why it
// matters, how to fix it) and those `idemspec explain` prints (what
// idemspec does, what a verdict rests on): a check added without them
// fails here.
func TestEveryCheckSaysWhyAndHowToFix(t *testing.T) {
	defined := check.Defined()
	if len(defined) < 30 {
		t.Fatalf("only %d checks defined: the registry is not the whole catalogue", len(defined))
	}
	for _, c := range defined {
		for _, f := range []struct{ name, text string }{
			{"Why", c.Why}, {"Fix", c.Fix}, {"Stimulus", c.Stimulus}, {"Proof", c.Proof},
		} {
			text := strings.TrimSpace(f.text)
			switch {
			case text == "":
				t.Errorf("%s has no %s text", c.ID, f.name)
			case !strings.HasSuffix(text, "."):
				t.Errorf("%s: %s is not a sentence (no full stop): %q", c.ID, f.name, text)
			case utf8.RuneCountInString(text) > 280:
				t.Errorf("%s: %s is %d characters, more than a short text's 280: %q", c.ID, f.name, utf8.RuneCountInString(text), text)
			}
		}
	}
}
