package main

import (
	"strings"
	"testing"
)

// An interrupt's progress report keeps where the check was and loses
// the goroutine stacks, whatever the chunks Ginkgo writes in.
func TestStacklessLeavesOutGoroutineDumps(t *testing.T) {
	in := `Will run 7 of 31 specs
  ------------------------------
  Interrupted by User
  Here's a current progress report:
    idemspec client should look the operation up (Spec Runtime: 2.9s)
      In [It] (Node Runtime: 2.9s)
        /src/scenarios/check.go:116

      Spec Goroutine
      goroutine 29 [select]
      > github.com/idemspec/idemspec/scenarios.(*trial).awaitCreate(0x30a3)
          /src/scenarios/clientenv.go:248
            | case <-ctx.Done():

      Other Goroutines
      goroutine 43 [syscall]
        os/exec.(*Cmd).Wait(0x12046dbecd00)
  ------------------------------
• [INTERRUPTED] [2.9 seconds]
  << Timeline
last line without newline`
	want := `Will run 7 of 31 specs
  ------------------------------
  Interrupted by User
  Here's a current progress report:
    idemspec client should look the operation up (Spec Runtime: 2.9s)
      In [It] (Node Runtime: 2.9s)
        /src/scenarios/check.go:116

      ` + dumpLeftOut + `  ------------------------------
• [INTERRUPTED] [2.9 seconds]
  << Timeline
last line without newline`
	for _, chunk := range []int{1, 7, len(in)} {
		var out strings.Builder
		s := newStackless(&out)
		for rest := in; rest != ""; {
			n := min(chunk, len(rest))
			s.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		s.Flush()
		if out.String() != want {
			t.Errorf("chunks of %d:\n%s\nwant:\n%s", chunk, out.String(), want)
		}
	}
}
