package reports_test

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/idemspec/idemspec/reports"
)

// page renders r and parses it as a browser would.
func page(t *testing.T, r reports.Report) (*html.Node, string) {
	t.Helper()
	var b bytes.Buffer
	if err := reports.WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return doc, b.String()
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

// find returns every element for which match is true.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && match(c) {
			out = append(out, c)
		}
	}
	return out
}

func text(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	for _, c := range strings.Fields(v) {
		if c == class {
			return true
		}
	}
	return false
}

func TestHTMLIsSelfContained(t *testing.T) {
	doc, raw := page(t, syntheticReport())
	for _, n := range find(doc, func(*html.Node) bool { return true }) {
		switch n.Data {
		case "script", "link", "img", "iframe", "object", "embed", "source", "video", "audio":
			t.Errorf("<%s> element: the page must load nothing", n.Data)
		}
		for _, a := range n.Attr {
			if a.Key == "src" || a.Key == "srcset" || (a.Key == "href" && !strings.HasPrefix(a.Val, "#")) {
				t.Errorf("<%s %s=%q> points outside the page", n.Data, a.Key, a.Val)
			}
		}
	}
	for _, s := range find(doc, func(n *html.Node) bool { return n.Data == "style" }) {
		css := text(s)
		if strings.Contains(css, "url(") || strings.Contains(css, "@import") {
			t.Error("the style sheet fetches something")
		}
		if len(css) < 1000 {
			t.Errorf("the style sheet is %d bytes: not embedded?", len(css))
		}
	}
	if strings.Contains(raw, "<script>alert") {
		t.Error("a target's text became markup")
	}
}

func TestHTMLShowsRunAndEveryCheck(t *testing.T) {
	r := syntheticReport()
	doc, _ := page(t, r)
	all := text(doc)
	for _, want := range []string{"orders-api", "orders.yaml", "r1a2b3c4", "4242", "2026-05-04 10:30:00 UTC", "idemspec 1.2.3-test", "2 of 6 checks failed"} {
		if !strings.Contains(all, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	banner := find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "verdict" })
	if len(banner) != 1 || !strings.Contains(text(banner[0]), "FAIL") {
		t.Errorf("no FAIL banner")
	}
	for _, c := range r.Checks {
		tiles := find(doc, func(n *html.Node) bool {
			id, _ := attr(n, "data-check")
			return n.Data == "a" && hasClass(n, "tile") && id == c.ID
		})
		if len(tiles) != 1 {
			t.Errorf("%s: %d summary tiles, want 1", c.ID, len(tiles))
			continue
		}
		if v, _ := attr(tiles[0], "data-verdict"); v != string(c.Verdict) || !hasClass(tiles[0], "v-"+strings.ToLower(v)) {
			t.Errorf("%s tile: verdict %q, classes %v", c.ID, v, tiles[0].Attr)
		}
		details := find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "check-"+c.ID })
		if len(details) != 1 || details[0].Data != "details" {
			t.Errorf("%s: no <details id=check-%s>", c.ID, c.ID)
			continue
		}
		_, open := attr(details[0], "open")
		if want := c.Verdict == "FAIL" || c.Verdict == "WARN" || c.Verdict == "ERROR"; open != want {
			t.Errorf("%s (%s): open=%v, want %v", c.ID, c.Verdict, open, want)
		}
	}
}

func TestHTMLFindingShowsEvidence(t *testing.T) {
	doc, _ := page(t, syntheticReport())
	s2 := find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "check-S2" })[0]
	body := text(s2)
	for _, want := range []string{
		"the retry created a second resource", "res_a", "res_b", "#1, #2",
		"response-loss on the faulty lane for the first attempt",
		"2 resources carry marker idemspec-r1-S2-2 (after the retries, list oracle)",
		"first (answer lost)", "no answer, maybe applied: timeout awaiting answer", "History: 3 exchanges",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("S2 evidence lacks %q", want)
		}
	}
	cited := find(s2, func(n *html.Node) bool { return n.Data == "tr" && hasClass(n, "cited") })
	if len(cited) != 2 {
		t.Errorf("%d history rows marked cited, want 2 (seqs 1 and 2)", len(cited))
	}
}

func TestHTMLBurstTimeline(t *testing.T) {
	doc, _ := page(t, syntheticReport())
	s4 := find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "check-S4" })[0]
	if !strings.Contains(text(s4), "24 requests on the clean lane, 24 of 24 ready before the release, released within 460 µs, arrived within 460 µs") {
		t.Errorf("no burst summary in:\n%s", text(s4))
	}
	bars := find(s4, func(n *html.Node) bool { return n.Data == "span" && hasClass(n, "bar") && hasClass(n, "ok") })
	ticks := find(s4, func(n *html.Node) bool { return n.Data == "span" && hasClass(n, "tick") })
	// 24 bars plus the legend's sample bar; 24 arrival ticks plus the legend's.
	if len(bars) != 25 || len(ticks) != 25 {
		t.Errorf("%d bars and %d ticks, want 25 each", len(bars), len(ticks))
	}
	first, _ := attr(bars[0], "style")
	if !strings.HasPrefix(first, "left:0.00%;width:") {
		t.Errorf("first bar style %q: the timeline should start at the first request", first)
	}
	violations := find(s4, func(n *html.Node) bool { return n.Data == "td" && hasClass(n, "seqs") })
	if len(violations) == 0 || !strings.HasSuffix(text(violations[0]), "#12 and 12 more") {
		t.Errorf("a violation citing 24 exchanges should list 12 and count the rest")
	}
}

func TestHTMLIncompleteRun(t *testing.T) {
	r := syntheticReport()
	r.Run.Complete, r.Run.Incomplete = false, "Interrupted by User"
	r.Checks, r.Summary = r.Checks[:1], reports.Summary{Total: 1, Pass: 1}
	doc, _ := page(t, r)
	alerts := find(doc, func(n *html.Node) bool { v, _ := attr(n, "role"); return v == "alert" })
	if len(alerts) != 1 || !strings.Contains(text(alerts[0]), "Interrupted by User") {
		t.Error("an interrupted run is not flagged")
	}
	if v, _ := attr(find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "verdict" })[0], "data-verdict"); v != "INCOMPLETE" {
		t.Errorf("verdict %q, want INCOMPLETE", v)
	}
}
