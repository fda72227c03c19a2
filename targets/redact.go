package targets

import (
	"io"
	"strings"
	"sync"
)

// RedactWriter redacts a target's secrets from a stream (Ginkgo's log,
// the progress lines) before they reach w. A secret may be split across
// two writes, so the writer holds back the end of what it was given for
// as long as that end could be the start of a secret; Flush writes the
// rest.
type RedactWriter struct {
	mu      sync.Mutex
	w       io.Writer
	t       *Target
	pending string
}

// RedactWriter wraps w. Call Flush when the stream ends.
func (t *Target) RedactWriter(w io.Writer) *RedactWriter {
	return &RedactWriter{w: w, t: t}
}

func (r *RedactWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.t.Redact(r.pending + string(p))
	hold := r.heldBack(s)
	r.pending = s[len(s)-hold:]
	if _, err := io.WriteString(r.w, s[:len(s)-hold]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what was held back.
func (r *RedactWriter) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.pending
	r.pending = ""
	_, err := io.WriteString(r.w, s)
	return err
}

// heldBack is the length of the longest end of s that begins a secret.
func (r *RedactWriter) heldBack(s string) int {
	hold := 0
	for _, secret := range r.t.Secrets {
		for n := min(len(secret)-1, len(s)); n > hold; n-- {
			if strings.HasSuffix(s, secret[:n]) {
				hold = n
				break
			}
		}
	}
	return hold
}
