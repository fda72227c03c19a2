package mcptools_test

import (
	"context"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/testenv"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios/mcptools"
	"github.com/idemspec/idemspec/targets/mcp"
)

func TestMain(m *testing.M) {
	mcpserver.ServeIfAsked()
	flag.Parse()
	// The audits wait on their servers far more than they use CPU (the
	// package: 18 CPU-seconds in 78 s of wall time at two at once,
	// GOMAXPROCS on CI): four at once still leave a core idle, and keep
	// M9's searches far inside their time bound. The short tier's sample
	// (5 CPU-seconds in all) runs eight at once: most of its wall time is
	// two audits waiting out a silent server's 10 s start bound.
	n := 4
	if testing.Short() {
		n = 8
	}
	testenv.Parallel(n)
	os.Exit(m.Run())
}

// audit runs the whole audit against srv and returns its verdicts.
func audit(t *testing.T, srv mcptools.Server, tools []mcp.Tool, s mcptools.Settings) map[mutant.Catch]mcptools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	audited, _, err := mcptools.Prepare(tools, s)
	if err != nil {
		t.Fatal(err)
	}
	results := mcptools.Run(ctx, srv, audited, s)
	passedOnEvidence(t, mcptools.Report(results, audited, reports.Run{Complete: true}, reports.Meta{}))
	got := map[mutant.Catch]mcptools.Result{}
	for _, r := range results {
		got[mutant.Catch{Check: r.Check.ID, On: r.Tool.Name}] = r
	}
	return got
}

// passedOnEvidence holds a report to the audit's rule of evidence: every
// PASS of a check that calls the tool shows, in its evidence, an
// answered call of the tool and the oracle's readings after it; a check
// judged from the declaration alone says so in its notes.
func passedOnEvidence(t *testing.T, r reports.Report) {
	t.Helper()
	fromDeclaration := map[string]bool{}
	for _, c := range mcptools.Checks() {
		fromDeclaration[c.ID] = c.Run == nil
	}
	for _, c := range r.Checks {
		if c.Verdict != check.PASS {
			continue
		}
		if fromDeclaration[c.ID] {
			if len(c.Evidence.Notes) == 0 || !strings.Contains(c.Evidence.Notes[0], "judged from tools/list") {
				t.Errorf("%s PASS without saying it was judged from the declaration: %+v", c.Label(), c.Evidence)
			}
			continue
		}
		answered, readings := false, 0
		for _, tb := range c.Evidence.Tables {
			for _, row := range tb.Rows {
				switch {
				case strings.HasPrefix(tb.Title, "calls to "):
					answered = answered || (row[2] == c.Subject && row[4] == string(mcptools.Answered))
				case strings.HasPrefix(tb.Title, "oracle readings"):
					readings++
				}
			}
		}
		if !answered || readings == 0 {
			t.Errorf("%s PASS with no answered call of %s (%t) or no oracle reading (%d) in its evidence", c.Label(), c.Subject, answered, readings)
		}
	}
}

// TestStdioMatrix is the detection matrix over stdio: the reference is
// found wanting exactly where its entry says, and every mutant, on top
// of that, on the checks it names, on the tool it names, and nothing
// else.
func TestStdioMatrix(t *testing.T) {
	t.Parallel()
	d := design(t)
	for _, m := range mcpserver.Mutants() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			srv, tools := mcptools.StartStdio(t, m.Name)
			checkVerdicts(t, d, m, audit(t, srv, tools, settingsFor(m)))
		})
	}
}

// settingsFor is the audit's default settings for the reference and the
// mutants M9 must catch; for the others, whose lie M9 is not meant for
// (or lies in a tool it does not call), M9 searches one sequence only:
// its PASS is still judged, and the matrix stays quick.
func settingsFor(m mutant.Mutant) mcptools.Settings {
	if m.Name == mcpserver.Reference || slices.Contains(m.CaughtBy(), "M9") {
		return mcptools.Settings{}
	}
	return mcptools.Settings{Sequences: 1}
}

// design is what the audit must find, from the registries alone: the
// reference's entry, the checks the audit's registry says concern each
// of its tools (what it must pass, but for its findings), and each
// check's level.
func design(t *testing.T) mutant.Design {
	t.Helper()
	_, tools := mcptools.StartStdio(t, mcpserver.Reference)
	audited, _, err := mcptools.Prepare(tools, mcptools.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return mcpserver.Design(mcptools.Concerning(audited), mcptools.Levels())
}

func checkVerdicts(t *testing.T, d mutant.Design, m mutant.Mutant, results map[mutant.Catch]mcptools.Result) {
	t.Helper()
	got := map[mutant.Catch]check.Status{}
	for c, r := range results {
		got[c] = r.Verdict.Status
	}
	for _, problem := range d.Mismatches(m, got) {
		t.Error(problem)
	}
	if t.Failed() {
		for c, r := range results {
			t.Logf("%s %s: %s %s", c.Check, c.On, r.Verdict.Status, r.Verdict.Reason)
		}
	}
}
