package proc

import "sync"

// Tail keeps the last Limit bytes written to it and drops what came
// before, so a chatty command cannot fill memory and what it printed
// last (a result after a long log) is still there; it never fails a
// write. It holds at most twice Limit between compactions.
type Tail struct {
	Limit int

	mu  sync.Mutex
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.Limit {
		t.buf = append(t.buf[:0], p[len(p)-t.Limit:]...)
		return len(p), nil
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.Limit {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.Limit:]...)
	}
	return len(p), nil
}

// String is the last Limit bytes written.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf[max(0, len(t.buf)-t.Limit):])
}
