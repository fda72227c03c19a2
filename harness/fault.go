package harness

import (
	"fmt"
	"time"
)

// Fault is a network fault applied to a lane. It is a value: the scenario
// says what it wants (ResponseLoss{}), the lane turns it into toxics, and
// the cleanup returned by Lane.Apply removes them.
type Fault interface {
	// Name describes the fault in histories and reports.
	Name() string
	toxics() []toxic
}

// toxic is one Toxiproxy toxic. Toxicity is always 1: Toxiproxy draws it
// once per connection, and a lane exists so that every connection through
// it is meant to see the fault.
type toxic struct {
	Type       string
	Stream     string // "upstream" (client to server) or "downstream"
	Attributes map[string]any
}

// ResponseLoss lets the request through and drops every byte of the
// answer: the handler runs and commits, the client hears nothing. A
// downstream timeout toxic with timeout 0 holds the connection open, so
// the client sees a timeout (not EOF or a reset, after which Go's own
// transport might resend).
type ResponseLoss struct{}

func (ResponseLoss) Name() string { return "response-loss" }
func (ResponseLoss) toxics() []toxic {
	return []toxic{{Type: "timeout", Stream: "downstream", Attributes: map[string]any{"timeout": 0}}}
}

// ResetPeer lets the request through and resets the connection (TCP RST)
// as soon as the answer starts: the handler ran, the client sees ECONNRESET.
type ResetPeer struct{}

func (ResetPeer) Name() string { return "reset-peer" }
func (ResetPeer) toxics() []toxic {
	return []toxic{{Type: "reset_peer", Stream: "downstream", Attributes: map[string]any{"timeout": 0}}}
}

// Blackhole swallows the request: it never reaches the server, and the
// client waits until it gives up.
type Blackhole struct{}

func (Blackhole) Name() string { return "blackhole" }
func (Blackhole) toxics() []toxic {
	return []toxic{{Type: "timeout", Stream: "upstream", Attributes: map[string]any{"timeout": 0}}}
}

// Latency delays the request bytes by Delay, plus or minus Jitter, per
// chunk. Latency shifts arrivals, it does not bunch them: with jitter it
// widens a burst's arrival window, which is what S4's second burst wants.
type Latency struct {
	Delay  time.Duration
	Jitter time.Duration
}

func (l Latency) Name() string { return fmt.Sprintf("latency %v±%v", l.Delay, l.Jitter) }
func (l Latency) toxics() []toxic {
	return []toxic{{Type: "latency", Stream: "upstream", Attributes: map[string]any{
		"latency": l.Delay.Milliseconds(), "jitter": l.Jitter.Milliseconds(),
	}}}
}

// AnswerCut lets the request through and, when the answer's first bytes
// arrive, drops them and closes the connection: the handler ran and the
// client learns at once that its answer is gone (a fresh connection
// closed before any answer, which net/http never resends a POST on).
// The MCP tool audit loses answers with it: its signal is the answer
// itself, so no wait races the tool's work.
type AnswerCut struct{}

func (AnswerCut) Name() string { return "answer-cut" }
func (AnswerCut) toxics() []toxic {
	return []toxic{{Type: "limit_data", Stream: "downstream", Attributes: map[string]any{"bytes": 0}}}
}
