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
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
	"github.com/idemspec/idemspec/internal/testenv"
)

// agent is the example program, built once.
var agent string

func TestMain(m *testing.M) {
	var remove func()
	agent, remove = testenv.MustBuild(".", "agent")
	code := m.Run()
	remove()
	os.Exit(code)
}

// runAgent runs the program (each run its own process) and decodes the
// JSON it prints.
func runAgent(t *testing.T, args ...string) (retry.Result, int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agent, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("agent %v: %v", args, err)
	}
	var res retry.Result
	if code != 2 {
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("agent %v printed no JSON result (%v):\n%s\n%s", args, err, out.String(), errb.String())
		}
	}
	return res, code, errb.String()
}

func targetFile(t *testing.T, baseURL string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "target.yaml")
	content := `
base_url: ` + baseURL + `
create:
  path: /resources
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
oracle:
  list:
    path: /resources?marker={{.Marker}}
    items: items
lookup:
  path: /idempotency-keys/{{.Key}}
`
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAgentResumesInANewProcess: the first process cannot get an answer
// (the server holds every request until the client gives up) and ends
// UNKNOWN_RESULT; a second process, pointed at a working server, resumes
// the operation with the same key: it reconciles, creates once, and a
// third run sends nothing.
func TestAgentResumesInANewProcess(t *testing.T) {
	hold := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer hold.Close()
	in, err := fakes.Start(fakes.Options{}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	journal := filepath.Join(t.TempDir(), "agent.db")
	common := []string{"--journal", journal, "--op", "order-42", "--attempts", "2"}
	// The first run gives up on the held requests at 200 ms; the runs
	// against the working server have bounds no busy machine reaches, so
	// a look-up that is slow to be answered is not retried and counted
	// twice.
	gaveUp := append([]string{"--timeout", "200ms", "--deadline", "5s"}, common...)
	common = append([]string{"--timeout", "10s", "--deadline", "30s"}, common...)

	first, code, stderr := runAgent(t, append([]string{"--target", targetFile(t, hold.URL)}, gaveUp...)...)
	if code != 1 || first.State != state.UnknownResult || first.Key == "" || first.Sent != 1 {
		t.Fatalf("against a server that never answers: exit %d, %s after %d sends (%s)\n%s", code, first.State, first.Sent, first.Reason, stderr)
	}

	good := targetFile(t, in.URL)
	second, code, stderr := runAgent(t, append([]string{"--target", good}, common...)...)
	if code != 0 || second.State != state.Succeeded || second.Key != first.Key || second.Lookups != 1 || second.Sent != 1 {
		t.Fatalf("resumed: exit %d, %s with key %s (first run: %s), %d look-ups, %d sends\n%s", code, second.State, second.Key, first.Key, second.Lookups, second.Sent, stderr)
	}
	arrivals := in.Arrivals()
	if len(arrivals) != 1 || arrivals[0].Key != first.Key {
		t.Fatalf("the server saw %+v; want one create with key %s", arrivals, first.Key)
	}

	third, code, _ := runAgent(t, append([]string{"--target", good}, common...)...)
	if code != 0 || third.State != state.Succeeded || third.Sent+third.Lookups != 0 || third.ResourceID != second.ResourceID {
		t.Fatalf("a finished operation run again: exit %d, %s, %d requests, resource %s (was %s)", code, third.State, third.Sent+third.Lookups, third.ResourceID, second.ResourceID)
	}
}

func TestAgentBadInputExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{"--op", "x"},
		{"--target", "fake:reference"},
		{"--target", "fake:no-such-mutant", "--op", "x", "--journal", filepath.Join(t.TempDir(), "j.db")},
		{"--no-such-flag"},
	} {
		if _, code, stderr := runAgent(t, args...); code != 2 || stderr == "" {
			t.Errorf("agent %v: exit %d, stderr %q; want 2 and a message", args, code, stderr)
		}
	}
}
