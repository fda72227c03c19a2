package reports_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// sarifSchema is the SARIF 2.1.0 JSON schema, as OASIS publishes it
// (testdata/sarif-schema-2.1.0.json, its licence beside it).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const id = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sarifOf(t *testing.T, r reports.Report) (map[string]any, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := reports.WriteSARIF(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	return doc, b.Bytes()
}

// get walks a decoded JSON document: get(doc, "runs", 0, "results").
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// The SARIF of a failing run validates against the 2.1.0 schema: one
// rule per check with its level, clause and fix; one result per FAIL,
// WARN and ACCEPTED (suppressed, with the reason), at the target file's
// line; nothing for a PASS, SKIP or ERROR.
func TestSARIFValidatesAndLocatesFindings(t *testing.T) {
	r := guidedReport() // S2 and S4 FAIL, K3 WARN, S1 PASS, S5a SKIP, T9 ERROR
	for i := range r.Checks {
		r.Checks[i].Location = &reports.Location{File: "./api/idemspec.yaml", Line: 10 + i, Field: "create.path"}
	}
	r = reports.Accept(r, "accepted.yaml", acceptances(t, "- check: S4\n  reason: PAY-2 unique constraint\n  until: 2027-01-31\n"), day)
	doc, raw := sarifOf(t, r)
	if err := sarifSchema(t).Validate(doc); err != nil {
		t.Fatalf("report.sarif does not validate against SARIF 2.1.0: %v\n%s", err, raw)
	}
	if get(doc, "version") != "2.1.0" {
		t.Errorf("version %v", get(doc, "version"))
	}
	rules, _ := get(doc, "runs", 0, "tool", "driver", "rules").([]any)
	if len(rules) != len(r.Checks) {
		t.Errorf("%d rules, want one per check (%d)", len(rules), len(r.Checks))
	}
	for i, c := range r.Checks {
		rule := rules[i]
		if get(rule, "id") != c.ID || get(rule, "properties", "clause") != c.Clause || get(rule, "properties", "level") != string(c.Level) {
			t.Errorf("rule %d: %v", i, rule)
		}
		if help, _ := get(rule, "help", "text").(string); !strings.Contains(help, "How to fix: FIX-"+c.ID) {
			t.Errorf("rule %s: help %q lacks the fix", c.ID, help)
		}
		want := "error"
		if c.Level != check.MUST {
			want = "warning"
		}
		if get(rule, "defaultConfiguration", "level") != want {
			t.Errorf("rule %s: default level %v, want %s", c.ID, get(rule, "defaultConfiguration", "level"), want)
		}
	}
	results, _ := get(doc, "runs", 0, "results").([]any)
	byRule := map[string]any{}
	for _, res := range results {
		byRule[get(res, "ruleId").(string)] = res
	}
	if len(results) != 3 || byRule["S2"] == nil || byRule["S4"] == nil || byRule["K3"] == nil {
		t.Fatalf("results for %v, want S2, S4 (accepted) and K3", keys(byRule))
	}
	for id, want := range map[string]struct {
		level string
		line  float64
	}{"S2": {"error", 11}, "S4": {"error", 12}, "K3": {"warning", 14}} {
		res := byRule[id]
		if get(res, "level") != want.level {
			t.Errorf("%s: level %v, want %s", id, get(res, "level"), want.level)
		}
		loc := get(res, "locations", 0, "physicalLocation")
		if get(loc, "artifactLocation", "uri") != "api/idemspec.yaml" || get(loc, "region", "startLine") != want.line {
			t.Errorf("%s: location %v, want api/idemspec.yaml line %v", id, loc, want.line)
		}
		if get(res, "ruleIndex") == nil {
			t.Errorf("%s: no ruleIndex", id)
		}
	}
	if get(byRule["S2"], "suppressions") != nil {
		t.Error("S2 is not accepted, yet suppressed")
	}
	sup := get(byRule["S4"], "suppressions", 0)
	if get(sup, "status") != "accepted" || !strings.Contains(get(sup, "justification").(string), "PAY-2 unique constraint") {
		t.Errorf("S4's suppression %v: want accepted with the reason", sup)
	}
}

// A run against a built-in fake has no file: its results have no
// location, and the document still validates.
func TestSARIFWithoutAFile(t *testing.T) {
	doc, raw := sarifOf(t, syntheticReport())
	if err := sarifSchema(t).Validate(doc); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	for _, res := range get(doc, "runs", 0, "results").([]any) {
		if get(res, "locations", 0) != nil {
			t.Errorf("a result with a location though no check has one: %v", res)
		}
	}
	// A passing run has an empty results array, which code scanning
	// needs to close what an earlier run found.
	pass := reports.New(reports.Run{Complete: true}, reports.Meta{}, []reports.CheckResult{{Entry: check.Entry{ID: "S1", Title: "should x", Level: check.MUST}, Verdict: check.PASS}})
	doc, raw = sarifOf(t, pass)
	if rs, ok := get(doc, "runs", 0, "results").([]any); !ok || len(rs) != 0 {
		t.Errorf("a passing run: results %v, want []\n%s", get(doc, "runs", 0, "results"), raw)
	}
}

// The schema has teeth: a document that breaks it is refused.
func TestSARIFSchemaRefusesBrokenDocuments(t *testing.T) {
	doc, _ := sarifOf(t, syntheticReport())
	doc["version"] = "2.0.0"
	if err := sarifSchema(t).Validate(doc); err == nil {
		t.Error("version 2.0.0 validated")
	}
	doc, _ = sarifOf(t, syntheticReport())
	get(doc, "runs", 0, "results", 0).(map[string]any)["level"] = "fatal"
	if err := sarifSchema(t).Validate(doc); err == nil {
		t.Error("level fatal validated")
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
