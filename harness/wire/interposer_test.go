package wire_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/wire"
	"github.com/idemspec/idemspec/targets"
)

// api is a fake API: it counts the creates it ran and answers each with
// a new id.
type api struct {
	srv  *httptest.Server
	runs atomic.Int64
}

func newAPI(t *testing.T) *api {
	a := &api{}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/charges":
			n := a.runs.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"charge":{"id":"ch_%d"}}`, n)
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusNotFound)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func keyInHeader(r *http.Request, body []byte) (string, []byte, bool) {
	k := r.Header.Get("Idempotency-Key")
	return k, body, k != ""
}

func start(t *testing.T, a *api, cfg wire.Config) *wire.Interposer {
	t.Helper()
	base, _ := url.Parse(a.srv.URL + "/v1")
	cfg.Base = base
	cfg.Operations = []wire.Operation{
		{Name: "charge", Kind: wire.Create, Path: "/charges", KeyOf: keyInHeader, IDOf: func(b []byte) string { return targets.ResourceIDOf(b, "charge.id") }},
		{Name: "charge", Kind: wire.Lookup, Method: http.MethodGet, Path: "/idempotency-keys/{{.Key}}"},
	}
	ip, err := wire.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ip.Close() })
	return ip
}

// program sends one request as a program would: a fresh connection, a
// generous timeout of its own (which closedAtOnce tells apart from a
// closed connection).
func program(t *testing.T, ctx context.Context, method, u, key, body string) (*http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := c.Do(req)
	if err == nil {
		io.ReadAll(res.Body)
		res.Body.Close()
	}
	return res, err
}

func TestForwardsAndRecordsEveryExchange(t *testing.T) {
	a := newAPI(t)
	ip := start(t, a, wire.Config{})
	res, err := program(t, context.Background(), http.MethodPost, ip.URL()+"/charges", "k-1", `{"amount":1}`)
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", res, err)
	}
	if _, err := program(t, context.Background(), http.MethodGet, ip.URL()+"/idempotency-keys/k-1", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := program(t, context.Background(), http.MethodGet, ip.URL()+"/balance", "", ""); err != nil {
		t.Fatal(err)
	}
	xs := ip.Record().Exchanges()
	if len(xs) != 3 {
		t.Fatalf("recorded %d exchanges, want 3: %+v", len(xs), xs)
	}
	c := xs[0]
	if c.Operation != "charge" || c.Kind != wire.Create || c.Ordinal != 1 || c.Key != "k-1" || !c.KeyFound || c.Status != 201 ||
		c.AnsweredBy != wire.AnsweredByAPI || !c.Delivered || !c.Forwarded || c.ResourceID != "ch_1" || string(c.Body) != `{"amount":1}` || !c.Done {
		t.Errorf("the create's exchange: %+v", c)
	}
	if xs[1].Kind != wire.Lookup || xs[1].Status != 404 {
		t.Errorf("the look-up's exchange: %+v", xs[1])
	}
	if xs[2].Operation != "" || xs[2].Kind != "" || xs[2].Path != "/v1/balance" {
		t.Errorf("an unmatched request: %+v", xs[2])
	}
	if ids := ip.Record().CreatedIDs("charge"); len(ids) != 1 || ids[0] != "ch_1" {
		t.Errorf("CreatedIDs = %v", ids)
	}
}

// closedAtOnce fails when the program's request ended by its own timeout:
// a dropped answer must close its connection at once.
func closedAtOnce(t *testing.T, err error) {
	t.Helper()
	var ne net.Error
	if err == nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		t.Fatalf("the program's request ended with %v; want its connection closed", err)
	}
}

func TestLoseAnswerRunsTheCreateAndClosesTheConnection(t *testing.T) {
	a := newAPI(t)
	ip := start(t, a, wire.Config{})
	armed := ip.Arm(wire.Aim{Operation: "charge", Fault: wire.LoseAnswer})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := program(t, ctx, http.MethodPost, ip.URL()+"/charges", "k-1", `{}`)
	closedAtOnce(t, err)
	select {
	case <-armed.Reached():
	default:
		t.Error("the aim was not marked reached")
	}
	if _, err := program(t, ctx, http.MethodPost, ip.URL()+"/charges", "k-1", `{}`); err != nil {
		t.Fatalf("the second create (the aim reaches only the first): %v", err)
	}
	if a.runs.Load() != 2 {
		t.Errorf("the API ran %d creates, want 2", a.runs.Load())
	}
	x := ip.Record().Exchanges()[0]
	if x.Status != 201 || x.AnsweredBy != wire.AnsweredByAPI || x.Delivered || x.ResourceID != "ch_1" || x.Fault == "" {
		t.Errorf("the lost answer's exchange: %+v", x)
	}
	if ids := ip.Record().CreatedIDs("charge"); len(ids) != 2 {
		t.Errorf("CreatedIDs counts dropped answers too: %v", ids)
	}
}

func TestOwnAnswersAreNotForwarded(t *testing.T) {
	for _, f := range []wire.Fault{wire.Unavailable, wire.Unprocessable, {Respond: 503, RetryAfter: "1"}} {
		t.Run(f.Name(), func(t *testing.T) {
			a := newAPI(t)
			ip := start(t, a, wire.Config{})
			ip.Arm(wire.Aim{Operation: "charge", Count: wire.Every, Fault: f})
			for range 2 {
				res, err := program(t, context.Background(), http.MethodPost, ip.URL()+"/charges", "k", `{}`)
				if err != nil || res.StatusCode != f.Respond || res.Header.Get("Retry-After") != f.RetryAfter {
					t.Fatalf("answer %v %v; want %d with Retry-After %q", res, err, f.Respond, f.RetryAfter)
				}
			}
			if a.runs.Load() != 0 {
				t.Errorf("the API ran %d creates, want none", a.runs.Load())
			}
			for _, x := range ip.Record().Exchanges() {
				if x.Forwarded || x.AnsweredBy != wire.AnsweredByIdemspec || !x.Delivered {
					t.Errorf("exchange %+v", x)
				}
			}
		})
	}
}

func TestAimReachesTheOrdinalItNames(t *testing.T) {
	a := newAPI(t)
	ip := start(t, a, wire.Config{})
	ip.Arm(wire.Aim{Operation: "charge", First: 2, Fault: wire.Unprocessable})
	var got []int
	for range 3 {
		res, err := program(t, context.Background(), http.MethodPost, ip.URL()+"/charges", "k", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res.StatusCode)
	}
	if fmt.Sprint(got) != "[201 422 201]" {
		t.Errorf("statuses %v, want the second create refused only", got)
	}
}

func TestHoldReleasedUnrunOrRun(t *testing.T) {
	for _, run := range []bool{false, true} {
		t.Run(fmt.Sprintf("run=%v", run), func(t *testing.T) {
			a := newAPI(t)
			ip := start(t, a, wire.Config{})
			armed := ip.Arm(wire.Aim{Operation: "charge", Fault: wire.Fault{Hold: true, Drop: true}})
			done := charge(t, context.Background(), ip)
			<-armed.Reached()
			if a.runs.Load() != 0 {
				t.Fatal("a held request reached the API")
			}
			armed.Release(run)
			closedAtOnce(t, <-done)
			want := int64(0)
			if run {
				want = 1
			}
			if a.runs.Load() != want {
				t.Errorf("the API ran %d creates, want %d", a.runs.Load(), want)
			}
			if x := ip.Record().Exchanges()[0]; x.Forwarded != run || x.Delivered {
				t.Errorf("exchange %+v", x)
			}
		})
	}
}

func TestHoldEndsAtItsLimit(t *testing.T) {
	a := newAPI(t)
	ip := start(t, a, wire.Config{HoldLimit: time.Millisecond})
	ip.Arm(wire.Aim{Operation: "charge", Fault: wire.Fault{Hold: true}})
	_, err := program(t, context.Background(), http.MethodPost, ip.URL()+"/charges", "k", `{}`)
	closedAtOnce(t, err)
	if a.runs.Load() != 0 {
		t.Error("a hold never released ran the request")
	}
}

func TestBlackholeSwallowsUntilTheProgramGivesUp(t *testing.T) {
	a := newAPI(t)
	ip := start(t, a, wire.Config{})
	armed := ip.Arm(wire.Aim{Operation: "charge", Fault: wire.Blackhole})
	ctx, cancel := context.WithCancel(context.Background())
	done := charge(t, ctx, ip)
	<-armed.Reached()
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a blackholed request was answered")
	}
	if _, err := ip.Record().Await(bounded(t), 0, func(x wire.Exchange) bool { return x.Done }); err != nil {
		t.Fatal(err)
	}
	if x := ip.Record().Exchanges()[0]; x.Forwarded || x.Status != 0 || x.Delivered {
		t.Errorf("exchange %+v", x)
	}
}

func TestCloseEndsHolds(t *testing.T) {
	a := newAPI(t)
	ip := start(t, a, wire.Config{})
	armed := ip.Arm(wire.Aim{Operation: "charge", Fault: wire.Fault{Hold: true}})
	done := charge(t, context.Background(), ip)
	<-armed.Reached()
	ip.Close()
	if err := <-done; err == nil {
		t.Fatal("a request held when the interposer closed was answered")
	}
}

// A program killed while its request is held gives up; idemspec may
// still let the request run (the API runs it, nobody hears), and the
// record says both.
func TestHeldRequestOutlivesTheProgram(t *testing.T) {
	a := newAPI(t)
	ip := start(t, a, wire.Config{})
	armed := ip.Arm(wire.Aim{Operation: "charge", Fault: wire.Fault{Hold: true, Drop: true}})
	ctx, kill := context.WithCancel(context.Background())
	done := charge(t, ctx, ip)
	<-armed.Reached()
	if armed.First() != 1 {
		t.Errorf("First = %d, want the first exchange", armed.First())
	}
	kill()
	<-done
	if _, err := ip.Record().Await(bounded(t), 0, func(x wire.Exchange) bool { return x.GaveUp }); err != nil {
		t.Fatal(err)
	}
	armed.Release(true)
	x, err := ip.Record().Await(bounded(t), 0, func(x wire.Exchange) bool { return x.Done })
	if err != nil {
		t.Fatal(err)
	}
	if !x.Forwarded || x.Status != 201 || x.Delivered || a.runs.Load() != 1 {
		t.Errorf("exchange %+v, API runs %d", x, a.runs.Load())
	}
}

// bounded is a context for a wait in a test: a hang fails the test
// rather than holding the package up.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// charge sends one create from a goroutine, as a program waiting on a
// held request: the channel gets its error.
func charge(t *testing.T, ctx context.Context, ip *wire.Interposer) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := program(t, ctx, http.MethodPost, ip.URL()+"/charges", "k", `{}`)
		done <- err
	}()
	return done
}
