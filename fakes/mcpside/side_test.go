package mcpside_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/fakes/mcpside"
	"github.com/idemspec/idemspec/harness/agent"
)

func start(t *testing.T) *mcpside.Side {
	t.Helper()
	s, err := mcpside.Start(mcpside.Options{Dir: t.TempDir(), Work: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// stdio is a session over the relay listener, as `idemspec serve --mcp
// --relay` carries an agent's stdio there.
func stdio(t *testing.T, s *mcpside.Side) *sdk.ClientSession {
	t.Helper()
	conn, err := net.Dial("tcp", s.RelayAddr())
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, &sdk.IOTransport{Reader: conn, Writer: conn})
}

func overHTTP(t *testing.T, s *mcpside.Side) *sdk.ClientSession {
	t.Helper()
	return connect(t, &sdk.StreamableClientTransport{Endpoint: s.URL(), MaxRetries: -1, DisableStandaloneSSE: true})
}

func connect(t *testing.T, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func create(ctx context.Context, cs *sdk.ClientSession, key, marker string) (*sdk.CallToolResult, error) {
	return cs.CallTool(ctx, &sdk.CallToolParams{Name: mcpserver.ToolCreateRecord,
		Arguments: map[string]any{mcpserver.KeyArgument: key, "marker": marker, "amount": 100}})
}

func find(t *testing.T, cs *sdk.ClientSession, key string) map[string]any {
	t.Helper()
	res, err := cs.CallTool(bounded(t), &sdk.CallToolParams{Name: mcpserver.ToolFindRecord, Arguments: map[string]any{mcpserver.KeyArgument: key}})
	if err != nil || res.IsError {
		t.Fatalf("find %s: %v %+v", key, err, res)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func count(t *testing.T, s *mcpside.Side, marker string) int {
	t.Helper()
	obs, err := s.Observe(context.Background(), marker)
	if err != nil {
		t.Fatal(err)
	}
	return obs.Count
}

// The log holds every create and find call with its key, its
// arguments' digest and its outcome; a repeat of a key makes nothing
// more, and the oracle counts what was made.
func TestCallsAreLoggedAndCounted(t *testing.T) {
	for name, session := range map[string]func(*testing.T, *mcpside.Side) *sdk.ClientSession{"stdio": stdio, "http": overHTTP} {
		t.Run(name, func(t *testing.T) {
			s := start(t)
			cs := session(t, s)
			for range 2 {
				if res, err := create(bounded(t), cs, "k1", "m1"); err != nil || res.IsError {
					t.Fatalf("create: %v %+v", err, res)
				}
			}
			if got := find(t, cs, "k1"); got["found"] != true {
				t.Fatalf("find k1: %v", got)
			}
			if got := find(t, cs, "k2"); got["found"] != false {
				t.Fatalf("find k2: %v", got)
			}
			if n := count(t, s, "m1"); n != 1 {
				t.Fatalf("%d records for m1, want 1", n)
			}
			log := s.Requests()
			if len(log) != 4 {
				t.Fatalf("log: %+v, want 2 creates and 2 finds", log)
			}
			for i, want := range []struct{ method, tool string }{
				{http.MethodPost, mcpserver.ToolCreateRecord}, {http.MethodPost, mcpserver.ToolCreateRecord},
				{http.MethodGet, mcpserver.ToolFindRecord}, {http.MethodGet, mcpserver.ToolFindRecord},
			} {
				if log[i].Path != want.tool || log[i].Method != want.method || log[i].Status != http.StatusOK {
					t.Errorf("log %d: %+v, want %s answered, as a %s", i, log[i], want.tool, want.method)
				}
			}
			if log[0].Key != "k1" || log[0].Hash == "" || log[0].Hash != log[1].Hash || log[0].Hash == log[2].Hash {
				t.Errorf("keys and digests: %+v", log)
			}
		})
	}
}

// FailNext answers creates without the server: a transient tool error
// for a 5xx, a final one otherwise; nothing is made.
func TestFailNextAnswersToolErrors(t *testing.T) {
	for name, session := range map[string]func(*testing.T, *mcpside.Side) *sdk.ClientSession{"stdio": stdio, "http": overHTTP} {
		t.Run(name, func(t *testing.T) {
			s := start(t)
			cs := session(t, s)
			for _, c := range []struct {
				status    int
				retryable bool
			}{{http.StatusServiceUnavailable, true}, {http.StatusUnprocessableEntity, false}} {
				s.FailNext(1, c.status)
				res, err := create(bounded(t), cs, "k1", "m1")
				if err != nil || !res.IsError {
					t.Fatalf("%d: %v %+v, want a tool error", c.status, err, res)
				}
				sc, _ := res.StructuredContent.(map[string]any)
				if sc[agent.Retryable] != c.retryable {
					t.Errorf("%d: structuredContent %v, want retryable %v", c.status, sc, c.retryable)
				}
				if log := s.Requests(); log[len(log)-1].Status != c.status {
					t.Errorf("%d: logged %+v", c.status, log[len(log)-1])
				}
			}
			if n := count(t, s, "m1"); n != 0 {
				t.Fatalf("%d records after refused creates, want 0", n)
			}
		})
	}
}

// Over stdio a lost answer is a call that ran and whose answer never
// came; a restart ends the session and keeps the record, which a new
// session finds.
func TestLostAnswerThenRestart(t *testing.T) {
	s := start(t)
	cs := stdio(t, s)
	s.LoseAnswers(true)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if res, err := create(ctx, cs, "k1", "m1"); err == nil {
		t.Fatalf("an answer came through: %+v", res)
	}
	s.LoseAnswers(false)
	if n := count(t, s, "m1"); n != 1 {
		t.Fatalf("%d records, want the lost call's 1", n)
	}
	if log := s.Requests(); len(log) != 1 || log[0].Status != http.StatusOK {
		t.Fatalf("log %+v, want the create, answered (and dropped)", log)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, err := create(bounded(t), cs, "k1", "m1"); err == nil {
		t.Fatal("the session outlived the restart")
	}
	if got := find(t, stdio(t, s), "k1"); got["found"] != true {
		t.Fatalf("after the restart: %v", got)
	}
}

// Over HTTP a restart makes the session unknown (the call never reaches
// a tool, so it is not logged); a new session finds the record.
func TestRestartEndsHTTPSessions(t *testing.T) {
	s := start(t)
	cs := overHTTP(t, s)
	if _, err := create(bounded(t), cs, "k1", "m1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, err := create(bounded(t), cs, "k1", "m1"); err == nil {
		t.Fatal("the session outlived the restart")
	}
	if log := s.Requests(); len(log) != 1 {
		t.Fatalf("log %+v, want the one create before the restart", log)
	}
	if got := find(t, overHTTP(t, s), "k1"); got["found"] != true {
		t.Fatalf("after the restart: %v", got)
	}
}

// BeforeCreate runs once, as the next create arrives and before it is
// answered.
func TestBeforeCreateRunsOnceBeforeTheAnswer(t *testing.T) {
	s := start(t)
	cs := overHTTP(t, s)
	ran := 0
	s.BeforeCreate(func() {
		ran++
		if n := len(s.Requests()); n != 1 {
			t.Errorf("ran with %d calls logged, want the find alone: the create was answered first", n)
		}
	})
	find(t, cs, "k0")
	if ran != 0 {
		t.Fatal("ran for a find")
	}
	for range 2 {
		if _, err := create(bounded(t), cs, "k1", "m1"); err != nil {
			t.Fatal(err)
		}
	}
	if ran != 1 {
		t.Fatalf("ran %d times, want once", ran)
	}
}

// A key that comes back with other arguments is refused for good (a
// final tool error), as a 422 is over HTTP, and makes nothing.
func TestKeyReusedWithOtherArgumentsIsRefused(t *testing.T) {
	s := start(t)
	cs := stdio(t, s)
	if _, err := create(bounded(t), cs, "k1", "m1"); err != nil {
		t.Fatal(err)
	}
	res, err := create(bounded(t), cs, "k1", "m2")
	if err != nil || !res.IsError {
		t.Fatalf("%v %+v, want a tool error", err, res)
	}
	if log := s.Requests(); log[1].Status != http.StatusUnprocessableEntity {
		t.Errorf("logged %+v, want 422 (final)", log[1])
	}
	if n := count(t, s, "m2"); n != 0 {
		t.Errorf("%d records for m2", n)
	}
}
