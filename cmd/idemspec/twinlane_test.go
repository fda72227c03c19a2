package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/internal/testenv"
)

// laneFault is the one fault a twinLane aims at an agent's creates.
type laneFault int

const (
	faultNone      laneFault = iota
	faultDropFirst           // the first create is closed unrun: no answer, nothing made
	faultDropEvery           // every create is closed unrun
	faultLoseFirst           // the first create runs; its answer is lost
	faultHoldFirst           // the first create runs; its answer is held until the agent is killed, then lost
	faultAlways503           // every create is answered 503, unrun
	faultAlways422           // every create is answered 422, unrun
)

// exchange is one request an agent sent on the lane.
type exchange struct {
	method, path, key, body string
}

// twinLane is a loopback HTTP proxy in front of the reference server:
// the agent's API_URL. It records every request and aims its fault at
// the creates (POST /resources) by their order, never by time, so an
// agent's own timeouts decide nothing in these tests.
type twinLane struct {
	URL      string
	upstream string
	fault    laneFault

	mu    sync.Mutex
	log   []exchange
	posts int
	// held is closed once the held create ran at the server; release
	// lets its handler hang up.
	held, release chan struct{}
	releaseOnce   sync.Once
	// enough is closed once the agent sent this many creates (0: never).
	enoughAt int
	enough   chan struct{}
}

// newTwinLane starts a lane for one agent in front of the reference
// server at upstream.
func newTwinLane(t *testing.T, upstream string, fault laneFault) *twinLane {
	t.Helper()
	l := &twinLane{upstream: upstream, fault: fault, held: make(chan struct{}), release: make(chan struct{}), enough: make(chan struct{})}
	srv := httptest.NewServer(l)
	l.URL = srv.URL
	t.Cleanup(func() {
		l.hangUpHeld()
		srv.Close()
	})
	return l
}

// after is closed once the agent sent n creates.
func (l *twinLane) after(n int) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.enoughAt = n
	return l.enough
}

func (l *twinLane) hangUpHeld() { l.releaseOnce.Do(func() { close(l.release) }) }

func (l *twinLane) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	create := r.Method == http.MethodPost && r.URL.Path == "/resources"
	l.mu.Lock()
	l.log = append(l.log, exchange{method: r.Method, path: r.URL.Path, key: r.Header.Get(fakes.DefaultKeyHeader), body: string(body)})
	if create {
		l.posts++
		if l.posts == l.enoughAt {
			close(l.enough)
		}
	}
	first := create && l.posts == 1
	l.mu.Unlock()
	switch {
	case create && l.fault == faultAlways503:
		writeLaneJSON(w, http.StatusServiceUnavailable)
		return
	case create && l.fault == faultAlways422:
		writeLaneJSON(w, http.StatusUnprocessableEntity)
		return
	case create && l.fault == faultDropEvery, first && l.fault == faultDropFirst:
		hangUp(w)
		return
	}
	status, answer, err := l.forward(r, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	switch {
	case first && l.fault == faultLoseFirst:
		hangUp(w)
		return
	case first && l.fault == faultHoldFirst:
		close(l.held)
		select {
		case <-l.release:
		case <-time.After(testenv.WaitLimit):
		}
		hangUp(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(answer)
}

// forward sends the request on to the reference server and reads its
// whole answer: the server has run it when forward returns.
func (l *twinLane) forward(r *http.Request, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(context.Background(), r.Method, l.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	return resp.StatusCode, answer, err
}

func writeLaneJSON(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write([]byte(`{"error":"from the twin lane"}`))
}

// hangUp closes the agent's connection with no byte of answer.
func hangUp(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// exchanges is what the agent sent so far.
func (l *twinLane) exchanges() []exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]exchange(nil), l.log...)
}

// creates is the agent's creates so far.
func (l *twinLane) creates() []exchange {
	var out []exchange
	for _, e := range l.exchanges() {
		if e.method == http.MethodPost {
			out = append(out, e)
		}
	}
	return out
}

// twinRun is one run of an agent.
type twinRun struct {
	code           int
	stdout, stderr string
	// state is the result line's state ("" with no result line).
	state, resourceID string
}

// twinEnv is an agent's whole environment: its own base URL variable,
// and idemspec's variables all pointing elsewhere, so an agent that read
// any of them would send to a dead port, with another payload, keep its
// state in poison's directory, or run out of budget or time at once.
func twinEnv(apiURL, poison string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"API_URL=" + apiURL,
		"IDEMSPEC_SERVER_URL=http://127.0.0.1:9", "IDEMSPEC_CREATE_PATH=/elsewhere", "IDEMSPEC_LOOKUP_PATH=/elsewhere/{key}",
		"IDEMSPEC_KEY_IN=header", "IDEMSPEC_KEY_NAME=X-Poison", "IDEMSPEC_KEY_HEADER=X-Poison",
		`IDEMSPEC_PAYLOAD={"marker":"poison"}`, "IDEMSPEC_MARKER=poison", "IDEMSPEC_STATE_DIR=" + poison,
		"IDEMSPEC_RUN_ID=poison", "IDEMSPEC_ATTEMPT_BUDGET=1", "IDEMSPEC_DEADLINE_MS=1", "IDEMSPEC_ATTEMPT_TIMEOUT_MS=1",
		"IDEMSPEC_RESULT_FILE=" + filepath.Join(poison, "result.json"), "IDEMSPEC_SHAPE=workflow", "IDEMSPEC_STEPS=[]",
		"IDEMSPEC_MCP_URL=http://127.0.0.1:9/mcp", "IDEMSPEC_MCP_CREATE_TOOL=poison", "IDEMSPEC_MCP_FIND_TOOL=poison",
		"IDEMSPEC_MCP_KEY_ARG=poison", `IDEMSPEC_MCP_ARGUMENTS={"marker":"poison"}`,
		// The variables that stand in for idemspec's flags (docs/CLI.md),
		// those of the agent's own flags among them.
		"IDEMSPEC_BUG=poison", "IDEMSPEC_BEARER=poison", "IDEMSPEC_MCP=true", "IDEMSPEC_BASE_URL_ENV=IDEMSPEC_SERVER_URL",
		"IDEMSPEC_MCP_URL_ENV=IDEMSPEC_MCP_URL", "IDEMSPEC_ATTEMPTS=1", "IDEMSPEC_DEADLINE=1ms", "IDEMSPEC_ATTEMPT_TIMEOUT=1ms",
	}
}

// startTwin starts an agent in dir.
func startTwin(t *testing.T, dir string, env []string, argv []string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return cmd, &out, &errb
}

// waitTwin waits for an agent to end, killing its process group if it
// has not within the test's wait limit, and reads its result line.
func waitTwin(t *testing.T, cmd *exec.Cmd, out, errb *bytes.Buffer) twinRun {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(testenv.WaitLimit):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("%v did not end within %s\nstdout:\n%s\nstderr:\n%s", cmd.Args, testenv.WaitLimit, out, errb)
	}
	r := twinRun{stdout: out.String(), stderr: errb.String()}
	if exit, ok := err.(*exec.ExitError); ok {
		r.code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var res struct {
		State      string  `json:"state"`
		ResourceID *string `json:"resource_id"`
	}
	if json.Unmarshal([]byte(lines[len(lines)-1]), &res) == nil {
		r.state = res.State
		if res.ResourceID != nil {
			r.resourceID = *res.ResourceID
		}
	}
	return r
}

// runTwin runs an agent in dir to its end.
func runTwin(t *testing.T, dir string, env []string, argv []string) twinRun {
	t.Helper()
	cmd, out, errb := startTwin(t, dir, env, argv)
	return waitTwin(t, cmd, out, errb)
}

// killTwinWhen starts an agent in dir, and kills its process group once
// ready is closed (the lane held its create, or it sent enough).
func killTwinWhen(t *testing.T, dir string, env []string, argv []string, ready <-chan struct{}, what string) twinRun {
	t.Helper()
	cmd, out, errb := startTwin(t, dir, env, argv)
	select {
	case <-ready:
	case <-time.After(testenv.WaitLimit):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		t.Fatalf("%v: %s: not within %s\nstdout:\n%s\nstderr:\n%s", argv, what, testenv.WaitLimit, out, errb)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return waitTwin(t, cmd, out, errb)
}

// resources counts the reference server's resources.
func resources(t *testing.T, serverURL string) int {
	t.Helper()
	resp, err := http.Get(serverURL + "/resources")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}
