package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// The HTML report is looked at in a real browser: headless Chromium
// loads the file of a real mutant run, offline, and the DOM it built must
// show the summary and the failing check's evidence.

// chromiumFlags keep a headless Chromium off the network and out of the
// user's profile.
func chromiumFlags(profile string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + profile,
	}
}

func TestHTMLReportInChromium(t *testing.T) {
	long(t)
	t.Parallel()
	chromium := requireTool(t, "chromium", "chromium")
	dir := runInto(t, "fake:ignore-payload", 1)
	rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(chromiumFlags(t.TempDir()), "--dump-dom", "file://"+filepath.Join(dir, "report.html"))
	var dom, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, chromium, args...)
	cmd.Stdout, cmd.Stderr = &dom, &stderr
	if err := cmd.Run(); err != nil || dom.Len() == 0 {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, stderr.String())
	}
	doc, err := html.Parse(&dom)
	if err != nil {
		t.Fatal(err)
	}
	byID := func(id string) *html.Node {
		for n := range doc.Descendants() {
			for _, a := range n.Attr {
				if a.Key == "id" && a.Val == id {
					return n
				}
			}
		}
		t.Fatalf("the rendered page has no element #%s", id)
		return nil
	}

	// The summary: the run's verdict and one tile per check of the catalogue.
	banner := fmt.Sprintf("%d of %d checks failed", rep.Summary.Fail, len(serverChecks()))
	if got := textOf(byID("verdict")); !strings.Contains(got, "FAIL") || rep.Summary.Fail == 0 || !strings.Contains(got, banner) {
		t.Errorf("verdict banner reads %q", got)
	}
	summary := textOf(byID("summary"))
	for _, c := range serverChecks() {
		var want check.Status
		for _, rc := range rep.Checks {
			if rc.ID == c.ID {
				want = rc.Verdict
			}
		}
		if want == "" {
			t.Errorf("%s is not in report.json", c.ID)
			continue
		}
		if !strings.Contains(summary, c.ID+string(want)) {
			t.Errorf("summary does not show %s %s:\n%s", c.ID, want, summary)
		}
	}

	// The failing check's evidence, as the browser built it.
	s3 := byID("check-S3")
	if !hasAttr(s3, "open") {
		t.Error("the failing check is folded")
	}
	body := textOf(s3)
	// The violation the browser must show is the one report.json holds, so
	// rewording a judge does not break this test, but losing it in the HTML does.
	var s3Violations []check.Violation
	for _, rc := range rep.Checks {
		if rc.ID == "S3" {
			s3Violations = rc.Violations
		}
	}
	if len(s3Violations) == 0 {
		t.Fatal("report.json holds no violation for S3")
	}
	v := s3Violations[0]
	for _, want := range []string{
		v.What, v.Expected, v.Observed, "201",
		"same key, other payload", "original again", "carry marker idemspec-" + rep.Run.ID + "-S3-",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("S3's evidence in the browser lacks %q:\n%s", want, body)
		}
	}
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(strings.TrimSpace(c.Data))
		}
	}
	return b.String()
}

func hasAttr(n *html.Node, name string) bool {
	for _, a := range n.Attr {
		if a.Key == name {
			return true
		}
	}
	return false
}
