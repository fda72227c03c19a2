package targets

import (
	"bytes"
	"strings"
	"sync"
)

// KeyVar is what process.crash_at writes for the request's key.
const KeyVar = "{{.Key}}"

// maxCrashLine bounds the part of a line the watch keeps while it waits
// for the line's end: a process that writes without newlines cannot make
// it hold more.
const maxCrashLine = 64 << 10

// crashWatch reads a managed process's output for the line it writes
// when a request is inside its work (process.crash_at, with the request's
// key for {{.Key}}), so that a crash lands there rather than at a delay
// drawn from the crash window: on a busy machine a request may not have
// reached its work, or may have left it, by the time a delay ends.
type crashWatch struct {
	pattern string
	mu      sync.Mutex
	armed   map[string]chan struct{} // the line's text wanted → closed when seen
	partial []byte
}

func newCrashWatch(pattern string) *crashWatch {
	return &crashWatch{pattern: pattern, armed: map[string]chan struct{}{}}
}

// arm returns a channel closed when the process writes the line for key.
func (w *crashWatch) arm(key string) <-chan struct{} {
	want := crashLine(w.pattern, key)
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.armed[want]
	if !ok {
		ch = make(chan struct{})
		w.armed[want] = ch
	}
	return ch
}

// crashLine is what pattern (process.crash_at) says the process writes
// for key.
func crashLine(pattern, key string) string { return strings.ReplaceAll(pattern, KeyVar, key) }

// reset forgets the points armed for a process that is gone: a request
// it never worked on will not be worked on by the next one unsent.
func (w *crashWatch) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.armed)
	w.partial = nil
}

// Write looks at each whole line the process wrote for an armed text.
func (w *crashWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.partial, p...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		w.seen(string(buf[:i]))
		buf = buf[i+1:]
	}
	if len(buf) > maxCrashLine {
		buf = buf[len(buf)-maxCrashLine:]
	}
	w.partial = append(w.partial[:0], buf...)
	return len(p), nil
}

func (w *crashWatch) seen(line string) {
	for want, ch := range w.armed {
		if strings.Contains(line, want) {
			close(ch)
			delete(w.armed, want)
		}
	}
}
