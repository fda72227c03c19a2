package reports

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/idemspec/idemspec/harness/check"
)

// WriteSARIF writes the report as SARIF 2.1.0, for code scanning
// (GitHub's upload-sarif action and the tools that read SARIF): one
// rule per check of the run (its ID, level, clause, title, and as help
// why it matters and how to pass it), one result per FAIL, WARN and
// ACCEPTED (suppressed, with the accepted-findings entry's reason), each
// at the line of the target file its check is about when the run had a
// file. A PASS, SKIP or ERROR is no finding about the target.
func WriteSARIF(w io.Writer, r Report) error {
	r = showControls(r)
	run := sarif.NewRunWithInformationURI("idemspec", "https://github.com/idemspec/idemspec")
	run.Tool.Driver.WithVersion(r.Tool.Version).WithSemanticVersion(strings.TrimPrefix(r.Tool.Version, "v"))
	// A run's category: one target's results replace only that target's
	// on the next upload.
	run.WithAutomationDetails(sarif.NewRunAutomationDetails().WithID("idemspec/" + r.Target.Name + "/"))
	var rules []string
	for _, c := range r.Checks {
		if slices.Contains(rules, c.ID) {
			continue
		}
		rules = append(rules, c.ID)
		run.AddRule(c.ID).
			WithName(ruleName(c.Entry)).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(c.Title)).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(fullDescription(c.Entry))).
			WithHelp(sarif.NewMultiformatMessageString().WithText(helpText(c.Entry)).WithMarkdown(helpMarkdown(c.Entry))).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(c.Level))).
			WithProperties(sarif.NewPropertyBag().
				Add("level", string(c.Level)).Add("clause", c.Clause).Add("group", c.Group).
				WithTags([]string{"idempotency", c.Group, string(c.Level)}))
	}
	results := []*sarif.Result{} // GitHub wants the array even when empty
	for _, c := range r.Checks {
		was := c.Verdict
		if c.Accepted != nil {
			was = c.Accepted.Was
		}
		if was != check.FAIL && was != check.WARN {
			continue
		}
		level := "error"
		if was == check.WARN {
			level = "warning"
		}
		res := sarif.NewRuleResult(c.ID).
			WithRuleIndex(slices.Index(rules, c.ID)).
			WithLevel(level).
			WithMessage(sarif.NewTextMessage(resultMessage(c, was)))
		if l := c.Location; l != nil && l.File != "" && l.Line > 0 {
			res.AddLocation(sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
				WithArtifactLocation(sarif.NewSimpleArtifactLocation(artifactURI(l.File))).
				WithRegion(sarif.NewRegion().WithStartLine(l.Line))))
		}
		if a := c.Accepted; a != nil {
			res.AddSuppression(sarif.NewSuppression().WithKind("external").WithStatus("accepted").
				WithJustification(fmt.Sprintf("%s (accepted until %s)", a.Reason, a.Until)))
		}
		props := sarif.NewPropertyBag().Add("verdict", string(c.Verdict))
		if c.Operation != "" {
			props.Add("operation", c.Operation)
		}
		res.WithProperties(props)
		results = append(results, res)
	}
	run.WithResults(results)
	doc := sarif.NewReport()
	doc.Schema = "https://json.schemastore.org/sarif-2.1.0.json"
	doc.AddRun(run)
	var b bytes.Buffer
	if err := doc.PrettyWrite(&b); err != nil {
		return err
	}
	_, err := w.Write(escapeC1(b.Bytes()))
	return err
}

// sarifLevel is a rule's default level: a broken MUST is an error, a
// broken SHOULD or MAY a warning.
func sarifLevel(l check.Level) string {
	if l == check.MUST {
		return "error"
	}
	return "warning"
}

// ruleName is the rule's name in the form code scanning shows: the
// title in one camel-cased word would lose it, so the ID and the title.
func ruleName(e check.Entry) string {
	return e.ID + " " + strings.TrimPrefix(e.Title, "should ")
}

func fullDescription(e check.Entry) string {
	text := fmt.Sprintf("%s (%s, %s): %s.", e.ID, e.Level, e.Clause, e.Title)
	if e.Why != "" {
		text += " " + e.Why
	}
	return text
}

func helpText(e check.Entry) string {
	parts := []string{fmt.Sprintf("%s %s: %s. Clause: %s.", e.ID, e.Level, e.Title, e.Clause)}
	if e.Why != "" {
		parts = append(parts, "Why it matters: "+e.Why)
	}
	if e.Fix != "" {
		parts = append(parts, "How to fix: "+e.Fix)
	}
	parts = append(parts, "More: idemspec explain "+e.ID)
	return strings.Join(parts, "\n\n")
}

func helpMarkdown(e check.Entry) string {
	parts := []string{fmt.Sprintf("**%s** (%s, clause %s): %s.", inline(e.ID), inline(string(e.Level)), inline(e.Clause), inline(e.Title))}
	if e.Why != "" {
		parts = append(parts, "**Why it matters:** "+inline(e.Why))
	}
	if e.Fix != "" {
		parts = append(parts, "**How to fix:** "+inline(e.Fix))
	}
	parts = append(parts, "More: `idemspec explain "+code(e.ID)+"`")
	return strings.Join(parts, "\n\n")
}

// resultMessage is what code scanning shows on the line: the verdict,
// the check, and why it broke.
func resultMessage(c CheckResult, was check.Status) string {
	head := fmt.Sprintf("%s %s: %s", was, c.Label(), c.Title)
	if c.Accepted != nil {
		head = fmt.Sprintf("ACCEPTED %s %s until %s (%s): %s", was, c.Label(), c.Accepted.Until, c.Accepted.Reason, c.Title)
	}
	if c.Reason != "" {
		head += ": " + c.Reason
	}
	if c.Fix != "" {
		head = strings.TrimSuffix(head, ".") + ". How to fix: " + c.Fix
	}
	return head
}

// artifactURI is the target file as a relative URI (code scanning
// resolves it against the repository's root): forward slashes, no
// leading ./; an absolute path is a file: URI.
func artifactURI(file string) string {
	p := filepath.ToSlash(filepath.Clean(file))
	if filepath.IsAbs(file) {
		return "file://" + p
	}
	return p
}
