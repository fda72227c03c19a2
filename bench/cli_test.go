package bench_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/internal/testenv"
	"github.com/idemspec/idemspec/reports"
)

// cliBinary is the idemspec CLI, built on first use by a benchmark that
// runs it (a plain `go test` builds nothing) and removed by TestMain.
var cliBinary struct {
	once   sync.Once
	path   string
	remove func()
	err    error
}

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		os.Exit(serveFake())
	}
	code := m.Run()
	if cliBinary.remove != nil {
		cliBinary.remove()
	}
	os.Exit(code)
}

func idemspecBinary(b *testing.B) string {
	b.Helper()
	cliBinary.once.Do(func() {
		cliBinary.path, cliBinary.remove, cliBinary.err = testenv.Build("github.com/idemspec/idemspec/cmd/idemspec", "idemspec")
	})
	if cliBinary.err != nil {
		b.Fatal(cliBinary.err)
	}
	return cliBinary.path
}

// cliRun is one `idemspec run` as a child process.
type cliRun struct {
	code   int
	wall   time.Duration
	maxRSS int64 // bytes: the child's peak resident set (getrusage)
	report reports.Report
	output string
}

// runCLI runs `idemspec run ARGS` with its own report directory and reads
// the report back. Exit codes 0 and 1 are verdicts; anything else fails
// the benchmark, since a figure from a broken run means nothing.
func runCLI(b *testing.B, args ...string) cliRun {
	b.Helper()
	dir, err := os.MkdirTemp("", "idemspec-bench-report-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, idemspecBinary(b), append([]string{"run", "--report-dir", dir}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	r := cliRun{wall: time.Since(start), output: out.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		b.Fatalf("idemspec %v: %v\n%s", args, err, r.output)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss * 1024 // Linux reports kilobytes
	}
	if r.code != 0 && r.code != 1 {
		b.Fatalf("idemspec %v: exit %d\n%s", args, r.code, r.output)
	}
	if r.report, err = reports.ReadJSON(filepath.Join(dir, "report.json")); err != nil {
		b.Fatalf("idemspec %v: %v\n%s", args, err, r.output)
	}
	return r
}

// megabytes is a byte count in MB (10^6), for metrics.
func megabytes(n int64) float64 { return float64(n) / 1e6 }
