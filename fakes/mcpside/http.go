package mcpside

import (
	"bytes"
	"io"
	"net/http"
)

// serveHTTP is the streamable HTTP endpoint: the current generation's
// handler, with the watched calls logged and FailNext's answered. The
// server answers a POST with JSON (not an event stream), so a call's
// answer is the POST's body.
func (s *Side) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := s.current().handler
	if r.Method != http.MethodPost {
		h.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxLine))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	c := watched(body)
	if c == nil {
		h.ServeHTTP(w, r)
		return
	}
	if inject := s.begin(c); inject != nil {
		w.Header().Set("Content-Type", "application/json")
		w.Write(inject)
		return
	}
	rec := &capture{header: http.Header{}, status: http.StatusOK}
	h.ServeHTTP(rec, r)
	if rec.status == http.StatusOK {
		// Anything else (404 for a session a restart ended) never
		// reached the tool.
		s.end(c, bytes.TrimSpace(rec.body.Bytes()))
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	w.Write(rec.body.Bytes())
}

// capture keeps a handler's answer to a watched call, to log it before
// it is sent.
type capture struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *capture) Header() http.Header         { return c.header }
func (c *capture) WriteHeader(status int)      { c.status = status }
func (c *capture) Write(b []byte) (int, error) { return c.body.Write(b) }
func (c *capture) Flush()                      {}
