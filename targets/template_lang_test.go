package targets_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/internal/testenv"
	"github.com/idemspec/idemspec/targets"
)

// parseSoon is targets.Parse, turned into a failure if it hangs.
func parseSoon(t *testing.T, name string, data []byte) (*targets.Target, error) {
	t.Helper()
	type result struct {
		tg  *targets.Target
		err error
	}
	done := make(chan result, 1)
	go func() {
		tg, err := targets.Parse(name, data)
		done <- result{tg, err}
	}()
	select {
	case r := <-done:
		return r.tg, r.err
	case <-time.After(testenv.WaitLimit):
		t.Fatalf("%s: loading did not end", name)
		return nil, nil
	}
}

// Templates are text and fields: every other construct of text/template
// is a load error naming the file, line and field, found without running
// it: run, {{range 100000000000}} would spin the load for ever, and a
// range over 2e7 would take 1.2 GB).
func TestTemplatesHoldTextAndFieldsOnly(t *testing.T) {
	for _, c := range []struct{ field, text, want string }{
		{"create.body", `{"m":"{{.Marker}}","v":{{.Variant}}}{{range 100000000000}}{{end}}`, "t.yaml:4: create.body: {{range 100000000000}}{{end}} is not part of a target file's templates"},
		{"create.body", `{"m":"{{.Marker}}","v":{{if .Variant}}1{{else}}2{{end}}}`, "t.yaml:4: create.body: {{if .Variant}}1{{else}}2{{end}} is not part"},
		{"create.body", `{"m":"{{.Marker}}","v":{{with .Variant}}{{.}}{{end}}}`, "t.yaml:4: create.body: {{with .Variant}}"},
		{"create.body", `{"m":"{{.Marker}}","v":{{printf "%099999999d" 1}}{{.Variant}}}`, `t.yaml:4: create.body: {{printf "%099999999d" 1}} is not part`},
		{"create.body", `{"m":"{{.Marker}}","v":{{.Variant | printf "%s"}}}`, `t.yaml:4: create.body: {{.Variant | printf "%s"}} is not part`},
		{"create.body", `{"m":"{{.Marker}}","v":{{$x := .Variant}}{{$x}}}`, `t.yaml:4: create.body: {{$x := .Variant}} is not part`},
		{"create.body", `{{define "x"}}{{.Marker}}{{end}}{"m":"{{.Marker}}","v":{{.Variant}}}`, `t.yaml:4: create.body: {{define}} and {{block}} are not part`},
		{"create.body", `{"m":"{{.Marker}}","v":{{.Variant}}}{{template "create.body" .}}`, `t.yaml:4: create.body: {{template "create.body" .}} is not part`},
		{"create.path", `/r/{{range $i, $e := .Marker}}{{end}}`, "t.yaml:3: create.path: {{range $i, $e := .Marker}}{{end}} is not part"},
		{"oracle.list.path", `/r?m={{.Marker}}{{len .Marker}}`, "t.yaml:6: oracle.list.path: {{len .Marker}} is not part"},
	} {
		path, body, oracle := "/r", `{"m":"{{.Marker}}","v":{{.Variant}}}`, "/r?m={{.Marker}}"
		switch c.field {
		case "create.body":
			body = c.text
		case "create.path":
			path = c.text
		case "oracle.list.path":
			oracle = c.text
		}
		data := fmt.Sprintf("base_url: http://127.0.0.1:1\ncreate:\n  path: '%s'\n  body: '%s'\n  id_field: id\noracle: {list: {path: '%s'}}\n", path, body, oracle)
		_, err := parseSoon(t, "t.yaml", []byte(data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %s\nerror %v\nwant %q", c.field, c.text, err, c.want)
		}
	}
	// What stays: fields, comments, and a literal written as {{"{{"}}.
	ok := targets.Parse
	if _, err := ok("t.yaml", targetFile("http://127.0.0.1:1", `/r?m={{ .Marker }}{{/* a comment */}}&b={{"{{"}}`, "")); err != nil {
		t.Errorf("fields, a comment and a literal: %v", err)
	}
	for _, field := range []string{"process.args", "base_url"} {
		data := `
base_url: 'http://127.0.0.1:{{.Port}}'
process: {command: ./server, args: ['{{.Port}}']}
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`
		if field == "base_url" {
			data = strings.Replace(data, ":{{.Port}}'", ":{{.Port}}{{range 100000000000}}{{end}}'", 1)
		} else {
			data = strings.Replace(data, "['{{.Port}}']", "['{{range 100000000000}}{{end}}']", 1)
		}
		if _, err := parseSoon(t, "t.yaml", file(data)); err == nil || !strings.Contains(err.Error(), "is not part of a target file's templates") {
			t.Errorf("%s: %v", field, err)
		}
	}
}

// What a template renders is capped: a setup answer's field repeated in
// the body cannot make a body of gigabytes.
func TestRenderingIsCapped(t *testing.T) {
	big := strings.Repeat("x", targets.MaxRendered/2+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"id":"o1","note":%q}`, big)
	}))
	defer srv.Close()
	tg, err := targets.Parse("t.yaml", file(`
base_url: `+srv.URL+`
setup: [{name: order, path: /orders}]
create: {path: '/orders/{{.Setup.order.id}}/c', body: '{"m":"{{.Marker}}","v":{{.Variant}},"a":"{{.Setup.order.note}}","b":"{{.Setup.order.note}}"}', id_field: id}
oracle: {list: {path: '/c?m={{.Marker}}'}}
`))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, err = tg.Body(targets.Payload{Marker: targets.NewMarker("0a1b2c3d", "S1", 1), Variant: "1"})
	if err == nil || !strings.Contains(err.Error(), "create.body: renders to more than 1 MiB, the most one template may render") {
		t.Errorf("a body of twice the setup's answer: %v", err)
	}
}

// {{index}} (the probe's out-of-range index said only "create.body: 99")
// is not part of the language: the error says which construct, and
// where.
func TestIndexIsNamedWhereItStands(t *testing.T) {
	_, err := targets.Parse("t.yaml", file(`
base_url: http://127.0.0.1:1
setup: [{name: order, path: /orders}]
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}},"x":"{{index .Setup.order.items 99}}"}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:3: create.body: {{index .Setup.order.items 99}} is not part of a target file's templates") {
		t.Errorf("index: %v", err)
	}
}
