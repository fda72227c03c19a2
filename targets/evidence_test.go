package targets_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// The header's evidence says what the counts rest on before what the
// oracle proves where it is read: a list oracle is strong, but a
// program that carries no marker is counted from the wire.
func TestEvidenceOfSaysWhatTheCountsRestOn(t *testing.T) {
	tg := &targets.Target{Oracle: &targets.ListOracle{}}
	if e := targets.EvidenceOf(tg); !strings.HasPrefix(e, "strong:") {
		t.Errorf("a list oracle alone: %q", e)
	}
	tg.CountedBy = "resources counted from the wire"
	if e := targets.EvidenceOf(tg); !strings.HasPrefix(e, "resources counted from the wire; where the oracle is read, strong:") {
		t.Errorf("counted from the wire: %q", e)
	}
}
