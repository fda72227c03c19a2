package bench_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
)

// serveEnv makes the bench binary a fake server instead of running
// benchmarks: the burst benchmarks compare the built-in fake in the
// harness's own process (what `idemspec run --target fake:NAME` does)
// with the same fake in a process of its own, as a real target is, and
// only a process of its own can be frozen (SIGSTOP) to measure how fast
// the server drains a burst whose bytes are all there.
const serveEnv = "IDEMSPEC_BENCH_SERVE"

// serveFake is the child's main: serve the reference on a loopback port,
// print its URL, stop when stdin closes.
func serveFake() int {
	in, err := fakes.Start(fakes.Options{}, "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println(in.URL)
	io.Copy(io.Discard, os.Stdin)
	if err := in.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

// serverProcess is the reference fake running in a child process.
type serverProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	URL   string
}

// startServerProcess starts the reference in a child process and stops
// it when the benchmark ends.
func startServerProcess(b *testing.B) *serverProcess {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &serverProcess{cmd: cmd, stdin: stdin}
	b.Cleanup(func() {
		p.thaw()
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			b.Errorf("fake server process: %v", err)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("fake server process gave no URL: %v", err)
	}
	p.URL = strings.TrimSpace(line)
	return p
}

// freeze stops the server process (SIGSTOP): bytes sent to it wait in
// the kernel until thaw.
func (p *serverProcess) freeze() error { return p.cmd.Process.Signal(syscall.SIGSTOP) }

func (p *serverProcess) thaw() error { return p.cmd.Process.Signal(syscall.SIGCONT) }

// processEnv is a harness in front of the reference in its own process.
func processEnv(b *testing.B) (*harness.Env, *serverProcess) {
	b.Helper()
	p := startServerProcess(b)
	t := fakes.DescribeTarget(p.URL, "fake:reference (own process)")
	e, err := harness.New(t, harness.DefaultSettings())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e, p
}
