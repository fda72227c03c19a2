package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
)

// JUnit XML, in the shape CI systems read (Jenkins, GitLab, GitHub
// test reporters): one testsuite per run (per operation of a target file
// with operations:), one testcase per check, with
// the check's id, level and clause as properties. A FAIL is a <failure>
// (the target broke a requirement), an ERROR an <error> (the harness
// could not judge), a SKIP <skipped>; a WARN passes but says so in
// system-out, and is a failure under --strict. docs/junit.xsd is the
// schema this writer keeps to; a test validates its output against it.

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

// WriteJUnit writes the report as JUnit XML: one testsuite per
// operation of the target file (one for a file with a single create).
func WriteJUnit(w io.Writer, r Report) error {
	r = showControls(r) // XML cannot hold C0 controls, and C1 ones reach a CI log raw
	doc := junitSuites{Name: "idemspec", Time: seconds(r.Run.DurationMS)}
	for _, op := range r.Operations() {
		suite := junitSuiteOf(r, op)
		doc.Tests, doc.Failures, doc.Errors, doc.Skipped = doc.Tests+suite.Tests, doc.Failures+suite.Failures, doc.Errors+suite.Errors, doc.Skipped+suite.Skipped
		doc.Suites = append(doc.Suites, suite)
	}
	// An expired or stale accepted-findings entry fails the run with no
	// check failing: each is a failed case of its own, so CI shows why.
	if bad := r.AcceptanceFailures(); len(bad) > 0 {
		suite := junitSuite{Name: "idemspec: accepted findings", Time: "0.000", Timestamp: r.Run.Started.Format("2006-01-02T15:04:05")}
		for i, e := range r.Acceptance.Entries {
			if e.State != AcceptExpired && e.State != AcceptStale {
				continue
			}
			suite.Cases = append(suite.Cases, junitCase{
				Name: fmt.Sprintf("entry %d: %s %s", i+1, e.label(), e.State), Classname: "idemspec.accepted", Time: "0.000",
				Failure: &junitProblem{Message: e.Message, Type: "accepted finding " + e.State, Text: e.Message},
			})
			suite.Tests++
			suite.Failures++
		}
		doc.Tests, doc.Failures = doc.Tests+suite.Tests, doc.Failures+suite.Failures
		doc.Suites = append(doc.Suites, suite)
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

// junitSuiteOf is the testsuite of one operation's checks ("": the
// file's only one, and the whole run's time).
func junitSuiteOf(r Report, op string) junitSuite {
	suite := junitSuite{
		Name:      fmt.Sprintf("idemspec: %s", r.Target.Name),
		Time:      seconds(r.Run.DurationMS),
		Timestamp: r.Run.Started.Format("2006-01-02T15:04:05"),
		Properties: []junitProperty{
			{"target", r.Target.Source}, {"base_url", r.Target.BaseURL}, {"profile", r.Target.Profile},
			{"oracle", r.Target.Oracle}, {"tool_version", r.Tool.Version}, {"schema", r.Schema},
			{"run_id", r.Run.ID}, {"seed", fmt.Sprint(r.Run.Seed)}, {"strict", fmt.Sprint(r.Run.Strict)},
			{"complete", fmt.Sprint(r.Run.Complete)}, {"summary", r.Headline()},
		},
	}
	classPrefix := "idemspec."
	if op != "" {
		suite.Name += " " + op
		suite.Properties = append(suite.Properties, junitProperty{"operation", op})
		classPrefix += op + "."
	}
	if r.Run.LabelFilter != "" {
		suite.Properties = append(suite.Properties, junitProperty{"label_filter", r.Run.LabelFilter})
	}
	if !r.Run.Complete {
		suite.Properties = append(suite.Properties, junitProperty{"incomplete", r.Run.Incomplete})
	}
	if s := r.Run.Shard; s != nil {
		suite.Properties = append(suite.Properties, junitProperty{"shard", s.String()})
	}
	if n := len(r.Run.Shards); n > 0 {
		suite.Properties = append(suite.Properties, junitProperty{"shards", fmt.Sprint(n)})
	}
	var took float64
	searched := false
	for _, c := range r.ChecksOf(op) {
		// The property checks share one search: its time counts once.
		if c.Evidence.Search == 0 || !searched {
			took += c.DurationMS
		}
		searched = searched || c.Evidence.Search > 0
		tc := junitCase{
			Name:      c.Label() + " " + c.Title,
			Classname: classPrefix + c.Group,
			Time:      seconds(c.DurationMS),
			Properties: []junitProperty{
				{"check", c.ID}, {"level", string(c.Level)}, {"clause", c.Clause},
				{"group", c.Group}, {"verdict", string(c.Verdict)},
			},
		}
		if c.Shard != 0 {
			tc.Properties = append(tc.Properties, junitProperty{"shard", fmt.Sprint(c.Shard)})
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
		case c.Verdict == check.ACCEPTED && c.Accepted != nil:
			// Skipped with the message: CI shows it, and nothing fails.
			tc.Skipped = &junitSkipped{Message: acceptedText(c)}
			suite.Skipped++
		case c.Verdict == check.WARN:
			tc.SystemOut = "WARN (" + string(c.Level) + " not met): " + c.Reason
		}
		suite.Cases = append(suite.Cases, tc)
		suite.Tests++
	}
	if op != "" {
		suite.Time = seconds(took)
	}
	return suite
}

// acceptedText says what an ACCEPTED verdict stands for: "ACCEPTED until
// 2027-01-31: fingerprint lands in Q1 (was FAIL: ...)".
func acceptedText(c CheckResult) string {
	a := c.Accepted
	return fmt.Sprintf("ACCEPTED until %s: %s (was %s: %s)", a.Until, a.Reason, a.Was, c.Reason)
}

// problemText is what a CI page shows under a failed check: each
// violation with the exchanges that show it, the faults and what the
// oracle counted. The full history is in report.json and report.html.
func problemText(c CheckResult) string {
	var b strings.Builder
	for _, v := range c.Violations {
		fmt.Fprintf(&b, "- %s\n", v)
		seqs, more := capSeqs(v.Seqs, maxCitedExchanges)
		for _, x := range exchangesBySeq(c.Evidence.History, seqs) {
			fmt.Fprintf(&b, "    %s\n", exchangeLine(x))
		}
		if more > 0 {
			fmt.Fprintf(&b, "    ... and %d more exchanges\n", more)
		}
	}
	if b.Len() == 0 {
		b.WriteString(c.Reason + "\n")
	}
	for _, f := range c.Evidence.Faults {
		fmt.Fprintf(&b, "fault: %s\n", f)
	}
	for _, r := range c.Evidence.Readings {
		fmt.Fprintf(&b, "oracle: %s\n", readingLine(r))
	}
	return b.String()
}

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
