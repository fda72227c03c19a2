package fakes_test

import (
	"net/http"
	"testing"

	"github.com/idemspec/idemspec/fakes"
)

// Client mode judges a client from the server's log and makes the server
// fail creates on purpose; both are tested here without the harness.
func TestFailNextAnswersWithoutDoingTheWork(t *testing.T) {
	in := start(t, fakes.Options{})
	in.FailNext(2, http.StatusUnprocessableEntity)
	body := `{"marker":"m-fail","amount":1}`
	for i := 0; i < 2; i++ {
		if a := post(t, in.URL, "k1", body); a.status != http.StatusUnprocessableEntity {
			t.Fatalf("create %d: status %d, want 422", i+1, a.status)
		}
	}
	if n := len(items(get(t, in.URL+"/resources?marker=m-fail"))); n != 0 {
		t.Fatalf("%d resources after failed creates, want 0", n)
	}
	if a := get(t, in.URL+"/idempotency-keys/k1"); a.status != http.StatusNotFound {
		t.Fatalf("look-up after failed creates: %d, want 404 (the key was never claimed)", a.status)
	}
	if a := post(t, in.URL, "k1", body); a.status != http.StatusCreated {
		t.Fatalf("third create: %d, want 201 once the failures are spent", a.status)
	}
}

func TestRequestsLogCreatesAndLookups(t *testing.T) {
	in := start(t, fakes.Options{})
	post(t, in.URL, "k2", `{"marker":"m-log","amount":1}`)
	get(t, in.URL+"/idempotency-keys/k2")
	get(t, in.URL+"/idempotency-keys/unknown")
	log := in.Requests()
	want := []struct {
		path   string
		key    string
		status int
	}{{"/resources", "k2", 201}, {"/idempotency-keys/k2", "k2", 200}, {"/idempotency-keys/unknown", "unknown", 404}}
	if len(log) != len(want) {
		t.Fatalf("log %+v, want %d requests", log, len(want))
	}
	for i, w := range want {
		if log[i].Path != w.path || log[i].Key != w.key || log[i].Status != w.status {
			t.Errorf("request %d: %+v, want %+v", i+1, log[i], w)
		}
	}
	if log[0].Hash == "" || len(in.Arrivals()) != 1 {
		t.Errorf("the create has no payload hash, or Arrivals holds look-ups: %+v", in.Arrivals())
	}
}

// Client mode reads a client's resources through the credentials of the
// tenant its creates were filed under, and names the tenant without its
// token.
func TestTenantCredentialsReachTheTokensResources(t *testing.T) {
	in := start(t, fakes.Options{})
	post(t, in.URL, "k3", `{"marker":"m-token","amount":1}`, "Authorization", "Bearer sk-test-123")
	log := in.Requests()
	if len(log) != 1 || log[0].Tenant != "sk-test-123" {
		t.Fatalf("log %+v, want one create filed under the token", log)
	}
	if n := len(items(get(t, in.URL+"/resources?marker=m-token"))); n != 0 {
		t.Fatalf("the public tenant lists %d of the token's resources, want 0", n)
	}
	var creds []string
	for name, vs := range fakes.TenantCredentials(log[0].Tenant) {
		creds = append(creds, name, vs[0])
	}
	if n := len(items(get(t, in.URL+"/resources?marker=m-token", creds...))); n != 1 {
		t.Fatalf("the token's credentials list %d resources, want 1", n)
	}
	if len(fakes.TenantCredentials("public")) != 0 {
		t.Errorf("the public tenant needs no credentials: %v", fakes.TenantCredentials("public"))
	}
	// printf %s sk-test-123 | sha256sum
	if got := fakes.TenantName("sk-test-123"); got != "token sha256:e0dbaa0c" {
		t.Errorf("TenantName = %q", got)
	}
	if got := fakes.TenantName("public"); got != "public" {
		t.Errorf("TenantName(public) = %q", got)
	}
}
