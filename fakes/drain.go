package fakes

import (
	"net/http"
	"time"
)

// A server that does not drain (Options.NoDrain) exits on SIGTERM with
// its requests in flight unfinished, as Python's http.server, Flask's
// development server, a Go ListenAndServe without Shutdown and a Node
// server without a handler do. Those servers also write an answer's head
// and its body separately, so a stop that lands just after the head
// cuts the answer: the client reads a status and then the end of the
// connection. The reference without draining is still correct, since it
// commits the key's record before a byte of its answer leaves; only the
// client's view of that answer is lost.

// DefaultBodyLag is how long the body follows the head when the server
// does not drain: long enough that a stop begun on the head's first
// byte lands before the body leaves (in process, and through a SIGTERM
// on a busy machine), and short enough to cost the checks little.
const DefaultBodyLag = 10 * time.Millisecond

// headFirst sends the answer's head now and returns BodyLag later, or at
// once when the server is killed meanwhile (its connections are closed
// then, and the body goes nowhere).
func (s *Server) headFirst(w http.ResponseWriter) {
	http.NewResponseController(w).Flush()
	select {
	case <-s.dead:
	case <-time.After(s.opts.BodyLag):
	}
}
