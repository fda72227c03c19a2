package targets_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/targets"
)

// file trims the leading newline of a raw string, so a target file in a
// test starts on line 1 of its own text.
func file(s string) []byte { return []byte(strings.TrimPrefix(s, "\n")) }

// unsetenv makes sure name is not set for this test and restores it after.
func unsetenv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	os.Unsetenv(name)
}

func TestParseFullFile(t *testing.T) {
	t.Setenv("IDEMSPEC_TEST_TOKEN", "s3cret-token")
	tg, err := targets.Parse("payments.yaml", file(`
name: payments
base_url: https://api.example.com/v1/
create:
  path: payments
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: data.id
headers:
  Authorization: Bearer ${IDEMSPEC_TEST_TOKEN}
oracle:
  list:
    path: /payments?marker={{.Marker}}
    items: data
    marker_field: marker
lookup:
  path: /idempotency-keys/{{.Key}}
volatile_fields: [created_at, meta.request_id]
`))
	if err != nil {
		t.Fatal(err)
	}
	if tg.Name != "payments" || tg.Source != "payments.yaml" {
		t.Errorf("name %q, source %q", tg.Name, tg.Source)
	}
	if got := tg.BaseURL.String(); got != "https://api.example.com/v1/" {
		t.Errorf("BaseURL %q", got)
	}
	if got := tg.Upstream(); got != "api.example.com:443" {
		t.Errorf("Upstream %q, want api.example.com:443", got)
	}
	c := tg.Create
	if c.Method != http.MethodPost || c.Path != "payments" || c.ContentType != "application/json" || c.IDField != "data.id" {
		t.Errorf("Create = %+v, want method POST (default), path payments, content type application/json (default), id field data.id", c)
	}
	body, err := tg.Body(targets.Payload{Marker: "m1", Variant: "7"})
	if err != nil || string(body) != `{"marker":"m1","amount":7}` {
		t.Errorf("Body = %q, %v", body, err)
	}
	if tg.Key != (targets.Key{In: "header", Name: "Idempotency-Key", Format: "uuid", Required: true}) {
		t.Errorf("Key = %+v, want the defaults Idempotency-Key / uuid / required (ietf)", tg.Key)
	}
	if tg.FailTrigger != nil {
		t.Errorf("FailTrigger = %+v, want none unless the file declares one", tg.FailTrigger)
	}
	if tg.Profile.Name != "ietf" || tg.Profile.Mismatch != 422 || tg.Profile.InFlight != 409 || tg.Profile.MissingKey != 400 {
		t.Errorf("Profile = %+v, want the ietf default", tg.Profile)
	}
	if tg.InProgressTimeout != 30*time.Second {
		t.Errorf("InProgressTimeout = %v, want the 30s default", tg.InProgressTimeout)
	}
	if !slices.Equal(tg.Volatile, []string{"created_at", "meta.request_id"}) {
		t.Errorf("Volatile = %v", tg.Volatile)
	}
	if tg.LookupPath != "/idempotency-keys/{{.Key}}" || tg.LookupIDField != "resource_id" {
		t.Errorf("LookupPath = %q, LookupIDField = %q (default resource_id)", tg.LookupPath, tg.LookupIDField)
	}
	if tg.Reconcile != targets.ReconcileLookup {
		t.Errorf("Reconcile = %q, want lookup when a lookup is declared", tg.Reconcile)
	}
	if got := tg.Headers.Get("Authorization"); got != "Bearer s3cret-token" {
		t.Errorf("Authorization header %q, want the expanded token", got)
	}
	o, ok := tg.Oracle.(*targets.ListOracle)
	if !ok {
		t.Fatalf("Oracle is a %T, want *targets.ListOracle", tg.Oracle)
	}
	if o.Kind() != "list" || o.Items != "data" || o.IDField != "data.id" || o.MarkerField != "marker" {
		t.Errorf("ListOracle = %+v; its id field defaults to create.id_field", o)
	}
	if tg.Lifecycle != nil || tg.Direct == nil {
		t.Errorf("a file target has no lifecycle (%v) and a direct client (%v)", tg.Lifecycle, tg.Direct)
	}
}

func TestParseExplicitSettings(t *testing.T) {
	tg, err := targets.Parse("t.yaml", file(`
base_url: http://localhost:8080
create:
  method: put
  path: /things
  body: '<thing marker="{{ .Marker }}" amount="{{.Variant}}"/>'
  content_type: application/xml
  id_field: id
key:
  header: X-Request-Key
  format: uuid
oracle:
  list:
    path: /things?marker={{.Marker}}
    id_field: thing_id
profile: ietf
in_progress_timeout: 2m
`))
	if err != nil {
		t.Fatal(err)
	}
	if tg.Name != "localhost:8080" {
		t.Errorf("Name %q, want the host when the file names none", tg.Name)
	}
	if tg.Create.Method != http.MethodPut || tg.Create.ContentType != "application/xml" {
		t.Errorf("Create = %+v", tg.Create)
	}
	if tg.Key.Name != "X-Request-Key" {
		t.Errorf("Key = %+v", tg.Key)
	}
	if tg.InProgressTimeout != 2*time.Minute {
		t.Errorf("InProgressTimeout = %v", tg.InProgressTimeout)
	}
	if got := tg.Oracle.(*targets.ListOracle).IDField; got != "thing_id" {
		t.Errorf("oracle id field %q", got)
	}
	if tg.Reconcile != targets.ReconcileNone {
		t.Errorf("Reconcile = %q, want none without a lookup", tg.Reconcile)
	}
	if got := tg.Upstream(); got != "localhost:8080" {
		t.Errorf("Upstream %q", got)
	}
}

func TestParseJSONFile(t *testing.T) {
	tg, err := targets.Parse("t.json", []byte(`{"base_url":"http://127.0.0.1:9000","create":{"path":"/r","body":"{\"m\":\"{{.Marker}}\",\"v\":{{.Variant}}}","id_field":"id"},"oracle":{"list":{"path":"/r?m={{.Marker}}"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if tg.Upstream() != "127.0.0.1:9000" || tg.Create.Path != "/r" {
		t.Errorf("parsed %+v", tg)
	}
}

// parseErrorsBase is the valid file each TestParseErrors row changes,
// line by line:
//
//	1 base_url: http://localhost:8080
//	2 create:
//	3   path: /things
//	4   body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
//	5   id_field: id
//	6 oracle:
//	7   list:
//	8     path: /things?marker={{.Marker}}
var parseErrorsBase = []string{
	"base_url: http://localhost:8080",
	"create:",
	"  path: /things",
	`  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'`,
	"  id_field: id",
	"oracle:",
	"  list:",
	"    path: /things?marker={{.Marker}}",
}

// change is one row's edit of parseErrorsBase: its lines from..to (from
// 1) become with's lines; no with removes them, to = from-1 inserts
// before from, and from past the last line appends.
type change struct {
	from, to int
	with     []string
}

func (c change) apply(base []string) string {
	lines := slices.Concat(base[:c.from-1], c.with, base[c.to:])
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func replaceLine(n int, with string) change            { return change{n, n, []string{with}} }
func replaceLines(from, to int, with ...string) change { return change{from, to, with} }
func deleteLines(from, to int) change                  { return change{from, to, nil} }
func insertBefore(n int, with ...string) change        { return change{n, n - 1, with} }
func appendLines(with ...string) change {
	return change{len(parseErrorsBase) + 1, len(parseErrorsBase), with}
}

func TestParseErrors(t *testing.T) {
	unsetenv(t, "IDEMSPEC_TEST_UNSET")
	last := len(parseErrorsBase)
	tests := []struct {
		name   string
		change change
		want   []string // fragments of the error
		not    []string // must not appear
	}{
		{"misspelled top-level field", replaceLine(1, "bsae_url: http://localhost:8080"),
			[]string{`t.yaml:1: bsae_url: unknown field (did you mean "base_url"?)`}, nil},
		{"misspelled nested field", replaceLine(4, `  bdy: '{"marker":"{{.Marker}}"}'`),
			[]string{`t.yaml:4: create.bdy: unknown field (did you mean "body"?)`}, nil},
		{"misspelled deep field", replaceLine(8, "    pth: /things?marker={{.Marker}}"),
			[]string{`t.yaml:8: oracle.list.pth: unknown field (did you mean "path"?)`}, nil},
		{"unknown field with nothing close", replaceLines(2, last, "colour: red"),
			[]string{"t.yaml:2: colour: unknown field"}, []string{"did you mean"}},
		{"missing base_url", deleteLines(1, 1), []string{"t.yaml:1: base_url: missing required field"}, nil},
		{"missing create", deleteLines(2, 5), []string{"t.yaml:1: create: missing required field"}, nil},
		// A mapping missing a field is named at its first line.
		{"missing create.path", deleteLines(3, 3), []string{"t.yaml:3: create.path: missing required field"}, nil},
		{"missing create.body", deleteLines(4, 4), []string{"t.yaml:3: create.body: missing required field"}, nil},
		{"missing create.id_field", deleteLines(5, 5), []string{"t.yaml:3: create.id_field: missing required field"}, nil},
		{"empty create", replaceLines(2, 5, "create:"), []string{"t.yaml:2: create.body: missing required field"}, nil},
		{"missing oracle", deleteLines(6, last), []string{"t.yaml:1: oracle: missing required field"}, nil},
		{"empty oracle", deleteLines(7, last), []string{"t.yaml:6: oracle: give exactly one of list, lookup, sql, command, field, wire (found 0)"}, nil},
		{"oracle as an empty mapping", replaceLines(6, last, "oracle: {}"),
			[]string{"t.yaml:6: oracle: give exactly one of list, lookup, sql, command, field, wire (found 0)"}, nil},
		{"empty oracle.list", deleteLines(8, 8), []string{"t.yaml:7: oracle.list.path: missing required field"}, nil},
		{"missing oracle.list.path", replaceLine(8, "    items: data"), []string{"t.yaml:8: oracle.list.path: missing required field"}, nil},
		{"a list where a mapping belongs", replaceLines(2, 5, "create: [1]"), []string{"t.yaml:2: create: expected a mapping of fields"}, nil},
		{"a number where a list belongs", appendLines("volatile_fields: 3"), []string{"t.yaml:9: volatile_fields: cannot unmarshal"}, nil},
		{"a list where a string belongs", insertBefore(6, "key:", "  header: [X-Key]"), []string{"t.yaml:7: key.header: cannot unmarshal"}, nil},
		{"a block list where a mapping of headers belongs", appendLines("headers:", "  - Authorization"),
			[]string{"t.yaml:10: headers: expected a mapping of names to values"}, nil},
		{"body without the marker", replaceLine(4, `  body: '{"amount":{{.Variant}}}'`), []string{"t.yaml:4: create.body: must contain {{.Marker}}"}, nil},
		{"body mentioning the marker only in text", replaceLine(4, `  body: '{"note":"{{"{{.Marker}}"}}"}'`),
			[]string{"t.yaml:4: create.body: must contain {{.Marker}}"}, nil},
		{"body not a template", replaceLine(4, `  body: '{"marker":"{{.Marker}"}'`), []string{"t.yaml:4: create.body: not a valid template"}, nil},
		{"body naming an unknown payload field", replaceLine(4, `  body: '{"marker":"{{.Marker}}","who":"{{.Tenant}}"}'`),
			[]string{"t.yaml:4: create.body:", "Tenant"}, nil},
		{"base_url with another scheme", replaceLine(1, "base_url: ftp://example.com"),
			[]string{`t.yaml:1: base_url: "ftp://example.com" is not an http:// or https:// URL`}, nil},
		{"base_url without a scheme", replaceLine(1, "base_url: example.com/api"),
			[]string{`t.yaml:1: base_url: "example.com/api" is not an http:// or https:// URL`}, nil},
		{"unknown profile", appendLines("profile: paypal"),
			[]string{`t.yaml:9: profile: unknown profile "paypal" (known: brandur, ietf, powertools, stripe)`}, nil},
		{"unknown key format", insertBefore(6, "key:", "  format: ulid"),
			[]string{`t.yaml:7: key.format: unknown format "ulid" (known: uuid, pattern)`}, nil},
		{"in_progress_timeout not a duration", appendLines("in_progress_timeout: soon"),
			[]string{`t.yaml:9: in_progress_timeout: "soon" is not a positive duration`}, nil},
		{"in_progress_timeout not positive", appendLines("in_progress_timeout: -5s"),
			[]string{`t.yaml:9: in_progress_timeout: "-5s" is not a positive duration`}, nil},
		// Added to --request-timeout and doubled, 2562047h wrapped negative.
		{"in_progress_timeout past a year", appendLines("in_progress_timeout: 2562047h"),
			[]string{`t.yaml:9: in_progress_timeout: 2562047h0m0s is longer than 8760h0m0s: idemspec adds it to its request timeout, and the sum would overflow`}, nil},
		{"oracle path not a template", replaceLine(8, "    path: /things?marker={{.Marker"), []string{"t.yaml:8: oracle.list.path: not a valid template"}, nil},
		{"unset variable in a header", appendLines("headers:", "  Accept: application/json", "  Authorization: Bearer ${IDEMSPEC_TEST_UNSET}"),
			[]string{`t.yaml:11: headers.Authorization: environment variable "IDEMSPEC_TEST_UNSET" is not set`}, nil},
		{"unset variable in base_url", replaceLine(1, "base_url: ${IDEMSPEC_TEST_UNSET}"),
			[]string{`t.yaml:1: base_url: environment variable "IDEMSPEC_TEST_UNSET" is not set`}, nil},
		{"unclosed variable", appendLines("headers:", "  Authorization: Bearer ${IDEMSPEC_TEST_UNSET"),
			[]string{"t.yaml:10: headers.Authorization: unclosed ${"}, nil},
		{"reconcile by lookup without a lookup", appendLines("reconcile: lookup"), []string{"t.yaml:9: reconcile: lookup needs a lookup.path"}, nil},
		{"unknown reconcile", appendLines("reconcile: ask"), []string{`t.yaml:9: reconcile: unknown "ask" (known: lookup, oracle, none)`}, nil},
		{"lookup path without the key", appendLines("lookup:", "  path: /keys/current"), []string{"t.yaml:10: lookup.path: must contain {{.Key}}"}, nil},
		{"lookup path not a template", appendLines("lookup:", "  path: /keys/{{.Key"), []string{"t.yaml:10: lookup.path: not a valid template"}, nil},
		{"not YAML", replaceLines(1, last, "base_url: [http://localhost"), []string{"t.yaml: "}, nil},
		{"not a mapping", replaceLines(1, last, "- base_url", "- create"), []string{"t.yaml:1: a target file is a YAML mapping"}, nil},
		{"empty", deleteLines(1, last), []string{"t.yaml:1: a target file is a YAML mapping"}, nil},
	}
	if _, err := targets.Parse("t.yaml", []byte(change{1, 0, nil}.apply(parseErrorsBase))); err != nil {
		t.Fatalf("the base file: %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := targets.Parse("t.yaml", []byte(tc.change.apply(parseErrorsBase)))
			if err == nil {
				t.Fatalf("parsed %+v, want an error", tg)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error %q contains %q", err, n)
				}
			}
		})
	}
}

func TestParseSecrets(t *testing.T) {
	t.Setenv("IDEMSPEC_TEST_TOKEN", "s3cret-token")
	t.Setenv("IDEMSPEC_TEST_TENANT", "acme-4242")
	tg, err := targets.Parse("t.yaml", file(`
base_url: http://localhost:8080
create:
  path: /things
  body: '{"marker":"{{.Marker}}","price":"${{.Variant}}"}'
  id_field: id
oracle:
  list:
    path: /things?marker={{.Marker}}
headers:
  Authorization: Bearer ${IDEMSPEC_TEST_TOKEN}
  X-Tenant: ${IDEMSPEC_TEST_TENANT}-eu
  X-Plain: $HOME
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"Authorization": "Bearer s3cret-token",
		"X-Tenant":      "acme-4242-eu",
		"X-Plain":       "$HOME", // a bare $ is left alone
	} {
		if got := tg.Headers.Get(name); got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
	for _, s := range []string{"s3cret-token", "acme-4242"} {
		if !slices.Contains(tg.Secrets, s) {
			t.Errorf("Secrets %q lack the expanded value %q", tg.Secrets, s)
		}
	}
	if got := tg.Redact("Authorization: Bearer s3cret-token, tenant acme-4242"); got != "Authorization: [redacted], tenant [redacted]" {
		t.Errorf("Redact = %q", got)
	}
	if body, _ := tg.Body(targets.Payload{Marker: "m", Variant: "5"}); string(body) != `{"marker":"m","price":"$5"}` {
		t.Errorf("body %q: a body is not env-expanded", body)
	}
}

func TestParseErrorRedactsSecrets(t *testing.T) {
	t.Setenv("IDEMSPEC_TEST_TOKEN", "s3cret-token")
	_, err := targets.Parse("t.yaml", file(`
base_url: ftp://user:${IDEMSPEC_TEST_TOKEN}@example.com`+things))
	if err == nil {
		t.Fatal("want an error for an ftp base_url")
	}
	if strings.Contains(err.Error(), "s3cret-token") {
		t.Errorf("error %q shows the secret", err)
	}
	if !strings.Contains(err.Error(), "t.yaml:1: base_url: ") || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("error %q", err)
	}
}

func TestNewCreate(t *testing.T) {
	tg, err := targets.Parse("t.yaml", file(`
base_url: https://api.example.com/v1/
create:
  path: payments
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
headers:
  X-Api-Version: "2"
oracle:
  list:
    path: /payments?marker={{.Marker}}
`))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"marker":"m1"}`)
	tests := []struct {
		name string
		key  string
	}{
		{name: "with a key", key: "0b7e5a4c-1f1e-4a53-9a55-d4e4e1a0c2f1"},
		{name: "without a key", key: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := tg.NewCreate(context.Background(), tc.key, body)
			if err != nil {
				t.Fatal(err)
			}
			if req.Method != http.MethodPost || req.URL.String() != "https://api.example.com/v1/payments" {
				t.Errorf("request %s %s", req.Method, req.URL)
			}
			// No GetBody: net/http must not be able to resend it by itself.
			if req.GetBody != nil {
				t.Error("GetBody is set: the transport could replay the create")
			}
			if req.Body == nil || req.Body == http.NoBody {
				t.Fatalf("Body = %v, want the payload", req.Body)
			}
			if req.ContentLength != int64(len(body)) {
				t.Errorf("ContentLength %d, want %d", req.ContentLength, len(body))
			}
			got, err := io.ReadAll(req.Body)
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("body %q, %v; want %q", got, err, body)
			}
			if ct := req.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if v := req.Header.Get("X-Api-Version"); v != "2" {
				t.Errorf("X-Api-Version %q: the file's headers go on every request", v)
			}
			vals, present := req.Header["Idempotency-Key"]
			if tc.key == "" {
				if present {
					t.Errorf("Idempotency-Key %q sent for an empty key", vals)
				}
			} else if !slices.Equal(vals, []string{tc.key}) {
				t.Errorf("Idempotency-Key %q, want %q", vals, tc.key)
			}
		})
	}
}

func TestResourceID(t *testing.T) {
	tests := []struct {
		idField string
		body    string
		want    string
	}{
		{"id", `{"id":"r1"}`, "r1"},
		{"data.id", `{"data":{"id":"r2","amount":1}}`, "r2"},
		{"data.attributes.id", `{"data":{"attributes":{"id":"r3"}}}`, "r3"},
		{"id", `{"id":42}`, "42"},
		{"id", `{"id":12345678}`, "12345678"},
		{"id", `{"id":9007199254740993}`, "9007199254740993"},
		{"id", `{"other":"r1"}`, ""},
		{"id", `{"id":null}`, ""},
		{"id", `{"id":{"value":"r1"}}`, ""},
		{"id", `{"id":true}`, ""},
		{"data.id", `{"data":"r1"}`, ""},
		{"data.id", `{"data":[{"id":"r1"}]}`, ""},
		{"id", `["r1"]`, ""},
		{"id", `not json`, ""},
		{"id", `{"id":"r1"} {"id":"r2"}`, ""},
		{"id", ``, ""},
	}
	for _, tc := range tests {
		t.Run(tc.idField+" in "+tc.body, func(t *testing.T) {
			tg := fakes.DescribeTarget("http://127.0.0.1:1", "fake:test")
			tg.Create.IDField = tc.idField
			if got := tg.ResourceID([]byte(tc.body)); got != tc.want {
				t.Errorf("ResourceID = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestListOracle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/resources" || r.URL.Query().Get("marker") != "m" {
			http.Error(w, "unexpected "+r.URL.String(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[{"id":"a","marker":"m"},{"id":"b","marker":"x"},{"id":12345678,"marker":"m"}]}`)
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		name        string
		markerField string
		want        targets.Observation
	}{
		{name: "an endpoint that filters: every item counts", want: targets.Observation{Count: 3, IDs: []string{"a", "b", "12345678"}}},
		{name: "an endpoint that does not filter", markerField: "marker", want: targets.Observation{Count: 2, IDs: []string{"a", "12345678"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := fakes.DescribeTarget(srv.URL, "fake:test")
			o := tg.Oracle.(*targets.ListOracle)
			o.MarkerField = tc.markerField
			got, err := o.Observe(context.Background(), "m")
			if err != nil {
				t.Fatal(err)
			}
			if got.Count != tc.want.Count || !slices.Equal(got.IDs, tc.want.IDs) {
				t.Errorf("Observe = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestListOracleErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{name: "not 200", status: http.StatusUnauthorized, body: `{}`, want: "status 401"},
		{name: "not JSON", status: http.StatusOK, body: `<html>`, want: "answer is not JSON"},
		{name: "no array", status: http.StatusOK, body: `{"items":{"id":"a"}}`, want: `no array at "items"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			t.Cleanup(srv.Close)
			_, err := fakes.DescribeTarget(srv.URL, "fake:test").Oracle.Observe(context.Background(), "m")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "/resources?marker=m") {
				t.Errorf("error %v, want one naming the list path and %q", err, tc.want)
			}
		})
	}
}

func TestTODOLinesAreWarnings(t *testing.T) {
	file := targetFile("http://127.0.0.1:1", "/r?m={{.Marker}}", "# TODO: headers: set API_TOKEN\n  # TODO create.path: not a real id\n# a TODO in passing\n")
	tg, err := targets.Parse("todo.yaml", file)
	if err != nil {
		t.Fatal(err)
	}
	if len(tg.Warnings) != 2 || !strings.HasSuffix(tg.Warnings[0], ": TODO: headers: set API_TOKEN") || !strings.HasSuffix(tg.Warnings[1], ": TODO: create.path: not a real id") {
		t.Errorf("warnings %q, want the two TODO lines", tg.Warnings)
	}
	param := targetFile("http://127.0.0.1:1", "/r/{order_id}/x?m={{.Marker}}", "")
	if _, err := targets.Parse("param.yaml", param); err == nil || !strings.Contains(err.Error(), "holds the path parameter {order_id}") {
		t.Errorf("a path parameter left in a path: %v, want it refused", err)
	}
}

// Basic credentials written as user:password are sent in base64, as RFC
// 7617 says, and both forms are redacted; credentials already in base64
// (no colon) are sent as written.
func TestBasicCredentialsAreEncoded(t *testing.T) {
	t.Setenv("IDEMSPEC_TEST_BASIC", "ws_user@Company.Acme:s3cret-pass")
	encoded := base64.StdEncoding.EncodeToString([]byte("ws_user@Company.Acme:s3cret-pass"))
	for written, want := range map[string]string{
		"Basic ${IDEMSPEC_TEST_BASIC}": "Basic " + encoded,
		"basic ${IDEMSPEC_TEST_BASIC}": "basic " + encoded,
		"Basic " + encoded:             "Basic " + encoded,
		"Bearer a:b-token-like-this":   "Bearer a:b-token-like-this",
	} {
		tg, err := targets.Parse("t.yaml", file(`
base_url: http://localhost:8080
create: {path: /things, body: '{"marker":"{{.Marker}}","n":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/things?marker={{.Marker}}'}}
headers:
  Authorization: '`+written+`'
`))
		if err != nil {
			t.Fatal(err)
		}
		if got := tg.Headers.Get("Authorization"); got != want {
			t.Errorf("%s: sent %q, want %q", written, got, want)
		}
		if strings.Contains(written, "IDEMSPEC_TEST_BASIC") {
			if got := tg.Redact("sent " + encoded + " for ws_user@Company.Acme:s3cret-pass"); strings.Contains(got, "s3cret") || strings.Contains(got, encoded) {
				t.Errorf("Redact = %q", got)
			}
		}
	}
}

// A TODO at the end of an empty field's line (as init writes
// `oracle: # TODO: ...`) warns while the field is empty and stops once
// it has a value, on its line or below it; a TODO on its own line
// warns until it is deleted.
func TestFieldTODOStopsOnceFilled(t *testing.T) {
	for text, want := range map[string]int{
		"oracle: # TODO: say how to count\n  list: {path: '/r?m={{.Marker}}'}\n":                  0,
		"oracle: {list: {path: '/r?m={{.Marker}}'}} # TODO: say how to count\n":                   0,
		"# TODO: oracle: say how to count\noracle:\n  list: {path: '/r?m={{.Marker}}'}\n":         1,
		"oracle: # TODO: say how to count\n  # a comment\n\n  list: {path: '/r?m={{.Marker}}'}\n": 0,
		// Still empty: it warns.
		"oracle: {list: {path: '/r?m={{.Marker}}'}}\nheaders: # TODO: send the token\n": 1,
	} {
		tg, err := targets.Parse("t.yaml", []byte(`base_url: http://127.0.0.1:1
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
`+text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if len(tg.Warnings) != want {
			t.Errorf("%s: warnings %q, want %d", text, tg.Warnings, want)
		}
	}
	_, err := targets.Parse("t.yaml", []byte(`base_url: http://127.0.0.1:1
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: # TODO: say how to count
`))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:3: oracle: give exactly one of") {
		t.Errorf("an empty field's TODO: %v", err)
	}
}
