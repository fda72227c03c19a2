package openapi_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"text/template"
	"text/template/parse"

	"go.yaml.in/yaml/v3"

	"github.com/idemspec/idemspec/targets"
	"github.com/idemspec/idemspec/targets/openapi"
)

// hostileID is the operationId of testdata/hostile.yaml's create, which
// would add process: and allow_remote: to a file that spliced it in.
const hostileID = "createOrder\nallow_remote: true\nprocess:\n  command: sh\n  args: [-c, 'touch PWNED']\n#"

// Every string a document gives (title, version, summary, operationId,
// path, parameter and property names, examples, server URL, a security
// scheme's header) is written as data: the file has the fields init
// writes and no other, the strings read back as the document wrote
// them, no comment spans two lines, and every template field holds only
// the actions init puts in it.
func TestADocumentsStringsAreWrittenAsData(t *testing.T) {
	doc := load(t, "testdata/hostile.yaml")
	fields := []string{"name", "base_url", "headers", "setup", "create", "key", "oracle", "operations"}
	for _, o := range []openapi.Options{{All: true}, {Operations: []string{hostileID}, BaseURL: "http://127.0.0.1:9"}, {Operations: []string{"addLine"}}, {Operations: []string{"{{range 1000000000}}{{end}}"}}} {
		d, err := doc.Draft(o)
		if err != nil {
			t.Fatal(err)
		}
		text := string(d.Text)
		var file map[string]any
		if err := yaml.Unmarshal(d.Text, &file); err != nil {
			t.Fatalf("%v: the draft is not YAML: %v\n%s", o, err, text)
		}
		for name := range file {
			if !slices.Contains(fields, name) {
				t.Errorf("%v: the draft holds a field %q init never writes:\n%s", o, name, text)
			}
		}
		if strings.ContainsAny(text, "\r\u0085\u2028\u2029\x1b\a") {
			t.Errorf("%v: a line break YAML reads, raw in the draft:\n%q", o, text)
		}
		for _, line := range strings.Split(text, "\n") {
			if c := strings.TrimLeft(line, " "); strings.HasPrefix(c, "#") && strings.ContainsAny(c, "\x00\t\v\f\x1b\a") {
				t.Errorf("%v: a control character in a comment: %q", o, line)
			}
		}
		if len(o.Operations) == 0 {
			if file["name"] != "Shop\nallow_remote: true\nprocess:\n  command: sh" || file["base_url"] != "http://127.0.0.1:8080/\u2028allow_remote: true" {
				t.Errorf("the title and the server read back as %q and %q", file["name"], file["base_url"])
			}
		}
		checkTemplates(t, file, "")
	}

	// The one create is its own file; run reads it as written.
	d, err := doc.Draft(openapi.Options{Operations: []string{hostileID}, BaseURL: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	target, err := targets.Parse("hostile-draft.yaml", d.Text)
	if err != nil {
		t.Fatalf("the draft does not validate: %v\n%s", err, d.Text)
	}
	if target.Name != hostileID {
		t.Errorf("name %q, want the operationId as written", target.Name)
	}
	var file struct {
		Create struct{ Body string }
	}
	if err := yaml.Unmarshal(d.Text, &file); err != nil {
		t.Fatal(err)
	}
	// The example's strings, template delimiters and all, are the body's
	// text once rendered.
	want := `{"amount":7,"description":"M","note\nprocess: {command: sh}\n#":"a\n'\"}}{{range 1000000000}}{{end}}","{{range 1000000000}}x{{end}}":"{{.Marker}}"}`
	if got := render(t, "create.body", file.Create.Body); got != want {
		t.Errorf("the body renders as\n%s\nwant\n%s", got, want)
	}

	// A path that holds template syntax is text, with a TODO.
	d, err = doc.Draft(openapi.Options{Operations: []string{"addLine"}})
	if err != nil {
		t.Fatal(err)
	}
	var line struct{ Create struct{ Path string } }
	if err := yaml.Unmarshal(d.Text, &line); err != nil {
		t.Fatal(err)
	}
	if got := render(t, "create.path", line.Create.Path); got != "/carts/{{range 1000000000}}{{end}}/lines" {
		t.Errorf("create.path renders as %q, want the document's path as text", got)
	}
	if !strings.Contains(strings.Join(d.TODOs, "\n"), "create.path: the document's path /carts/{{range 1000000000}}{{end}}/lines holds braces that are not path parameters") {
		t.Errorf("no TODO for the path in %q", d.TODOs)
	}
}

// checkTemplates holds every template field of a draft (a path, a body,
// a setup request's headers) to the actions init writes: {{.Marker}},
// {{.Variant}}, {{.Key}}, {{.Setup.NAME.FIELD}} and the escape
// {{"{{"}}; never a range, a call or a pipeline.
func checkTemplates(t *testing.T, v any, at string) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			field := strings.TrimPrefix(at+"."+k, ".")
			if s, ok := v[k].(string); ok && (k == "path" || k == "body" || strings.HasSuffix(at, "headers") && strings.Contains(at, "setup")) {
				tmpl, err := template.New(field).Parse(s)
				if err != nil {
					t.Errorf("%s: %q does not parse: %v", field, s, err)
					continue
				}
				for _, n := range tmpl.Tree.Root.Nodes {
					if !allowedNode(n) {
						t.Errorf("%s: %q holds the action %s", field, s, n)
					}
				}
				continue
			}
			checkTemplates(t, v[k], field)
		}
	case []any:
		for i, e := range v {
			checkTemplates(t, e, fmt.Sprintf("%s[%d]", at, i))
		}
	}
}

func allowedNode(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.TextNode:
		return true
	case *parse.ActionNode:
		if len(n.Pipe.Decl) > 0 || len(n.Pipe.Cmds) != 1 || len(n.Pipe.Cmds[0].Args) != 1 {
			return false
		}
		switch a := n.Pipe.Cmds[0].Args[0].(type) {
		case *parse.StringNode:
			return a.Text == "{{"
		case *parse.FieldNode:
			return slices.Contains([]string{"Marker", "Variant", "Key"}, a.Ident[0]) && len(a.Ident) == 1 || a.Ident[0] == "Setup" && len(a.Ident) == 3
		}
	}
	return false
}

// render executes a drafted template with made-up values.
func render(t *testing.T, field, text string) string {
	t.Helper()
	tmpl, err := template.New(field).Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", field, err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, map[string]any{"Marker": "M", "Variant": "7", "Key": "K"}); err != nil {
		t.Fatalf("%s: %v", field, err)
	}
	return b.String()
}
