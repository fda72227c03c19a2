package reports_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// The synthetic report's checks, in the catalogue as the binary's are
// (this test binary imports no scenarios).
var _ = func() int {
	for _, e := range []check.Entry{
		{ID: "S1", Title: "should create one", Level: check.MUST, Clause: "core", Group: "core"},
		{ID: "S2", Title: "should replay", Level: check.MUST, Clause: "core", Group: "core"},
		{ID: "S4", Title: "should execute once", Level: check.MUST, Clause: "core", Group: "core"},
		{ID: "S5a", Title: "should survive a restart", Level: check.MUST, Clause: "core", Group: "restart"},
		{ID: "K3", Title: "should answer 400", Level: check.SHOULD, Clause: "core", Group: "keys"},
	} {
		if _, ok := check.Get(e.ID); !ok {
			check.Register(e)
		}
	}
	return 0
}()

var day = time.Date(2026, 12, 8, 12, 0, 0, 0, time.UTC)

func acceptances(t *testing.T, yaml string, ops ...string) []reports.Acceptance {
	t.Helper()
	if ops == nil {
		ops = []string{""}
	}
	list, err := reports.ParseAcceptances("accepted.yaml", []byte(yaml), ops)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func verdictOf(r reports.Report, id string) reports.CheckResult {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return reports.CheckResult{}
}

// An accepted FAIL and WARN are ACCEPTED with their reason and date, and
// the run passes; the day after until the finding fails again and the
// run fails naming the entry; an entry whose check passes fails the run
// as stale.
func TestAcceptTurnsFindingsIntoAccepted(t *testing.T) {
	r := syntheticReport()  // S2 and S4 FAIL, K3 WARN, S1 PASS, T9 ERROR
	r.Checks = r.Checks[:5] // without the ERROR, so the exit code is the acceptance's
	r = reports.New(r.Run, reports.Meta{Target: r.Target}, r.Checks)
	list := acceptances(t, `
- check: S2
  reason: PAY-1 replay store in Q1
  until: 2026-12-08
- check: S4
  reason: PAY-2 unique constraint
  until: 2027-01-31
- check: K3
  reason: PAY-3
  until: 2027-01-31
`)
	got := reports.Accept(r, "accepted.yaml", list, day)
	for _, id := range []string{"S2", "S4", "K3"} {
		c := verdictOf(got, id)
		if c.Verdict != check.ACCEPTED || c.Accepted == nil || c.Accepted.Reason == "" {
			t.Errorf("%s: %s %+v, want ACCEPTED with its reason", id, c.Verdict, c.Accepted)
		}
	}
	if a := verdictOf(got, "K3").Accepted; a.Was != check.WARN || a.Until != "2027-01-31" || a.Line != 8 {
		t.Errorf("K3 accepted %+v, want was WARN until 2027-01-31, line 8", a)
	}
	if s := got.Summary; s.Fail != 0 || s.Warn != 0 || s.Accepted != 3 || got.ExitCode() != 0 {
		t.Errorf("summary %+v, exit %d: want 3 accepted and exit 0", s, got.ExitCode())
	}
	if h := got.Headline(); !strings.Contains(h, "passed, with 3 accepted findings") {
		t.Errorf("headline %q: a pass over accepted findings must say so", h)
	}

	// The day after S2's until.
	later := reports.Accept(r, "accepted.yaml", list, day.Add(24*time.Hour))
	if c := verdictOf(later, "S2"); c.Verdict != check.FAIL {
		t.Errorf("S2 past its date: %s, want FAIL", c.Verdict)
	}
	bad := later.AcceptanceFailures()
	if later.ExitCode() != 1 || len(bad) != 1 || !strings.HasPrefix(bad[0], "accepted.yaml:2: S2 was accepted until 2026-12-08") {
		t.Errorf("exit %d, failures %q: want 1 naming the expired entry", later.ExitCode(), bad)
	}

	// S1 passes: an entry for it is stale.
	stale := reports.Accept(r, "accepted.yaml", append(list, acceptances(t, "- check: S1\n  reason: x\n  until: 2027-01-31\n")...), day)
	bad = stale.AcceptanceFailures()
	if stale.ExitCode() != 1 || len(bad) != 1 || !strings.Contains(bad[0], "remove it: S1 passes now") {
		t.Errorf("exit %d, failures %q: want 1, remove it: S1 passes now", stale.ExitCode(), bad)
	}
	if h := stale.Headline(); !strings.Contains(h, "stale") || strings.Contains(h, "0 of") {
		t.Errorf("headline %q: want the stale entry, not 0 checks failed", h)
	}
	// S5a was skipped: an entry for it is unused, not stale.
	skipped := reports.Accept(r, "accepted.yaml", acceptances(t, "- check: S5a\n  reason: x\n  until: 2027-01-31\n"), day)
	if len(skipped.AcceptanceFailures()) > 0 || skipped.Acceptance.Entries[0].State != reports.AcceptUnused {
		t.Errorf("an entry for a skipped check: failures %q, %+v", skipped.AcceptanceFailures(), skipped.Acceptance.Entries)
	}
}

// An entry naming an operation accepts the check there only.
func TestAcceptNarrowsToTheOperation(t *testing.T) {
	r := reports.New(reports.Run{Complete: true}, reports.Meta{}, []reports.CheckResult{
		{Entry: check.Entry{ID: "S4", Level: check.MUST}, Operation: "create-order", Verdict: check.FAIL},
		{Entry: check.Entry{ID: "S4", Level: check.MUST}, Operation: "refund", Verdict: check.FAIL},
	})
	list := acceptances(t, "- check: S4\n  operation: refund\n  reason: x\n  until: 2027-01-31\n", "create-order", "refund")
	got := reports.Accept(r, "a.yaml", list, day)
	if got.Checks[0].Verdict != check.FAIL || got.Checks[1].Verdict != check.ACCEPTED || got.ExitCode() != 1 {
		t.Errorf("verdicts %s, %s, exit %d: want FAIL, ACCEPTED, 1", got.Checks[0].Verdict, got.Checks[1].Verdict, got.ExitCode())
	}
}

// A bad entry is a load error with the file, the line and the field.
func TestAcceptancesRefuseBadEntries(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown check", "- check: S99\n  reason: x\n  until: 2027-01-01\n", `accepted.yaml:1: [0].check: no check "S99"`},
		{"unknown operation", "- check: S4\n  operation: nope\n  reason: x\n  until: 2027-01-01\n", `accepted.yaml:2: [0].operation: no operation "nope": the target's operations are create-order`},
		{"unknown field", "- check: S4\n  reason: x\n  untill: 2027-01-01\n", `accepted.yaml:3: [0].untill: unknown field`},
		{"bad date", "- check: S4\n  reason: x\n  until: 31/01/2027\n", `accepted.yaml:3: [0].until: "31/01/2027" is not a date YYYY-MM-DD`},
		{"no reason", "- check: S4\n  until: 2027-01-01\n", `accepted.yaml:1: [0].reason: missing`},
		{"second entry", "- check: S4\n  reason: x\n  until: 2027-01-01\n- check: S4\n  reason: y\n", `accepted.yaml:4: [1].until: missing`},
		{"not a list", "check: S4\n", `accepted.yaml:1: a list of entries`},
	} {
		_, err := reports.ParseAcceptances("accepted.yaml", []byte(c.yaml), []string{"create-order"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// accept --from writes an entry for every FAIL and WARN, which loads
// back and accepts them all.
func TestWriteAcceptancesCoversEveryFinding(t *testing.T) {
	r := syntheticReport()
	b, err := reports.WriteAcceptances(r, "PAY-9: 'quoted': yes", "2027-01-31")
	if err != nil {
		t.Fatal(err)
	}
	list, err := reports.ParseAcceptances("w.yaml", b, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var ids []string
	for _, a := range list {
		ids = append(ids, a.Check)
		if a.Reason != "PAY-9: 'quoted': yes" || a.Until != "2027-01-31" {
			t.Errorf("entry %+v: reason or date not kept", a)
		}
	}
	if strings.Join(ids, ",") != "S2,S4,K3" {
		t.Errorf("entries for %v, want the FAILs and the WARN: S2, S4, K3\n%s", ids, b)
	}
	// A finding already ACCEPTED keeps its own reason and date.
	accepted := reports.Accept(r, "a.yaml", acceptances(t, "- check: S4\n  reason: PAY-2 own reason\n  until: 2027-03-01\n"), day)
	b, err = reports.WriteAcceptances(accepted, "new reason", "2027-01-31")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := reports.ParseAcceptances("w.yaml", b, nil); err != nil || len(again) != 3 || again[1].Check != "S4" || again[1].Reason != "PAY-2 own reason" || again[1].Until != "2027-03-01" {
		t.Errorf("an accepted finding's entry: %+v, %v\n%s", again, err, b)
	}
	if _, err := reports.WriteAcceptances(r, "", "2027-01-31"); err == nil {
		t.Error("no reason: want an error")
	}
	if _, err := reports.WriteAcceptances(r, "x", "tomorrow"); err == nil {
		t.Error("a date that is not YYYY-MM-DD: want an error")
	}
}

// ACCEPTED is a verdict in every format: JSON (read back), JUnit (a
// skipped case with the reason), Markdown and HTML; an expired or stale
// entry is a failed JUnit case.
func TestAcceptedInEveryFormat(t *testing.T) {
	r := syntheticReport()
	list := acceptances(t, "- check: S4\n  reason: PAY-2 unique constraint\n  until: 2027-01-31\n- check: S1\n  reason: old\n  until: 2027-01-31\n")
	got := reports.Accept(r, "accepted.yaml", list, day)

	dir := t.TempDir()
	if _, err := reports.WriteAll(dir, got); err != nil {
		t.Fatal(err)
	}
	back, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := verdictOf(back, "S4"); c.Verdict != check.ACCEPTED || c.Accepted.Reason != "PAY-2 unique constraint" || back.Schema != reports.Schema {
		t.Errorf("read back: %s %+v, schema %s", c.Verdict, c.Accepted, back.Schema)
	}
	if back.Summary.Accepted != 1 || len(back.AcceptanceFailures()) != 1 {
		t.Errorf("read back: summary %+v, failures %q", back.Summary, back.AcceptanceFailures())
	}

	junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	for _, want := range []string{
		`<skipped message="ACCEPTED until 2027-01-31: PAY-2 unique constraint (was FAIL: burst of 24`,
		`type="accepted finding stale"`, `remove it: S1 passes now`,
	} {
		if !bytes.Contains(junit, []byte(want)) {
			t.Errorf("junit.xml lacks %q", want)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"🔕 ACCEPTED", "**Accepted until 2027-01-31:** PAY-2 unique constraint (a FAIL", "remove it: S1 passes now", "## Accepted findings (`accepted.yaml`)"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, want := range []string{`data-verdict="ACCEPTED"`, "Accepted until 2027-01-31:", "remove it: S1 passes now"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A v1 report (before ACCEPTED) still reads: v2 only adds.
func TestReadsAVersion1Report(t *testing.T) {
	r := syntheticReport()
	r.Schema = reports.SchemaV1
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := reports.ReadJSON(p); err != nil {
		t.Errorf("a v1 report: %v", err)
	}
}

// A merged run holds one acceptance: an entry applied in one shard is
// applied, one whose check passed wherever it ran is stale, and shards
// with different files do not merge.
func TestMergeJoinsTheShardsAcceptance(t *testing.T) {
	failS2 := func(op, id string) check.Status {
		if op == "capture" && id == "S2" {
			return check.FAIL
		}
		return check.PASS
	}
	for _, id := range []string{"K1", "S10"} {
		if _, ok := check.Get(id); !ok {
			check.Register(check.Entry{ID: id, Title: "should " + id, Level: check.MUST, Clause: "core", Group: "g"})
		}
	}
	list := acceptances(t, "- check: S2\n  reason: x\n  until: 2027-01-31\n- check: K1\n  reason: y\n  until: 2027-01-31\n", "create", "capture")
	shards := shardReports(2, failS2)
	for i := range shards {
		shards[i] = reports.Accept(shards[i], "a.yaml", list, day)
	}
	m, err := reports.Merge(shards, []string{"one.json", "two.json"})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, e := range m.Acceptance.Entries {
		states[e.Check] = e.State
	}
	if states["S2"] != reports.AcceptApplied || states["K1"] != reports.AcceptStale || m.Summary.Accepted != 1 || m.ExitCode() != 1 {
		t.Errorf("merged: states %v, summary %+v, exit %d: want S2 applied, K1 stale, exit 1", states, m.Summary, m.ExitCode())
	}
	shards[1] = reports.Accept(shardReports(2, failS2)[1], "a.yaml", list[:1], day)
	if _, err := reports.Merge(shards, []string{"one.json", "two.json"}); err == nil || !strings.Contains(err.Error(), "different accepted-findings files") {
		t.Errorf("shards with different files: %v", err)
	}
}
