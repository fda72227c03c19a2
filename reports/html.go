package reports

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// The HTML report is one file with its style inside: it opens from a
// mail attachment, a CI artifact or a laptop without a network, and it
// loads nothing (no script, no font, no image).

//go:embed html
var htmlFiles embed.FS

var htmlTemplates = template.Must(template.New("").Funcs(template.FuncMap{
	"vclass":   func(s string) string { return verdictClass(check.Status(s)) },
	"ms":       msText,
	"duration": durationText,
	"date":     dateText,
	"reading":  readingLine,
	"title":    func(s string) string { return strings.TrimPrefix(s, "should ") },
}).ParseFS(htmlFiles, "html/*.html"))

// style is the page's CSS, inlined into every page.
func style() template.CSS {
	b, err := htmlFiles.ReadFile("html/style.css")
	if err != nil {
		panic(err) // embedded at build time
	}
	return template.CSS(b)
}

// maxHTMLHistory bounds the rows of one check's history table, and
// maxBurstBars the bars of one burst's timeline; report.json has all.
const (
	maxHTMLHistory = 400
	maxBurstBars   = 60
)

// WriteHTML writes the report as a self-contained HTML page.
func WriteHTML(w io.Writer, r Report) error {
	r = showControls(r)
	page := htmlPage{Report: r, CSS: style(), Overall: r.Verdict(), Tone: r.Verdict(), Headline: r.Headline(), Matrix: r.Matrix(), Operations: r.Operations()}
	if page.Tone == "PASS" && r.Summary.Warn > 0 {
		page.Tone = "WARN" // a pass over warnings is not coloured as a clean one
	}
	// Each operation's checks are a section of their own, FAIL first.
	for _, op := range r.Operations() {
		for i, c := range byFinding(r.ChecksOf(op)) {
			v := checkView(c, r.Run.ID)
			v.Section = c.Operation != "" && i == 0
			page.Views = append(page.Views, v)
		}
	}
	return htmlTemplates.ExecuteTemplate(w, "report.html", page)
}

type htmlPage struct {
	Report
	CSS      template.CSS
	Overall  string
	Tone     string // the banner's colour: Overall, but WARN for a pass over warnings
	Headline string
	Views    []htmlCheck
	// Matrix is the operations × checks table (nil: one operation).
	Matrix     []MatrixRow
	Operations []string
}

// htmlCheck is a check as the page shows it.
type htmlCheck struct {
	CheckResult
	Section     bool   // the first check of its operation: a heading goes before it
	Class       string // the verdict's CSS class
	Open        bool   // findings start unfolded
	Guided      bool   // a FAIL or WARN: why it matters and how to fix it are shown
	History     []htmlExchange
	HistoryMore int
	Bursts      []htmlBurst
	// ViolationViews cite at most maxHTMLCited exchanges each.
	ViolationViews []htmlViolation
}

type htmlViolation struct {
	check.Violation
	Cited []int
	More  int
}

const maxHTMLCited = 12

type htmlExchange struct {
	history.Exchange
	Cited  bool // a violation points at it
	Answer string
	// KeyLabel is the part of the key that tells it from the table's
	// others (the whole key is the cell's title).
	KeyLabel string
}

// htmlBurst is a burst with a timeline: one bar per request from its
// start to its answer, and a tick where the server said it arrived.
type htmlBurst struct {
	history.Burst
	Summary string
	Window  string
	Bars    []burstBar
	More    int
}

type burstBar struct {
	Seq     int
	Label   string
	Class   string
	Bar     template.CSS
	Tick    template.CSS // empty when the arrival is unknown
	Tooltip string
}

func checkView(c CheckResult, runID string) htmlCheck {
	v := htmlCheck{CheckResult: c, Class: verdictClass(c.Verdict), Open: findingWorthy(c.Verdict), Guided: c.guided()}
	var cited []int
	for _, x := range c.Violations {
		cited = append(cited, x.Seqs...)
		seqs, more := capSeqs(x.Seqs, maxHTMLCited)
		v.ViolationViews = append(v.ViolationViews, htmlViolation{Violation: x, Cited: seqs, More: more})
	}
	label := keyLabels(runID, historyKeys(c.Evidence.History))
	for i, x := range c.Evidence.History {
		if i == maxHTMLHistory {
			v.HistoryMore = len(c.Evidence.History) - i
			break
		}
		v.History = append(v.History, htmlExchange{Exchange: x, Cited: slices.Contains(cited, x.Seq), Answer: answerText(x), KeyLabel: label(x.Key)})
	}
	for _, b := range c.Evidence.Bursts {
		v.Bursts = append(v.Bursts, burstView(b, exchangesBySeq(c.Evidence.History, b.Seqs)))
	}
	return v
}

func burstView(b history.Burst, xs []history.Exchange) htmlBurst {
	v := htmlBurst{Burst: b, Summary: burstLine(b)}
	if len(xs) == 0 {
		return v
	}
	// Wall clock only: a fresh run's times also carry monotonic readings,
	// and the page must be the same when re-rendered from report.json.
	for i := range xs {
		xs[i].Start = xs[i].Start.Round(0)
	}
	t0, t1 := xs[0].Start, xs[0].Start.Add(xs[0].Duration)
	for _, x := range xs {
		if x.Start.Before(t0) {
			t0 = x.Start
		}
		if end := x.Start.Add(x.Duration); end.After(t1) {
			t1 = end
		}
	}
	span := t1.Sub(t0)
	if span <= 0 {
		span = time.Microsecond
	}
	v.Window = durationText(span)
	// Arrival ticks come from the server's clock: draw them only when
	// they all fall inside the client's window (same host, or clocks in
	// step), else they would mislead.
	ticks := true
	for _, x := range xs {
		if x.Arrival.IsZero() || x.Arrival.Before(t0) || x.Arrival.After(t1) {
			ticks = false
		}
	}
	pct := func(d time.Duration) float64 { return 100 * float64(d) / float64(span) }
	for i, x := range xs {
		if i == maxBurstBars {
			v.More = len(xs) - i
			break
		}
		left, width := pct(x.Start.Sub(t0)), max(pct(x.Duration), 0.4)
		bar := burstBar{
			Seq: x.Seq, Label: answerText(x), Class: outcomeClass(x),
			Bar:     template.CSS(fmt.Sprintf("left:%.2f%%;width:%.2f%%", left, min(width, 100-left))),
			Tooltip: fmt.Sprintf("#%d %s: sent at +%s, answered after %s: %s", x.Seq, x.Step, durationText(x.Start.Sub(t0)), durationText(x.Duration), answerText(x)),
		}
		if ticks {
			bar.Tick = template.CSS(fmt.Sprintf("left:%.2f%%", pct(x.Arrival.Sub(t0))))
			bar.Tooltip += fmt.Sprintf(", server had it at +%s", durationText(x.Arrival.Sub(t0)))
		}
		v.Bars = append(v.Bars, bar)
	}
	return v
}

// outcomeClass colours an exchange: a 2xx, another answer, or none.
func outcomeClass(x history.Exchange) string {
	switch {
	case x.Is2xx():
		return "ok"
	case x.Outcome == history.OK:
		return "other"
	}
	return "none"
}

func verdictClass(s check.Status) string { return "v-" + strings.ToLower(string(s)) }
