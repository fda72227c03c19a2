package toolfault_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/internal/toolfault"
)

// FailNext arms exactly n injections; LoseAnswers is a switch; the text
// says whether the call may be made again.
func TestPlan(t *testing.T) {
	var p toolfault.Plan
	if _, ok := p.Inject(); ok || p.Losing() {
		t.Fatal("the zero plan injects or loses")
	}
	p.FailNext(2, 503)
	for i := 0; i < 2; i++ {
		if s, ok := p.Inject(); !ok || s != 503 {
			t.Fatalf("injection %d: %d %t, want 503", i+1, s, ok)
		}
	}
	if _, ok := p.Inject(); ok {
		t.Error("a third injection after FailNext(2, ...)")
	}
	p.FailNext(5, 422)
	p.FailNext(0, 0)
	if _, ok := p.Inject(); ok {
		t.Error("FailNext(0, 0) did not clear the plan")
	}
	p.LoseAnswers(true)
	if !p.Losing() {
		t.Error("LoseAnswers(true) does not lose")
	}
	if !strings.Contains(toolfault.Text(503), "may be retried") || !strings.Contains(toolfault.Text(422), "do not retry") {
		t.Errorf("texts %q, %q", toolfault.Text(503), toolfault.Text(422))
	}
}

// Structured content goes only where it surely fits the tool's declared
// outputSchema: none declared, or one that allows its members; a schema
// that forbids them, requires others, or says more than Fits reads gets
// the text alone.
func TestFits(t *testing.T) {
	sc := toolfault.Structured(503)
	for _, c := range []struct {
		name   string
		schema string
		want   bool
	}{
		{"none declared", "", true},
		{"an object with other members, more allowed", `{"type":"object","properties":{"id":{"type":"integer"}}}`, true},
		{"its members declared", `{"type":"object","properties":{"error":{"type":"string"},"retryable":{"type":"boolean"}},"additionalProperties":false}`, true},
		{"no more members allowed", `{"type":"object","properties":{"id":{"type":"integer"}},"additionalProperties":false}`, false},
		{"another member required", `{"type":"object","properties":{"entities":{"type":"array"}},"required":["entities"]}`, false},
		{"retryable of another type", `{"type":"object","properties":{"retryable":{"type":"string"}}}`, false},
		{"composition, not read", `{"type":"object","anyOf":[{"required":["id"]}]}`, false},
	} {
		var schema any
		if c.schema != "" {
			if err := json.Unmarshal([]byte(c.schema), &schema); err != nil {
				t.Fatal(err)
			}
		}
		if got := toolfault.Fits(schema, sc); got != c.want {
			t.Errorf("%s: Fits = %t, want %t", c.name, got, c.want)
		}
	}
}
