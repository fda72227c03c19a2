package fakes

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// logged writes one line per request to the server's log: when, what,
// the key, the answer's status and whether it was a replay. A killed
// server writes nothing more, as a dead process would not.
func (s *Server) logged(next http.Handler) http.Handler {
	var mu sync.Mutex // one whole line at a time
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if s.Killed() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(s.opts.Log, "%s %s %s key=%q status=%d replayed=%t took=%s\n",
			start.UTC().Format(time.RFC3339Nano), r.Method, r.URL.RequestURI(), r.Header.Get(s.opts.KeyHeader),
			rec.status, s.conv.ReplayHeader != "" && rec.Header().Get(s.conv.ReplayHeader) == "true", time.Since(start).Round(time.Microsecond))
	})
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.NewResponseController reach the connection, so that a
// handler's flush (an answer's head sent before its body, a hook that
// runs after the send) is one with the log on too.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
