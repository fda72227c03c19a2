package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness/history"
)

// maxDiagramExchanges bounds a sequence diagram: a reader follows a dozen
// exchanges, not a burst of two thousand.
const maxDiagramExchanges = 10

// sequenceDiagram draws the exchanges that show a check's violations,
// with their neighbours for context, as a Mermaid sequence diagram:
// Client, one Proxy per lane, Server. A gap in the sequence numbers is a
// note saying how many exchanges are left out; the oracle's readings end
// the diagram. It returns "" when there is no history to draw.
func sequenceDiagram(c CheckResult) string {
	shown := diagramSeqs(c)
	if len(shown) == 0 {
		return ""
	}
	byLane := map[string]string{}
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	b.WriteString("    participant C as Client\n")
	for _, x := range exchangesBySeq(c.Evidence.History, shown) {
		if _, ok := byLane[x.Lane]; !ok {
			id := fmt.Sprintf("P%d", len(byLane)+1)
			byLane[x.Lane] = id
			label := fmt.Sprintf("Proxy (%s lane)", mermaidText(x.Lane))
			if x.Lane == "direct" {
				label = "Direct (no proxy)" // look-ups, the judge's reads
			}
			fmt.Fprintf(&b, "    participant %s as %s\n", id, label)
		}
	}
	b.WriteString("    participant S as Server\n")

	bursts := map[int]history.Burst{}
	for _, br := range c.Evidence.Bursts {
		if len(br.Seqs) > 0 {
			bursts[slices.Min(br.Seqs)] = br
		}
	}
	prev := 0
	for _, x := range exchangesBySeq(c.Evidence.History, shown) {
		if gap := x.Seq - prev - 1; gap > 0 {
			fmt.Fprintf(&b, "    Note over C,S: %d %s not shown\n", gap, plural(gap, "exchange", "exchanges"))
		}
		prev = x.Seq
		if br, ok := bursts[x.Seq]; ok {
			fmt.Fprintf(&b, "    Note over C,S: burst of %d same-key requests released together (spread %s)\n",
				br.Size, mermaidText(durationText(br.ReleaseSpread)))
		}
		drawExchange(&b, x, byLane[x.Lane])
	}
	if gap := len(c.Evidence.History) - prev; gap > 0 {
		fmt.Fprintf(&b, "    Note over C,S: %d more %s not shown\n", gap, plural(gap, "exchange", "exchanges"))
	}
	for _, r := range c.Evidence.Readings {
		fmt.Fprintf(&b, "    Note over C,S: oracle: %s\n", mermaidText(readingLine(r)))
	}
	return b.String()
}

// drawExchange draws one attempt: the request through the proxy, and
// what came back, or that nothing did.
func drawExchange(b *strings.Builder, x history.Exchange, proxy string) {
	fmt.Fprintf(b, "    C->>%s: %d. %s (key %s)\n", proxy, x.Seq, mermaidText(x.Step), shortKey(x.Key))
	if x.Fault != "" {
		fmt.Fprintf(b, "    Note over %s: fault: %s\n", proxy, mermaidText(x.Fault))
	}
	switch x.Outcome {
	case history.OK:
		// The answer passes the proxy unchanged: one arrow across it.
		fmt.Fprintf(b, "    %s->>S: payload %s\n", proxy, x.Payload)
		fmt.Fprintf(b, "    S-->>C: %s\n", mermaidText(answerText(x)))
	case history.MaybeApplied:
		fmt.Fprintf(b, "    %s->>S: payload %s\n", proxy, x.Payload)
		fmt.Fprintf(b, "    %s--xC: no answer (maybe applied)\n", proxy)
	default:
		fmt.Fprintf(b, "    %s--xC: %s\n", proxy, mermaidText(answerText(x)))
	}
}

// diagramSeqs picks the exchanges to draw: every one a violation cites,
// then their neighbours and the first exchange (usually the original
// request), up to maxDiagramExchanges. A check that failed without citing
// exchanges gets the start of its history.
func diagramSeqs(c CheckResult) []int {
	h := c.Evidence.History
	if len(h) == 0 {
		return nil
	}
	exists := map[int]bool{}
	for _, x := range h {
		exists[x.Seq] = true
	}
	// Take cited exchanges from each violation in turn, so a check with
	// two failing bursts shows some of both.
	var cited []int
	for i := 0; ; i++ {
		more := false
		for _, v := range c.Violations {
			if i < len(v.Seqs) {
				cited = append(cited, v.Seqs[i])
				more = true
			}
		}
		if !more {
			break
		}
	}
	var shown []int
	add := func(s int) {
		if exists[s] && !slices.Contains(shown, s) && len(shown) < maxDiagramExchanges {
			shown = append(shown, s)
		}
	}
	for _, s := range cited {
		add(s)
	}
	if len(cited) == 0 {
		for _, x := range h {
			add(x.Seq)
		}
	}
	add(h[0].Seq)
	for _, s := range cited {
		add(s - 1)
		add(s + 1)
	}
	slices.Sort(shown)
	return shown
}

// mermaidText keeps a label from breaking the diagram: Mermaid ends a
// statement at ";" or a newline and reads "#" as the start of an entity;
// quotes are dropped (the harness quotes fault names).
func mermaidText(s string) string {
	s = strings.NewReplacer(";", ",", "#", "no. ", "\n", " ", "\r", " ", "%%", "%", `"`, "").Replace(s)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
