package reports

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// How the text formats (JUnit, Markdown) describe evidence: the same
// words everywhere, so a reader who saw one format recognises the other.

// maxCitedExchanges bounds the exchanges quoted under one violation in
// the text formats; a burst cites twenty or two thousand.
const maxCitedExchanges = 5

// capSeqs sorts and de-duplicates seqs and keeps the first n.
func capSeqs(seqs []int, n int) (kept []int, more int) {
	kept = slices.Clone(seqs)
	slices.Sort(kept)
	kept = slices.Compact(kept)
	if len(kept) > n {
		return kept[:n], len(kept) - n
	}
	return kept, 0
}

// exchangesBySeq picks the exchanges with the given sequence numbers, in
// history order.
func exchangesBySeq(h []history.Exchange, seqs []int) []history.Exchange {
	var out []history.Exchange
	for _, x := range h {
		if slices.Contains(seqs, x.Seq) {
			out = append(out, x)
		}
	}
	return out
}

// exchangeLine is one exchange in one line.
func exchangeLine(x history.Exchange) string {
	lane := x.Lane + " lane"
	if x.Fault != "" {
		lane += " with " + x.Fault
	}
	return fmt.Sprintf("#%d %s: %s, key %s, payload %s -> %s", x.Seq, x.Step, lane, shortKey(x.Key), x.Payload, answerText(x))
}

// answerText says what the client got back.
func answerText(x history.Exchange) string {
	switch x.Outcome {
	case history.OK:
		s := fmt.Sprint(x.Status)
		if x.ResourceID != "" {
			s += " " + x.ResourceID
		}
		if x.Headers["Idempotent-Replayed"] == "true" {
			s += " (replayed)"
		}
		return s
	case history.MaybeApplied:
		return "no answer, maybe applied" + errorSuffix(x.Error)
	case history.Failed:
		return "failed, not applied" + errorSuffix(x.Error)
	}
	return string(x.Outcome)
}

func errorSuffix(e string) string {
	if e == "" {
		return ""
	}
	return ": " + e
}

// readingLine is one oracle reading in one line.
func readingLine(r check.Reading) string {
	noun := "resources"
	if r.Count == 1 {
		noun = "resource"
	}
	s := fmt.Sprintf("%d %s carry marker %s", r.Count, noun, r.Marker)
	var ctx []string
	if r.When != "" {
		ctx = append(ctx, r.When)
	}
	if r.Oracle != "" {
		ctx = append(ctx, r.Oracle+" oracle")
	}
	if len(ctx) > 0 {
		s += " (" + strings.Join(ctx, ", ") + ")"
	}
	return s
}

// shortKey keeps enough of a key to tell keys apart in a diagram: its
// end, since keys of one run begin with the run's id.
func shortKey(k string) string {
	switch {
	case k == "":
		return "(none)"
	case len(k) > 8:
		return "…" + k[len(k)-8:]
	}
	return k
}

// historyKeys are the keys of a history's exchanges, in order.
func historyKeys(xs []history.Exchange) []string {
	keys := make([]string, len(xs))
	for i, x := range xs {
		keys[i] = x.Key
	}
	return keys
}

// durationText prints a duration at a precision a reader can use.
func durationText(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// dateText prints a run's date, always in UTC.
func dateText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 MST") }

// msText prints a duration given in milliseconds, as the model stores it.
func msText(ms float64) string {
	return durationText(time.Duration(ms * float64(time.Millisecond)))
}
