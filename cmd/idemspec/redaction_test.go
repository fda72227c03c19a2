package main_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/idemspec/idemspec/fakes"
)

// TestPlantedSecretNeverWritten plants a token through ${ENV} and a
// literal credential header, against a reference fake that (like many
// real APIs) echoes request details in its answers, and greps every file
// of the report directory and both output streams for them. The secrets
// must reach the harness (the fake sees them, the tenant-scoped oracle
// counts with them) and the report (it holds "[redacted]" where the echo
// was), yet appear nowhere.
func TestPlantedSecretNeverWritten(t *testing.T) {
	long(t)
	t.Parallel()
	token := "tok-" + randomHex(t)
	apiKey := "apikey-" + randomHex(t)
	// The child's environment alone: t.Setenv would keep the test from
	// running beside the matrices.
	env := []string{"IDEMSPEC_PLANTED_TOKEN=" + token}

	server, err := fakes.Open(fakes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	echo := &echoingServer{next: server.Handler()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: echo}
	go srv.Serve(ln)
	defer srv.Close()

	target := writeFile(t, "planted.yaml", fmt.Sprintf(`
name: planted
base_url: http://%s
create:
  path: /resources
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
headers:
  Authorization: "Bearer ${IDEMSPEC_PLANTED_TOKEN}"
  X-Api-Key: %s
oracle:
  list:
    path: /resources?marker={{.Marker}}
    items: items
lookup:
  path: /idempotency-keys/{{.Key}}
`, ln.Addr(), apiKey))
	dir := t.TempDir()
	r := idemspecEnv(t, env, "run", "--target", target, "--report-dir", dir, "-v")
	if r.code != 0 {
		t.Fatalf("exit %d: the reference must pass with the planted headers\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := echo.authorizations(); len(got) != 1 || got[0] != "Bearer "+token {
		t.Fatalf("the fake saw Authorization %q: the planted header was not sent", got)
	}

	outputs := neverWritten(t, dir, r, token, apiKey)
	if !strings.Contains(outputs["report.json"], `\"seen_authorization\":\"[redacted]\"`) ||
		!strings.Contains(outputs["report.json"], `\"seen_api_key\":\"[redacted]\"`) {
		t.Error("report.json holds no redacted echo: the secrets never reached the report, so this test proved nothing")
	}
}

// neverWritten reads every file of the report directory and both output
// streams, checks the four reports and the log were written, and fails
// the test for each secret found in any of them. It returns what it read.
func neverWritten(t *testing.T, dir string, r result, secrets ...string) map[string]string {
	t.Helper()
	outputs := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		outputs[filepath.Base(p)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.json", "junit.xml", "report.md", "report.html", "ginkgo.log"} {
		if _, ok := outputs[f]; !ok {
			t.Errorf("%s was not written", f)
		}
	}
	for name, content := range outputs {
		for _, secret := range secrets {
			if strings.Contains(content, secret) {
				t.Errorf("%s contains the planted secret %q", name, secret)
			}
		}
	}
	return outputs
}

func randomHex(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// echoingServer is the reference fake with one habit of real APIs: its
// create answers echo the caller's credentials.
type echoingServer struct {
	next http.Handler
	mu   sync.Mutex
	seen map[string]bool
}

func (e *echoingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	if e.seen == nil {
		e.seen = map[string]bool{}
	}
	e.seen[r.Header.Get("Authorization")] = true
	e.mu.Unlock()
	if r.Method != http.MethodPost {
		e.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	e.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	var obj map[string]any
	key := r.Header.Get("X-Api-Key")
	if json.Unmarshal(body, &obj) == nil && obj != nil {
		obj["seen_authorization"] = r.Header.Get("Authorization")
		obj["seen_api_key"] = key
		body, _ = json.Marshal(obj)
		// Other encoders' forms: non-ASCII as \uXXXX (Python's default),
		// and URL-encoded in a link.
		body = append(body[:len(body)-1], []byte(`,"seen_ascii":`+strconv.QuoteToASCII(key)+`}`)...)
		rec.Header().Set("Location", "/resources?key="+url.QueryEscape(key))
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	w.Write(bytes.Clone(body))
}

func (e *echoingServer) authorizations() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for a := range e.seen {
		out = append(out, a)
	}
	return out
}
