package targets_test

import (
	"flag"
	"os"
	"testing"

	"github.com/idemspec/idemspec/internal/testenv"
)

// TestMain lets the hook-bound tests' six subtests run at once: each
// waits out a 300 ms timeout and a kill, and at GOMAXPROCS (two on CI)
// at a time they left the cores idle for seconds of the short tier.
func TestMain(m *testing.M) {
	flag.Parse()
	testenv.Parallel(6)
	os.Exit(m.Run())
}
