package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
)

// JUnit XML, in the shape CI systems read (Jenkins, GitLab, GitHub
// test reporters): one testsuite per run, one testcase per check, with
// the check's id, level and clause as properties. A FAIL is a <failure>
// (the target broke a requirement), an ERROR an <error> (the harness
// could not judge), a SKIP <skipped>; a WARN passes but says so in
// system-out, and is a failure under --strict.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Failure    *junitProblem   `xml:"failure,omitempty"`
	Error      *junitProblem   `xml:"error,omitempty"`
	Skipped    *junitSkipped   `xml:"skipped,omitempty"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the report as JUnit XML.
func WriteJUnit(w io.Writer, r Report) error {
	suite := junitSuite{
		Name:      fmt.Sprintf("idemspec: %s", r.Target.Name),
		Time:      seconds(r.Run.DurationMS),
		Timestamp: r.Run.Started.Format("2006-01-02T15:04:05"),
		Properties: []junitProperty{
			{"target", r.Target.Source}, {"base_url", r.Target.BaseURL}, {"profile", r.Target.Profile},
			{"run_id", r.Run.ID}, {"seed", fmt.Sprint(r.Run.Seed)}, {"strict", fmt.Sprint(r.Run.Strict)},
		},
	}
	for _, c := range r.Checks {
		tc := junitCase{
			Name:      c.ID + " " + c.Title,
			Classname: "idemspec." + c.Group,
			Time:      seconds(c.DurationMS),
			Properties: []junitProperty{
				{"check", c.ID}, {"level", string(c.Level)}, {"clause", c.Clause}, {"verdict", string(c.Verdict)},
			},
		}
		detail := problemText(c)
		switch {
		case c.Verdict == check.FAIL || (c.Verdict == check.WARN && r.Run.Strict):
			tc.Failure = &junitProblem{Message: c.Reason, Type: string(c.Level) + " violated", Text: detail}
			suite.Failures++
		case c.Verdict == check.ERROR:
			tc.Error = &junitProblem{Message: c.Reason, Type: "harness error", Text: detail}
			suite.Errors++
		case c.Verdict == check.SKIP:
			tc.Skipped = &junitSkipped{Message: c.Reason}
			suite.Skipped++
		case c.Verdict == check.WARN:
			tc.SystemOut = "WARN (" + string(c.Level) + " not met): " + c.Reason
		}
		suite.Cases = append(suite.Cases, tc)
		suite.Tests++
	}
	doc := junitSuites{
		Name: "idemspec", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite},
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// problemText lists a check's violations, one per line.
func problemText(c CheckResult) string {
	var b strings.Builder
	for _, v := range c.Violations {
		fmt.Fprintf(&b, "- %s\n", v)
	}
	if b.Len() == 0 {
		return c.Reason
	}
	return b.String()
}

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
