package main_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets/openapi"
)

// The document describing the reference server's own API drafts a file
// with no TODO that validates, and that passes against `idemspec serve`.
func TestInitFromOpenAPIRunsAgainstTheServerItDescribes(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	file := filepath.Join(t.TempDir(), "reference.yaml")
	r := idemspec(t, "init", "--openapi", "../../targets/openapi/testdata/reference.yaml", "--url", base, "--out", file)
	if r.code != 0 || !strings.Contains(r.stdout, "(POST /resources)\n") {
		t.Fatalf("init: exit %d, want 0 and no TODO\n%s%s", r.code, r.stdout, r.stderr)
	}
	if v := idemspec(t, "validate", file); v.code != 0 || v.stderr != "" {
		t.Fatalf("validate: exit %d, want 0 with no warning\n%s%s", v.code, v.stdout, v.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serve := exec.CommandContext(ctx, binary, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--db", filepath.Join(t.TempDir(), "db"))
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
	run := run(t, "--target", file, "--label-filter", "S1 || S2 || S3 || S4", "--wait", "30s")
	if run.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", run.code, run.stdout, run.stderr)
	}
	for _, id := range []string{"S1", "S2", "S3", "S4"} {
		if !strings.Contains(run.stdout, "PASS  "+id) {
			t.Errorf("%s did not pass:\n%s", id, run.stdout)
		}
	}
}

// Several operations go in one file under operations:, which validate
// reads as run would: an error or a TODO of an operation names it as
// operations[i].
func TestInitFromOpenAPIWritesOneFileOfOperations(t *testing.T) {
	doc := "../../targets/openapi/testdata/shop-3.1.yaml"
	dir := t.TempDir()
	file := filepath.Join(dir, "shop.yaml")
	r := idemspec(t, "init", "--openapi", doc, "--all", "--out", file)
	want := "wrote " + file + " (5 operations: create-order POST /orders, refund-order POST /orders/{order_id}/refunds, " +
		"create-payment POST /payments, create-webhook POST /webhooks, add-wishlist-item POST /wishlists/{wishlist_id}/items); 10 TODOs\n" +
		"check it with: idemspec validate " + file
	if r.code != 0 || !strings.HasPrefix(r.stdout, want) {
		t.Fatalf("exit %d, want 0 and %q\n%s%s", r.code, want, r.stdout, r.stderr)
	}
	// validate lists every error, each naming the operation's field and
	// its line, among the TODOs, in line order.
	token := []string{"API_TOKEN=a-token-long-enough-to-redact"}
	v := idemspecEnv(t, token, "validate", "--allow-remote", file)
	// operations[2] (POST /payments) can neither be listed nor looked
	// up: its draft counts from the wire, with a TODO, and validates;
	// operations[3] (POST /webhooks) names no id, so nothing can count it.
	todo, missing := strings.Index(v.stderr, ": TODO: operations[2].oracle: "), strings.Index(v.stderr, ": operations[3].oracle: missing required field")
	if v.code != 2 || todo < 0 || missing < 0 || todo > missing || strings.Contains(v.stderr, "operations[2].oracle: missing") ||
		!strings.HasSuffix(v.stderr, "idemspec: "+file+": 5 errors, 10 TODOs\n") {
		t.Errorf("validate: exit %d, want 2 with operations[2].oracle's TODO (a wire oracle) before operations[3].oracle's error\n%s", v.code, v.stderr)
	}
	// A field left out for want of anything to draft from is missing
	// (the webhook's oracle); one drafted as weak as the document allows
	// (the payment's, from the wire) validates, its TODO a warning.
	file = filepath.Join(dir, "payment.yaml")
	if r := idemspec(t, "init", "--openapi", doc, "--operation", "createOrder", "--operation", "createWebhook", "--out", file); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	if v := idemspecEnv(t, token, "validate", "--allow-remote", file); v.code != 2 || !strings.Contains(v.stderr, ": operations[1].oracle: missing required field") {
		t.Errorf("validate: exit %d, want 2 naming operations[1].oracle\n%s", v.code, v.stderr)
	}
	file = filepath.Join(dir, "wired.yaml")
	if r := idemspec(t, "init", "--openapi", doc, "--operation", "createOrder", "--operation", "createPayment", "--out", file); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	if v := idemspecEnv(t, token, "validate", "--allow-remote", file); v.code != 0 || !strings.Contains(v.stderr, "TODO: operations[1].oracle: ") {
		t.Errorf("validate: exit %d, want 0 with operations[1].oracle's TODO (a wire oracle)\n%s", v.code, v.stderr)
	}
	// A file whose only TODOs are warnings validates, and lists them
	// with their lines: the file's own once, each operation's under it.
	// (A wishlist has no POST to make it: its id is put in by hand.)
	file = filepath.Join(dir, "wishlist.yaml")
	if r := idemspec(t, "init", "--openapi", doc, "--operation", "createOrder", "--operation", "addWishlistItem", "--url", "http://127.0.0.1:9", "--out", file); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(string(data), "/wishlists/{wishlist_id}/", "/wishlists/wl_1/")), 0o644); err != nil {
		t.Fatal(err)
	}
	v = idemspecEnv(t, token, "validate", file)
	if v.code != 0 || strings.Count(v.stderr, "warning: ") != 3 ||
		!strings.Contains(v.stderr, file+":9: TODO: headers: ") ||
		!strings.Contains(v.stderr, file+":45: TODO: operations[1].create.path: {wishlist_id} ") ||
		!strings.Contains(v.stderr, file+":61: TODO: operations[1].oracle.list.path: ") ||
		!strings.Contains(v.stdout, "operation add-wishlist-item: POST /wishlists/wl_1/items") {
		t.Errorf("validate: exit %d, want 0 with the three TODOs as warnings\n%s%s", v.code, v.stdout, v.stderr)
	}

	// In a directory, the file is named after what it holds.
	if r := idemspec(t, "init", "--openapi", doc, "--all", "--out", dir); r.code != 0 || !strings.HasPrefix(r.stdout, "wrote "+filepath.Join(dir, "shop-3.1-target.yaml")+" (5 operations: ") {
		t.Errorf("--out DIR, several: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := idemspec(t, "init", "--openapi", doc, "--out", dir); r.code != 0 || !strings.HasPrefix(r.stdout, "wrote "+filepath.Join(dir, "createOrder.yaml")+" (POST /orders); 2 TODOs") {
		t.Errorf("--out DIR, one: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Without --out, the file is the output.
	if r := idemspec(t, "init", "--openapi", doc, "--all"); r.code != 0 || !strings.HasPrefix(r.stdout, "# Drafted by") || !strings.Contains(r.stdout, "\noperations:\n  # createOrder: POST /orders.\n  - name: create-order\n") {
		t.Errorf("stdout: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--all", "--out", file}, "exists already, and init does not overwrite a file: give --force"}, // never overwrites
		{[]string{"--all", "--out", dir}, "exists already"},
		{[]string{"--operation", "nope"}, `no operation "nope"`},
		{[]string{"--path", "/x"}, "--path picks nothing"},
	} {
		r := idemspec(t, append([]string{"init", "--openapi", doc}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("init %v: exit %d, want 2 with %q\n%s", c.args, r.code, c.want, r.stderr)
		}
	}
	if r := idemspec(t, "init", "--all"); r.code != 2 || !strings.Contains(r.stderr, "--openapi") {
		t.Errorf("--all without --openapi: exit %d\n%s", r.code, r.stderr)
	}
}

// A document whose two operations say all idemspec needs drafts a file
// that validates with no warning and passes against the servers it
// describes: two reference servers behind one address, one taking its
// key in a header, the other in the body.
func TestInitFromOpenAPIRunsTwoOperations(t *testing.T) {
	t.Parallel()
	orders := startFake(t, fakes.Options{})
	payments := startFake(t, fakes.Options{KeyIn: fakes.KeyInBody})
	at := map[string]*url.URL{}
	for prefix, in := range map[string]*fakes.Instance{"/orders": orders, "/payments": payments} {
		u, err := url.Parse(in.URL)
		if err != nil {
			t.Fatal(err)
		}
		at[prefix] = u
	}
	// Each server has its collection at /resources.
	router := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		prefix := "/orders"
		if strings.HasPrefix(r.In.URL.Path, "/payments") {
			prefix = "/payments"
		}
		r.SetURL(at[prefix])
		r.Out.URL.Path, r.Out.URL.RawPath = "/resources"+strings.TrimPrefix(r.In.URL.Path, prefix), ""
	}})
	defer router.Close()

	file := filepath.Join(t.TempDir(), "twice.yaml")
	r := idemspec(t, "init", "--openapi", "../../targets/openapi/testdata/reference-twice.yaml", "--all", "--url", router.URL, "--out", file)
	if r.code != 0 || !strings.Contains(r.stdout, " (2 operations: create-order POST /orders, create-payment POST /payments)\n") {
		t.Fatalf("init: exit %d, want 0 and no TODO\n%s%s", r.code, r.stdout, r.stderr)
	}
	if v := idemspec(t, "validate", file); v.code != 0 || v.stderr != "" {
		t.Fatalf("validate: exit %d, want 0 with no warning\n%s%s", v.code, v.stdout, v.stderr)
	}
	run := run(t, "--target", file, "--label-filter", "S1 || S2 || S3 || S4", "--wait", "30s")
	if run.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", run.code, run.stdout, run.stderr)
	}
	for _, op := range []string{"create-order", "create-payment"} {
		var passed []string
		for _, c := range run.report.ChecksOf(op) {
			if c.Verdict == check.PASS {
				passed = append(passed, c.ID)
			}
		}
		if got := strings.Join(passed, " "); got != "S1 S2 S3 S4" {
			t.Errorf("%s passed %q, want S1 to S4\n%s", op, got, run.stdout)
		}
	}
}

// The reference server's action on a resource, POST
// /resources/{id}/events, drafts with a setup: the POST on /resources
// makes each marker's parent. Beside the create, it validates with no
// warning, passes against the server it describes, and fails against
// the mutant that does not deduplicate, whose action appends twice.
func TestInitFromOpenAPIRunsAnAction(t *testing.T) {
	t.Parallel()
	for _, mutant := range []string{"reference", "nodedup"} {
		t.Run(mutant, func(t *testing.T) {
			server, err := fakes.Start(fakes.Options{Mutant: mutant}, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer server.Close()
			file := filepath.Join(t.TempDir(), "action.yaml")
			r := idemspec(t, "init", "--openapi", "../../targets/openapi/testdata/reference.yaml", "--all", "--url", server.URL, "--out", file)
			if r.code != 0 || !strings.Contains(r.stdout, " (2 operations: create-resource POST /resources, append-event POST /resources/{id}/events)\n") {
				t.Fatalf("init: exit %d, want 0 and no TODO\n%s%s", r.code, r.stdout, r.stderr)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), "\n      path: /resources/{{.Setup.resource.id}}/events\n") {
				t.Fatalf("no create.path naming the setup's parent in:\n%s", data)
			}
			if v := idemspec(t, "validate", file); v.code != 0 || v.stderr != "" {
				t.Fatalf("validate: exit %d, want 0 with no warning\n%s%s", v.code, v.stdout, v.stderr)
			}
			run := run(t, "--target", file, "--label-filter", "S1 || S2 || S3 || S4", "--wait", "30s")
			for _, op := range []string{"create-resource", "append-event"} {
				verdicts := map[check.Status][]string{}
				for _, c := range run.report.ChecksOf(op) {
					verdicts[c.Verdict] = append(verdicts[c.Verdict], c.ID)
				}
				switch passed := strings.Join(verdicts[check.PASS], " "); {
				case mutant == "reference" && (run.code != 0 || passed != "S1 S2 S3 S4"):
					t.Errorf("%s: exit %d, passed %q, want 0 and S1 to S4\n%s%s", op, run.code, passed, run.stdout, run.stderr)
				case mutant != "reference" && len(verdicts[check.FAIL]) == 0:
					t.Errorf("%s: verdicts %v, want a FAIL\n%s%s", op, verdicts, run.stdout, run.stderr)
				}
			}
		})
	}
}

// A document cannot make init write a file that runs a command: its
// strings are data (testdata/hostile.yaml's operationId would add
// allow_remote: and process: to a file that spliced it into a comment),
// an operationId of ".." names no hidden file, and a document over the
// cap is refused with its size.
func TestInitFromOpenAPIWritesADocumentsStringsAsData(t *testing.T) {
	doc := "../../targets/openapi/testdata/hostile.yaml"
	dir := t.TempDir()
	file := filepath.Join(dir, "hostile.yaml")
	id := "createOrder\nallow_remote: true\nprocess:\n  command: sh\n  args: [-c, 'touch PWNED']\n#"
	if r := idemspec(t, "init", "--openapi", doc, "--operation", id, "--url", "http://127.0.0.1:9", "--out", file); r.code != 0 {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := yaml.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"process", "allow_remote", "restart", "cleanup"} {
		if _, ok := fields[name]; ok {
			t.Errorf("the draft has %s:\n%s", name, data)
		}
	}
	if fields["name"] != id {
		t.Errorf("name %q, want the operationId as the document wrote it", fields["name"])
	}
	if v := idemspec(t, "validate", file); v.code != 0 {
		t.Errorf("validate: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}

	// A path with escape sequences reaches neither the terminal nor the
	// file raw.
	esc := filepath.Join(dir, "esc.yaml")
	r := idemspec(t, "init", "--openapi", doc, "--operation", "escPath", "--out", esc)
	data, _ = os.ReadFile(esc)
	if r.code != 0 || strings.ContainsAny(r.stdout+r.stderr+string(data), "\x1b\a") || !strings.Contains(r.stdout, `(POST /esc\x1b[2J\x1b]0;pwned\x07/orders)`) {
		t.Errorf("init --operation escPath: exit %d, want the path escaped\n%q\n%q", r.code, r.stdout+r.stderr, data)
	}

	r = idemspec(t, "init", "--openapi", doc, "--operation", "..", "--out", dir)
	if want := "wrote " + filepath.Join(dir, "operation.yaml") + " "; r.code != 0 || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("init --operation ..: exit %d, want %q\n%s%s", r.code, want, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".yaml")); err == nil {
		t.Errorf("init wrote %s", filepath.Join(dir, ".yaml"))
	}

	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"openapi": "3.0.3", "x": "`+strings.Repeat("x", 17<<20)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = idemspec(t, "init", "--openapi", big)
	if want := "idemspec: " + big + ": the document is 17.0 MiB, larger than the 16 MiB init reads"; r.code != 2 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("a 17 MiB document: exit %d, want 2 and %q\n%s", r.code, want, r.stderr)
	}
}

// A size a document asks of a sample is capped: a note with minLength
// 10^12 used to make init die out of memory; the draft now holds
// MaxSampleString characters and loads. An array's minItems already
// drafts one item.
func TestInitFromOpenAPICapsTheSizesADocumentAsks(t *testing.T) {
	t.Parallel()
	doc := writeFile(t, "huge-sizes.yaml", `openapi: 3.0.3
info: {title: Sizes, version: "1"}
servers: [{url: "http://127.0.0.1:9"}]
paths:
  /orders:
    post:
      operationId: createOrder
      parameters:
        - {name: Idempotency-Key, in: header, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [note, amount, lines]
              properties:
                note: {type: string, minLength: 1000000000000}
                amount: {type: integer}
                lines: {type: array, minItems: 1000000000000, items: {type: string, minLength: 1000000000000}}
      responses:
        "201":
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
`)
	data := drafted(t, doc)
	if len(data) > 64<<10 || !strings.Contains(string(data), strings.Repeat("x", openapi.MaxSampleString-len("idemspec"))) {
		t.Errorf("the draft is %d bytes; want each long string at %d characters:\n%.3000s", len(data), openapi.MaxSampleString, data)
	}
}

// drafted runs `idemspec init --openapi doc` and returns the target file
// it wrote: it must exit 0, and never with a Go stack.
func drafted(t *testing.T, doc string) []byte {
	t.Helper()
	file := filepath.Join(t.TempDir(), "drafted.yaml")
	r := idemspec(t, "init", "--openapi", doc, "--out", file)
	if r.code != 0 || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("init: exit %d\n%.2000s%.2000s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
