package targets_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// remote is TEST-NET-1: nothing answers there, and nothing is sent.
const remote = "192.0.2.1"

// targetFile is a target file for base with the reference's create call
// and extra appended.
func targetFile(base, oraclePath, extra string) []byte {
	return file(fmt.Sprintf(`
base_url: %s
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '%s'}}
%s`, base, oraclePath, extra))
}

// Every field that names where idemspec connects obeys base_url's rule:
// a path field must be a path (a URL or //host is a load error), and a
// field that may name an address is refused unless remote targets are
// allowed.
func TestEveryURLFieldObeysTheRemoteRule(t *testing.T) {
	const list = "/r?m={{.Marker}}"
	loadErrors := []struct{ name, oracle, extra, want string }{
		{"absolute oracle.list.path", "http://" + remote + "/r?m={{.Marker}}", "", "t.yaml:3: oracle.list.path: " + `"http://` + remote + `/r?m=idemspec-marker-probe" is a URL`},
		{"scheme-relative oracle.list.path", "//" + remote + "/r?m={{.Marker}}", "", "t.yaml:3: oracle.list.path: " + `"//` + remote + `/r?m=idemspec-marker-probe" names a host`},
		{"lookup.path", list, "lookup: {path: 'http://" + remote + "/k/{{.Key}}'}\n", "t.yaml:4: lookup.path:"},
		{"cleanup.delete.path", list, "cleanup: {delete: {path: '//" + remote + "/r/{{.ID}}'}}\n", "t.yaml:4: cleanup.delete.path:"},
		{"restart.health.path", list, "restart: {command: 'true', health: {path: 'http://" + remote + "/health'}}\n", "t.yaml:4: restart.health.path:"},
		{"process.health.path", list, "process: {command: 'true', health: {path: '//" + remote + "/health'}}\n", "t.yaml:4: process.health.path:"},
		{"setup.path", list, "setup: [{name: parent, path: 'http://" + remote + "/p'}]\n", "t.yaml:4: setup[0].path:"},
	}
	for _, c := range loadErrors {
		t.Run(c.name, func(t *testing.T) {
			_, err := targets.Parse("t.yaml", targetFile("http://127.0.0.1:1", c.oracle, c.extra))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	t.Run("oracle.lookup.path", func(t *testing.T) {
		_, err := targets.Parse("t.yaml", file("base_url: http://127.0.0.1:1\ncreate: {path: /r, body: '{\"m\":\"{{.Marker}}\",\"v\":{{.Variant}}}', id_field: id}\noracle: {lookup: {path: 'https://"+remote+"/r/{{.ID}}'}}\n"))
		if err == nil || !strings.Contains(err.Error(), "t.yaml:3: oracle.lookup.path:") || !strings.Contains(err.Error(), "is a URL") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("oracle.field.path", func(t *testing.T) {
		_, err := targets.Parse("t.yaml", file("base_url: http://127.0.0.1:1\ncreate: {path: /r, body: '{\"m\":\"{{.Marker}}\",\"v\":{{.Variant}}}', id_field: id}\noracle: {field: {path: '//"+remote+"/r/{{.Marker}}', field: n}}\n"))
		if err == nil || !strings.Contains(err.Error(), "t.yaml:3: oracle.field.path:") || !strings.Contains(err.Error(), "names a host") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("create.path", func(t *testing.T) {
		_, err := targets.Parse("t.yaml", file("base_url: http://127.0.0.1:1\ncreate: {path: 'http://"+remote+"/r', body: '{\"m\":\"{{.Marker}}\",\"v\":{{.Variant}}}', id_field: id}\noracle: {list: {path: '/r?m={{.Marker}}'}}\n"))
		if err == nil || !strings.Contains(err.Error(), "t.yaml:2: create.path:") {
			t.Errorf("error %v", err)
		}
	})

	refused := []struct{ name, base, extra, field string }{
		{"base_url", "http://" + remote, "", "base_url"},
		{"instances", "http://127.0.0.1:1", "instances: ['http://" + remote + ":1']\n", "instances[0]"},
		{"restart.http.url", "http://127.0.0.1:1", "restart: {http: {url: 'http://" + remote + "/restart'}}\n", "restart.http.url"},
		{"oracle.sql.dsn", "http://127.0.0.1:1", "", "oracle.sql.dsn"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			data := targetFile(c.base, list, c.extra)
			if c.field == "oracle.sql.dsn" {
				data = file("base_url: http://127.0.0.1:1\ncreate: {path: /r, body: '{\"m\":\"{{.Marker}}\",\"v\":{{.Variant}}}', id_field: id}\noracle: {sql: {driver: postgres, dsn: 'postgres://u@" + remote + ":5432/db', query: 'SELECT 1'}}\n")
			}
			tg, err := targets.Parse("t.yaml", data)
			if err != nil {
				t.Fatal(err)
			}
			err = tg.CheckRemote(false)
			if err == nil || !strings.Contains(err.Error(), c.field+": "+remote+" is not a loopback address") {
				t.Errorf("CheckRemote: %v, want a refusal naming %s", err, c.field)
			}
			if tg.Loopback() {
				t.Error("Loopback() is true")
			}
			if err := tg.CheckRemote(true); err != nil {
				t.Errorf("CheckRemote(allowed): %v", err)
			}
		})
	}
}

// Localhost names never reach DNS: they are dialled on the loopback
// address, whatever a resolver would say. Another name is resolved once
// and every connection goes to the address it resolved to then.
func TestNamesAreResolvedOnceAndPinned(t *testing.T) {
	var paths []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Host+" "+r.URL.Path)
		mu.Unlock()
		fmt.Fprint(w, `[]`)
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	var lookups atomic.Int32
	var answer atomic.Value
	answer.Store(netip.MustParseAddr(remote))
	defer targets.SetLookup(func(_ context.Context, _, host string) ([]netip.Addr, error) {
		lookups.Add(1)
		return []netip.Addr{answer.Load().(netip.Addr)}, nil
	})()

	for _, host := range []string{"idemspec-test.localhost", "localhost.", "LOCALHOST"} {
		tg, err := targets.Parse("t.yaml", targetFile("http://"+host+":"+port, "/r?m={{.Marker}}", ""))
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.CheckRemote(false); err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		if _, err := tg.Oracle.Observe(context.Background(), "m"); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	if n := lookups.Load(); n != 0 {
		t.Errorf("localhost names were looked up %d times", n)
	}

	// A remote name, allowed: looked up once, then pinned even when the
	// resolver would answer otherwise.
	answer.Store(netip.MustParseAddr("127.0.0.1"))
	tg, err := targets.Parse("t.yaml", targetFile("http://api.idemspec.test:"+port, "/r?m={{.Marker}}", "allow_remote: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	tg.CheckRemote(false)
	for i := range 3 {
		if _, err := tg.Oracle.Observe(context.Background(), "m"); err != nil {
			t.Fatalf("observe %d: %v", i, err)
		}
		tg.Direct.CloseIdleConnections()
		answer.Store(netip.MustParseAddr(remote)) // a DNS answer that changed
	}
	if n := lookups.Load(); n != 1 {
		t.Errorf("the remote name was looked up %d times, want once", n)
	}
	if pinned, err := tg.Pinned(context.Background()); err != nil || pinned[0] != "127.0.0.1:"+port {
		t.Errorf("Pinned = %v, %v: want the address resolved first", pinned, err)
	}

	// An address the file does not name is never dialled.
	other, _ := url.Parse(srv.URL)
	other.Host = "127.0.0.2:" + port
	if _, err := tg.Direct.Get(other.String()); err == nil || !strings.Contains(err.Error(), "not an address the target file names") {
		t.Errorf("GET %s: %v, want a refusal", other, err)
	}
}

// A remote address not allowed is refused at the dial too, whoever asks.
func TestDialRefusesARemoteAddressNotAllowed(t *testing.T) {
	tg, err := targets.Parse("t.yaml", targetFile("http://"+remote+":9", "/r?m={{.Marker}}", ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Oracle.Observe(context.Background(), "m"); err == nil || !strings.Contains(err.Error(), "remote targets are not allowed") {
		t.Errorf("Observe: %v, want a refusal", err)
	}
}

// base_url's path prefixes every path of the file; a query in it is an
// error, not silently dropped.
func TestBaseURLPathIsHonoured(t *testing.T) {
	var got []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RequestURI())
		mu.Unlock()
		fmt.Fprint(w, `{"resource_id":"1"}`)
	}))
	defer srv.Close()
	tg, err := targets.Parse("t.yaml", targetFile(srv.URL+"/api/v1/", "/r?m={{.Marker}}", "lookup: {path: 'keys/{{.Key}}'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	req, err := tg.NewCreate(context.Background(), "k", []byte("{}"))
	if err != nil || req.URL.Path != "/api/v1/r" {
		t.Errorf("create goes to %v (%v), want /api/v1/r", req.URL, err)
	}
	tg.Oracle.Observe(context.Background(), "m1")
	tg.LookupKey(context.Background(), "k1")
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, " ") != "/api/v1/r?m=m1 /api/v1/keys/k1" {
		t.Errorf("the server saw %q, want the oracle and the look-up under /api/v1", got)
	}
	for _, bad := range []string{srv.URL + "/api?tenant=a", srv.URL + "/api#x"} {
		if _, err := targets.Parse("t.yaml", targetFile(bad, "/r?m={{.Marker}}", "")); err == nil || !strings.Contains(err.Error(), "t.yaml:1: base_url:") {
			t.Errorf("%s: error %v, want one naming base_url", bad, err)
		}
	}
}
