package reports_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/reports"
)

// What a JUnit consumer reads back. The schema check (against
// docs/junit.xsd, with xmllint) is in cmd/idemspec; this test holds the
// meaning: counts, properties, and which verdict becomes which element.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Tests      int        `xml:"tests,attr"`
		Failures   int        `xml:"failures,attr"`
		Errors     int        `xml:"errors,attr"`
		Skipped    int        `xml:"skipped,attr"`
		Properties []property `xml:"properties>property"`
		Cases      []struct {
			Name       string     `xml:"name,attr"`
			Properties []property `xml:"properties>property"`
			Failure    *problem   `xml:"failure"`
			Error      *problem   `xml:"error"`
			Skipped    *problem   `xml:"skipped"`
			SystemOut  string     `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

type property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func props(ps []property) map[string]string {
	m := map[string]string{}
	for _, p := range ps {
		m[p.Name] = p.Value
	}
	return m
}

func junitOf(t *testing.T, r reports.Report) junitDoc {
	t.Helper()
	var b bytes.Buffer
	if err := reports.WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, b.String())
	}
	return doc
}

func TestJUnitVerdictsBecomeElements(t *testing.T) {
	for _, strict := range []bool{false, true} {
		r := syntheticReport()
		r.Run.Strict = strict
		doc := junitOf(t, r)
		if len(doc.Suites) != 1 {
			t.Fatalf("%d testsuites, want 1", len(doc.Suites))
		}
		s := doc.Suites[0]
		want := map[string]string{"S1": "pass", "S2": "failure", "S4": "failure", "S5a": "skipped", "K3": "warn", "T9": "error"}
		if strict {
			want["K3"] = "failure"
		}
		failures, errors, skipped := 0, 0, 0
		for _, c := range s.Cases {
			p := props(c.Properties)
			id := p["check"]
			got := "pass"
			switch {
			case c.Failure != nil:
				got, failures = "failure", failures+1
			case c.Error != nil:
				got, errors = "error", errors+1
			case c.Skipped != nil:
				got, skipped = "skipped", skipped+1
			case strings.HasPrefix(c.SystemOut, "WARN"):
				got = "warn"
			}
			if got != want[id] {
				t.Errorf("strict=%v: %s is %s, want %s", strict, id, got, want[id])
			}
			if p["level"] == "" || p["clause"] == "" || p["verdict"] == "" || !strings.HasPrefix(c.Name, id+" should ") {
				t.Errorf("%s: properties %v, name %q", id, p, c.Name)
			}
		}
		if len(s.Cases) != 6 || s.Tests != 6 || doc.Tests != 6 {
			t.Errorf("%d cases, tests=%d/%d, want 6", len(s.Cases), s.Tests, doc.Tests)
		}
		if s.Failures != failures || s.Errors != errors || s.Skipped != skipped || doc.Failures != failures || doc.Errors != errors || doc.Skipped != skipped {
			t.Errorf("counts %d/%d/%d (suite) %d/%d/%d (root), elements %d/%d/%d",
				s.Failures, s.Errors, s.Skipped, doc.Failures, doc.Errors, doc.Skipped, failures, errors, skipped)
		}
		sp := props(s.Properties)
		if sp["run_id"] != "r1a2b3c4" || sp["seed"] != "4242" || sp["complete"] != "true" || sp["tool_version"] != "1.2.3-test" {
			t.Errorf("suite properties %v", sp)
		}
	}
}

func TestJUnitFailureCitesEvidence(t *testing.T) {
	doc := junitOf(t, syntheticReport())
	for _, c := range doc.Suites[0].Cases {
		if props(c.Properties)["check"] != "S2" {
			continue
		}
		f := c.Failure
		if f.Type != "MUST violated" || !strings.Contains(f.Message, "the retry created a second resource") {
			t.Errorf("failure %+v", f)
		}
		for _, want := range []string{
			"- the retry created a second resource (expected res_a, observed res_b)",
			"    #1 first (answer lost): faulty lane with response-loss, key …3e4f5a6b, payload 68d615b879ce -> no answer, maybe applied: timeout awaiting answer",
			"    #2 retry: clean lane, key …3e4f5a6b, payload 68d615b879ce -> 201 res_b",
			"fault: response-loss on the faulty lane for the first attempt",
			"oracle: 2 resources carry marker idemspec-r1-S2-2 (after the retries, list oracle)",
		} {
			if !strings.Contains(f.Text, want) {
				t.Errorf("failure text lacks %q:\n%s", want, f.Text)
			}
		}
		return
	}
	t.Fatal("no S2 testcase")
}

func TestJUnitIncompleteRun(t *testing.T) {
	r := syntheticReport()
	r.Run.Complete, r.Run.Incomplete = false, "Interrupted by User"
	p := props(junitOf(t, r).Suites[0].Properties)
	if p["complete"] != "false" || p["incomplete"] != "Interrupted by User" {
		t.Errorf("properties %v", p)
	}
}
