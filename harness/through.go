package harness

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/idemspec/idemspec/harness/history"
)

// LaneClient is a lane seen as an HTTP client, for code that builds and
// sends its own requests: the reference retrying client that S6 drives.
// Every request is one attempt, recorded in the History like the
// harness's own sends, and sent exactly once: the request loses its
// GetBody, so net/http cannot resend it on a broken connection.
type LaneClient struct {
	env  *Env
	lane *Lane
	h    *history.History
	step string

	mu   sync.Mutex
	n    int
	seqs []int
}

// Through returns lane as an HTTP client whose requests are recorded in
// h as "step 1 (METHOD /path)", "step 2 (...)", ...
func (e *Env) Through(lane *Lane, h *history.History, step string) *LaneClient {
	return &LaneClient{env: e, lane: lane, h: h, step: step}
}

// Do sends req once through the lane and records it. An answer comes
// back with its body in memory.
func (c *LaneClient) Do(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read the request body: %w", err)
		}
	}
	c.mu.Lock()
	c.n++
	n := c.n
	c.mu.Unlock()

	// The key is read where the target takes it, and a key in the body
	// is left out of the payload's digest: a retry under another key is
	// the key's fault, not a change of payload.
	key, payload, _ := c.env.Target.KeyOf(req, body)
	x := history.Exchange{
		Step:    c.env.Target.Redact(fmt.Sprintf("%s %d (%s %s)", c.step, n, req.Method, req.URL.Path)),
		Key:     key,
		Payload: Digest(payload),
		Lane:    c.lane.Name,
		Fault:   c.lane.Fault(),
	}
	out := req.Clone(req.Context())
	if req.Body != nil {
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength = int64(len(body))
	}
	out.GetBody = nil
	resp, err := c.env.roundTrip(c.h, &x, c.lane, out, nil, nil)
	c.mu.Lock()
	c.seqs = append(c.seqs, x.Seq)
	c.mu.Unlock()
	return resp, err
}

// Seqs are the history numbers of the requests sent so far.
func (c *LaneClient) Seqs() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.seqs...)
}
