package proc_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/internal/proc"
)

// A tail keeps what was written last, whatever came before and in
// whatever pieces.
func TestTailKeepsTheLastBytes(t *testing.T) {
	for _, piece := range []int{1, 7, 100, 1000} {
		tl := &proc.Tail{Limit: 100}
		all := strings.Repeat("log line\n", 100) + "result\n"
		for s := all; s != ""; {
			n := min(piece, len(s))
			if w, err := tl.Write([]byte(s[:n])); w != n || err != nil {
				t.Fatalf("write %d: %d, %v", n, w, err)
			}
			s = s[n:]
		}
		if got, want := tl.String(), all[len(all)-100:]; got != want {
			t.Errorf("pieces of %d: kept %q, want %q", piece, got, want)
		}
	}
	short := &proc.Tail{Limit: 100}
	short.Write([]byte("ok\n"))
	if short.String() != "ok\n" {
		t.Errorf("short: %q", short.String())
	}
}
