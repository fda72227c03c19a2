package fakes_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/internal/testenv"
)

// A hold stops exactly the request it matches: after the work, a drop
// loses the answer of a committed create; on arrival, a drop leaves the
// server untouched and logs the request as dropped. Nothing else waits.
func TestHoldsAimAtOneRequest(t *testing.T) {
	in := start(t, fakes.Options{})
	after := in.Hold(fakes.Hold{Method: http.MethodPost, Path: "/resources", After: true})
	got := make(chan error, 1)
	go func() {
		_, err := client.Do(mustRequest(t, http.MethodPost, in.URL+"/resources", "k-held", `{"marker":"m-hold"}`))
		got <- err
	}()
	select {
	case <-after.Arrived():
	case <-time.After(testenv.WaitLimit):
		t.Fatal("the held create never arrived")
	}
	// The hold is spent: another create is not held.
	if a := post(t, in.URL, "k-free", `{"marker":"m-free"}`); a.status != http.StatusCreated {
		t.Fatalf("an unheld create: %d", a.status)
	}
	after.Release(false)
	if err := <-got; err == nil {
		t.Fatal("the dropped answer reached the client")
	}
	if n := len(items(get(t, in.URL+"/resources?marker=m-hold"))); n != 1 {
		t.Fatalf("%d resources after a create whose answer was lost, want 1", n)
	}
	log := in.Requests()
	if i := after.Index(); i < 0 || log[i].Key != "k-held" || log[i].Status != http.StatusCreated || log[i].Dropped {
		t.Fatalf("the held request's log entry %d: %+v", i, log)
	}

	arrival := in.Hold(fakes.Hold{Method: http.MethodPost, Path: "/resources/*/events"})
	parent := post(t, in.URL, "k-parent", `{"marker":"m-parent"}`).body["id"].(string)
	go func() {
		_, err := client.Do(mustRequest(t, http.MethodPost, in.URL+"/resources/"+parent+"/events", "k-event", `{"marker":"m-event"}`))
		got <- err
	}()
	<-arrival.Arrived()
	arrival.Release(false)
	if err := <-got; err == nil {
		t.Fatal("a request dropped on arrival was answered")
	}
	if a := get(t, in.URL+"/idempotency-keys/k-event"); a.status != http.StatusNotFound {
		t.Fatalf("the dropped request's key is known (%d): it ran", a.status)
	}
	log = in.Requests()
	if e := log[arrival.Index()]; !e.Dropped || e.Key != "k-event" || e.Method != http.MethodPost {
		t.Fatalf("the dropped request's log entry: %+v", e)
	}

	// Released before anything reached it, a hold is disarmed.
	unused := in.Hold(fakes.Hold{Method: http.MethodPost, Path: "/resources"})
	unused.Release(false)
	if a := post(t, in.URL, "k-after", `{"marker":"m-after"}`); a.status != http.StatusCreated {
		t.Fatalf("a create after a disarmed hold: %d", a.status)
	}
}

func mustRequest(t *testing.T, method, url, key, body string) *http.Request {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Idempotency-Key", key)
	return req
}

// The job's upload is idempotent by its path; the census counts every
// tenant's resources and events carrying a marker.
func TestUploadByPathAndCensus(t *testing.T) {
	in := start(t, fakes.Options{})
	put := func(body string) int {
		req, _ := http.NewRequest(http.MethodPut, in.URL+"/uploads/m-job/cover.png", strings.NewReader(body))
		return do(t, req).status
	}
	if s := put("a"); s != http.StatusCreated {
		t.Fatalf("first upload: %d, want 201", s)
	}
	if s := put("a"); s != http.StatusOK {
		t.Fatalf("the same upload again: %d, want 200", s)
	}
	record := post(t, in.URL, "k-r", `{"marker":"m-job"}`, "Authorization", "Bearer sk-one").body["id"].(string)
	post(t, in.URL, "k-l", `{"marker":"m-job"}`) // another tenant's
	req := mustRequest(t, http.MethodPost, in.URL+"/resources/"+record+"/events", "k-e", `{"marker":"m-job"}`)
	req.Header.Set("Authorization", "Bearer sk-one")
	do(t, req)
	owned, err := in.Census(t.Context(), "m-job")
	if err != nil || len(owned) != 3 {
		t.Fatalf("census: %+v, %v; want two resources and an event", owned, err)
	}
	if owned[0].ID != record || owned[0].Tenant != "sk-one" || owned[2].Parent != record {
		t.Errorf("census: %+v", owned)
	}
	if a := get(t, in.URL+"/resources/"+owned[2].ID); a.status != http.StatusOK || a.body["resource_id"] != record {
		t.Errorf("the read of the event: %d %v", a.status, a.body)
	}
	var kinds []string
	for _, r := range in.Requests() {
		kinds = append(kinds, r.Method+" "+strings.SplitN(strings.TrimPrefix(r.Path, "/"), "/", 2)[0])
	}
	if want := "PUT uploads,PUT uploads,POST resources,POST resources,POST resources,GET resources"; strings.Join(kinds, ",") != want {
		t.Errorf("log: %s, want %s", strings.Join(kinds, ","), want)
	}
}

// A held request whose client gave up (its own timeout closed the
// connection) says so: a kill aimed inside that request would land
// after the client stopped waiting. While the client waits, it does not.
func TestHoldSeesAClientGiveUp(t *testing.T) {
	for _, after := range []bool{false, true} {
		in := start(t, fakes.Options{})
		h := in.Hold(fakes.Hold{Method: http.MethodPost, Path: "/resources", After: after})
		quit := make(chan struct{})
		got := make(chan error, 1)
		go func() {
			req := mustRequest(t, http.MethodPost, in.URL+"/resources", "k-gave-up", `{"marker":"m-gave-up"}`)
			ctx, cancel := context.WithCancel(req.Context())
			go func() { <-quit; cancel() }()
			_, err := client.Do(req.WithContext(ctx))
			got <- err
		}()
		select {
		case <-h.Arrived():
		case <-time.After(testenv.WaitLimit):
			t.Fatal("the held create never arrived")
		}
		if h.ClientGaveUp() {
			t.Fatalf("after=%v: a client still waiting counted as given up", after)
		}
		close(quit) // the client's timeout
		<-got
		testenv.WaitFor(t, fmt.Sprintf("after=%v: the hold saw the client close its request", after), h.ClientGaveUp)
		h.Release(false)
	}
}

// A drop is in the log, in its place, when Release returns: the harness
// notes where the program's next run begins in the log right after it,
// and a drop logged late would be charged to that run (a W2 trial once
// judged the killed run's request as the restarted run's, and passed a
// resend with a fresh key). Repeated, because only a late-scheduled
// handler shows it.
func TestHoldDropIsLoggedWhenReleaseReturns(t *testing.T) {
	in := start(t, fakes.Options{})
	parent := post(t, in.URL, "k-parent", `{"marker":"m-parent"}`).body["id"].(string)
	for i := range 30 {
		for _, after := range []bool{false, true} {
			h := in.Hold(fakes.Hold{Method: http.MethodPost, Path: "/resources/*/events", After: after})
			key := fmt.Sprintf("k-event-%d-%v", i, after)
			got := make(chan error, 1)
			go func() {
				_, err := client.Do(mustRequest(t, http.MethodPost, in.URL+"/resources/"+parent+"/events", key, `{"marker":"m-event"}`))
				got <- err
			}()
			select {
			case <-h.Arrived():
			case <-time.After(testenv.WaitLimit):
				t.Fatal("the held request never arrived")
			}
			h.Release(false)
			log := in.Requests()
			i := h.Index()
			if i < 0 || i >= len(log) || log[i].Key != key || log[i].Dropped == after {
				t.Fatalf("after=%v: when Release returned, the held request was not in its place in the log (index %d of %d entries)", after, i, len(log))
			}
			if err := <-got; err == nil {
				t.Fatalf("after=%v: the dropped request was answered", after)
			}
		}
	}
}
