package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemspec/idemspec/internal/proc"
)

// stderrLimit bounds what is kept of a server's stderr, for the error
// that says why it would not start.
const stderrLimit = 16 << 10

// Stdio is a server the harness starts from a command that speaks MCP
// on its standard input and output (`sh -c`), in its own process group.
// Each start is one process and one session; Restart and Crash start it
// again on the same command, so a server that keeps its state in a file
// finds it there.
type Stdio struct {
	Command string
	Env     []string // added to idemspec's own environment
	Dir     string
	// Grace is how long a stop waits for the server to exit on its own
	// once its input is closed, and again after SIGTERM (0: proc.DefaultGrace).
	Grace time.Duration

	mu      sync.Mutex
	p       *proc.Proc
	session *Session
	in      *signalWriter
	stderr  *proc.Buffer
}

// Start starts the command and initializes a session with it.
func (s *Stdio) Start(ctx context.Context) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p != nil {
		return nil, errors.New("the MCP server is already running")
	}
	return s.start(ctx)
}

func (s *Stdio) start(ctx context.Context) (*Session, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command("sh", "-c", s.Command)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stdin, cmd.Stdout = inR, outW
	s.stderr = &proc.Buffer{Limit: stderrLimit}
	cmd.Stderr = s.stderr
	p, err := proc.Start(cmd)
	inR.Close() // the child holds its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %q: %w", s.Command, err)
	}
	s.p = p
	s.in = &signalWriter{w: inW}
	session, err := connect(ctx, &sdk.IOTransport{Reader: outR, Writer: s.in})
	if err != nil {
		s.stop(0)
		return nil, fmt.Errorf("%q: %w%s", s.Command, err, s.said())
	}
	s.session = session
	return session, nil
}

// said is the tail of what the server wrote on stderr, for an error.
func (s *Stdio) said() string {
	out := strings.TrimSpace(s.stderr.String())
	if out == "" {
		return ""
	}
	if len(out) > 2000 {
		out = "..." + out[len(out)-2000:]
	}
	return "; the server said: " + out
}

// Session is the session of the running process (nil when stopped).
func (s *Stdio) Session() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session
}

// Restart stops the server the way its client would (input closed,
// then SIGTERM, then SIGKILL) and starts it again.
func (s *Stdio) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop(s.grace())
	_, err := s.start(ctx)
	return err
}

// Crash kills the server at once (SIGKILL to its group), a call in flight
// included, and starts it again.
func (s *Stdio) Crash(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop(0)
	_, err := s.start(ctx)
	return err
}

// Close stops the server; it is safe to call more than once.
func (s *Stdio) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop(s.grace())
	return nil
}

func (s *Stdio) grace() time.Duration {
	if s.Grace > 0 {
		return s.Grace
	}
	return proc.DefaultGrace
}

// stop ends the session and the process: with a grace, closing its input
// first (the stdio transport's own shutdown), bounded by the grace; with
// none, SIGKILL first.
func (s *Stdio) stop(grace time.Duration) {
	if s.p == nil {
		return
	}
	if grace == 0 {
		s.p.Kill()
	}
	if s.session != nil {
		closed, session := make(chan struct{}), s.session
		go func() {
			session.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-s.p.Done():
		case <-time.After(grace + 100*time.Millisecond):
		}
	}
	s.p.Stop(grace)
	s.p, s.session = nil, nil
}
