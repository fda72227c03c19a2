package mcprelay

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemspec/idemspec/fakes/mcpserver"
)

// testLimit bounds every wait of these tests: a hang is a failure.
const testLimit = 20 * time.Second

// relayed starts the reference MCP server as a real one (streamable
// HTTP), the relay in front of it, and an agent's session with the
// relay.
func relayed(t *testing.T, hold time.Duration) (*Relay, *sdk.ClientSession) {
	t.Helper()
	srv, err := mcpserver.New(mcpserver.Options{Work: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	t.Cleanup(cancel)
	up := &httpServer{url: hs.URL, client: hs.Client()}
	if err := up.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	r, err := Start(ctx, Options{Upstream: up, Keys: map[string]string{mcpserver.ToolCreate: "request_id"}, Hold: hold})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r, agent(t, r)
}

func agent(t *testing.T, r *Relay) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: r.URL(), MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func createNote(cs *sdk.ClientSession, key string) (*sdk.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	return cs.CallTool(ctx, &sdk.CallToolParams{Name: mcpserver.ToolCreate, Arguments: map[string]any{"request_id": key, "text": "hello"}})
}

// notes is how many notes create_note made, as the server says.
func notes(t *testing.T, r *Relay) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	a, err := r.Read(ctx, mcpserver.ToolList, nil)
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Created []json.RawMessage `json:"created"`
	}
	if err := json.Unmarshal([]byte(a.Content()), &state); err != nil {
		t.Fatalf("list_notes: %v: %s", err, a.Content())
	}
	return len(state.Created)
}

// The relay offers the server's tools as declared, forwards calls, and
// records each with its key, the digest of its other arguments and its
// answer.
func TestRelayForwardsAndRecords(t *testing.T) {
	r, cs := relayed(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(r.Tools()) {
		t.Fatalf("tools/list through the relay: %v, %d tools, want %d", err, len(tools.Tools), len(r.Tools()))
	}
	res, err := createNote(cs, "k1")
	if err != nil || res.IsError {
		t.Fatalf("create_note: %v %v", err, res)
	}
	calls := r.Calls()
	_, hash := keyAndHash(json.RawMessage(`{"text":"hello","request_id":"zz"}`), "request_id")
	if len(calls) != 1 || calls[0].Key != "k1" || calls[0].Hash != hash || calls[0].Status() != 200 || calls[0].ReadOnly || calls[0].Dropped {
		t.Errorf("recorded %+v, want one create_note with key k1, the text's digest, 200, delivered", calls)
	}
}

// FailNext answers the aimed tool's calls itself, the server never
// seeing them: a tool error as a real server's is, its text saying
// whether the call may be made again (and its structured content, the
// tool declaring no outputSchema); the record keeps 503 or 422.
func TestRelayInjectsWithoutTheServer(t *testing.T) {
	for _, c := range []struct {
		status int
		says   string
	}{{http.StatusServiceUnavailable, "may be retried"}, {http.StatusUnprocessableEntity, "do not retry"}} {
		r, cs := relayed(t, 0)
		r.Aim(mcpserver.ToolCreate)
		r.FailNext(1, c.status)
		res, err := createNote(cs, "k1")
		sc, _ := res.StructuredContent.(map[string]any)
		if err != nil || !res.IsError || sc["retryable"] != (c.status >= 500) {
			t.Fatalf("%d: want a tool error saying whether it is retryable, got %v %+v", c.status, err, res)
		}
		if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, c.says) {
			t.Errorf("%d: the tool error says %q, not %q", c.status, text, c.says)
		}
		if n := notes(t, r); n != 0 {
			t.Errorf("the server made %d notes for an injected answer, want 0", n)
		}
		if call := r.Calls()[0]; !call.Injected || call.Status() != c.status {
			t.Errorf("recorded %+v, want injected %d", call, c.status)
		}
	}
}

// An injected answer is one the server could give: structured content
// only where it fits the tool's declared outputSchema (the MCP TypeScript
// SDK throws -32602 on one that does not, once it has listed the tools),
// else its text alone.
func TestInjectedFitsTheDeclaredOutputSchema(t *testing.T) {
	var memory, records any // server-memory's create_entities; a schema that allows the members
	json.Unmarshal([]byte(`{"type":"object","properties":{"entities":{"type":"array"}},"required":["entities"]}`), &memory)
	json.Unmarshal([]byte(`{"type":"object","properties":{"id":{"type":"integer"},"error":{"type":"string"},"retryable":{"type":"boolean"}},"additionalProperties":false}`), &records)
	for _, c := range []struct {
		name       string
		schema     any
		structured bool
	}{{"no outputSchema", nil, true}, {"one that allows them", records, true}, {"one they do not fit", memory, false}} {
		res := injected(http.StatusServiceUnavailable, &sdk.Tool{OutputSchema: c.schema})
		if (res.StructuredContent != nil) != c.structured || !res.IsError || len(res.Content) != 1 {
			t.Errorf("%s: %+v, want structured content %t, and the text", c.name, res, c.structured)
		}
	}
}

// A lost answer: the call runs at the server, the answer is held until
// a restart drops it with the agent's session; the next session works.
func TestRelayLosesAnAnswerOnRestart(t *testing.T) {
	r, cs := relayed(t, 0)
	r.LoseAnswers(true)
	done := make(chan error, 1)
	go func() {
		_, err := createNote(cs, "k1")
		done <- err
	}()
	for i := 0; len(r.Calls()) == 0; i++ {
		if i > int(testLimit/time.Millisecond) {
			t.Fatal("the call never reached the relay")
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	if err := r.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Error("the agent heard an answer the relay dropped")
	}
	if c := r.Calls()[0]; !c.Dropped || c.Status() != 200 {
		t.Errorf("recorded %+v, want the server's 200, dropped", c)
	}
	if n := notes(t, r); n != 1 {
		t.Errorf("the server made %d notes, want the 1 whose answer was lost", n)
	}
	if res, err := createNote(agent(t, r), "k1"); err != nil || res.IsError {
		t.Errorf("a new session after the restart: %v %v", err, res)
	}
}

// A hold nothing releases still ends, at its bound, without an answer.
func TestRelayHoldIsBounded(t *testing.T) {
	r, cs := relayed(t, time.Millisecond)
	r.LoseAnswers(true)
	if res, err := createNote(cs, "k1"); err == nil {
		t.Fatalf("the agent heard %+v through a hold", res)
	}
	if c := r.Calls()[0]; !c.Dropped {
		t.Errorf("recorded %+v, want dropped", c)
	}
}

func TestStatusOfACall(t *testing.T) {
	for _, c := range []struct {
		call Call
		want int
	}{
		{Call{}, 0},
		{Call{Answered: true}, 200},
		{Call{Answered: true, IsError: true, Retryable: true}, 503},
		{Call{Answered: true, IsError: true}, 422},
	} {
		if got := c.call.Status(); got != c.want {
			t.Errorf("%+v: %d, want %d", c.call, got, c.want)
		}
	}
}

// The key is the key argument's value; the digest is of the other
// arguments, whatever their order.
func TestKeyAndHash(t *testing.T) {
	ka, a := keyAndHash(json.RawMessage(`{"a":1,"b":2,"k":"x"}`), "k")
	kb, b := keyAndHash(json.RawMessage(`{"b":2,"k":"y","a":1}`), "k")
	_, c := keyAndHash(json.RawMessage(`{"a":1,"b":3,"k":"x"}`), "k")
	if ka != "x" || kb != "y" || a != b || a == c {
		t.Errorf("keys %q %q, digests %s %s %s: want x, y, the first two equal, the third not", ka, kb, a, b, c)
	}
	if k, _ := keyAndHash(json.RawMessage(`{"k":"x"}`), ""); k != "" {
		t.Errorf("a tool with no key argument: key %q", k)
	}
}
