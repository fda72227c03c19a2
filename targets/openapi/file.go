package openapi

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// file renders the target file for one operation: a header naming the
// document and the operation, base_url, credentials, then the operation.
func (d *Document) file(p *Plan, op *openapi3.Operation, base string) ([]byte, []string) {
	var w writer
	title := "the OpenAPI document"
	if d.t.Info != nil && d.t.Info.Title != "" {
		title = fmt.Sprintf("%q %s", d.t.Info.Title, d.t.Info.Version)
	}
	w.comment("", "Drafted by `idemspec init --openapi` from %s (OpenAPI %s),", title, d.t.OpenAPI)
	w.comment("", "operation %s: %s %s%s.", p.ID, p.Method, p.Path, summary(p.Summary))
	w.comment("", "Each TODO needs you; `idemspec validate FILE` names a field still missing.")
	w.comment("", "Every field is described in idemspec's docs/TARGET-FILE.md.")
	w.field("", "name", p.ID)

	w.blank()
	if base == "" {
		base = d.baseURL()
	}
	switch {
	case base == "":
		w.todo("", "base_url: the document names no absolute server URL: give the API's base URL")
	case !loopback(base):
		w.todo("", "base_url: %s is not this machine, and idemspec injects faults and sends bursts of duplicates: point it at a test deployment (init --url), or add allow_remote: true (docs/STAGING.md)", base)
		w.field("", "base_url", base)
	default:
		w.field("", "base_url", base)
	}
	d.credentials(&w, op)
	w.blank()
	writeOperation(&w, p)
	return []byte(w.b.String()), w.todos
}

func summary(s string) string {
	if s == "" {
		return ""
	}
	return " (" + strings.TrimSuffix(strings.SplitN(s, "\n", 2)[0], ".") + ")"
}

// credentials writes headers: for the security scheme the operation
// needs, its value from the environment.
func (d *Document) credentials(w *writer, op *openapi3.Operation) {
	reqs := d.t.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if len(reqs) == 0 || slices.ContainsFunc(reqs, func(r openapi3.SecurityRequirement) bool { return len(r) == 0 }) {
		return
	}
	// Of alternatives, a bearer token is the simplest to pass (Stripe
	// takes basic or bearer).
	chosen := reqs[0]
	for _, r := range reqs {
		for name := range r {
			if s := d.scheme(name); len(r) == 1 && s != nil && s.Type == "http" && strings.EqualFold(s.Scheme, "bearer") {
				chosen = r
			}
		}
	}
	var headers [][2]string
	for _, name := range slices.Sorted(maps.Keys(chosen)) {
		s := d.scheme(name)
		switch {
		case s == nil:
			w.todo("", "headers: the security scheme %q is not defined: send its credentials in headers:", name)
		case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
			headers = append(headers, [2]string{"Authorization", "Basic ${API_BASIC_CREDENTIALS}"})
		case s.Type == "http" || s.Type == "oauth2" || s.Type == "openIdConnect":
			headers = append(headers, [2]string{"Authorization", "Bearer ${API_TOKEN}"})
		case s.Type == "apiKey" && s.In == openapi3.ParameterInHeader:
			headers = append(headers, [2]string{s.Name, "${API_KEY}"})
		default:
			w.todo("", "headers: the security scheme %q takes its credentials in the %s, and idemspec sends them in headers:", name, s.In)
		}
	}
	if len(headers) == 0 {
		return
	}
	w.todo("", "headers: set the variables these read in the environment (their values are redacted from every report)")
	w.line("", "headers:")
	for _, h := range headers {
		w.field("  ", h[0], h[1])
	}
}

// scheme is the security scheme of that name, nil when undefined.
func (d *Document) scheme(name string) *openapi3.SecurityScheme {
	if d.t.Components == nil || d.t.Components.SecuritySchemes[name] == nil {
		return nil
	}
	return d.t.Components.SecuritySchemes[name].Value
}

// writeOperation writes an operation's create:, key: and oracle:, with
// its TODOs beside the fields they concern. It is the one place an
// operation becomes YAML, so that a file of several operations can hold
// the same lines under a name (w.indent).
func writeOperation(w *writer, p *Plan) {
	todos := func(indent, field string) {
		for _, t := range p.todos {
			if t.field == field {
				w.todo(indent, "%s: %s", t.field, t.text)
			}
		}
	}
	w.line("", "create:")
	w.field("  ", "method", p.Method)
	todos("  ", "create.path")
	w.field("  ", "path", p.Path)
	if p.body.contentType != "" {
		w.field("  ", "content_type", p.body.contentType)
	}
	todos("  ", "create.body")
	if p.body.text != "" {
		w.line("  ", "body: "+quote(p.body.text))
	}
	todos("  ", "create.id_field")
	if p.idField != "" {
		w.field("  ", "id_field", p.idField)
	}
	w.blank()
	todos("", "key")
	w.line("", "key:")
	w.field("  ", "in", p.key.in)
	w.field("  ", "name", p.key.name)
	w.blank()
	todos("", "oracle")
	if l := p.list; l != nil {
		w.line("", "oracle:")
		w.line("  ", "list:")
		todos("    ", "oracle.list.path")
		w.field("    ", "path", l.path)
		w.field("    ", "items", l.items)
		todos("    ", "oracle.list.id_field")
		if l.idField != "" {
			w.field("    ", "id_field", l.idField)
		}
		if l.markerField != "" {
			w.field("    ", "marker_field", l.markerField)
		}
		todos("    ", "oracle.list.pages")
		if pg := l.pages; pg != nil {
			w.line("    ", "pages:")
			w.field("      ", "next", pg.next)
			for _, f := range [][2]string{{"field", pg.field}, {"param", pg.param}, {"more", pg.more}} {
				if f[1] != "" {
					w.field("      ", f[0], f[1])
				}
			}
		}
	}
}

// writer builds a commented YAML file line by line, each line after
// indent, and keeps the TODOs it wrote.
type writer struct {
	b      strings.Builder
	indent string
	todos  []string
}

func (w *writer) line(indent, s string) { w.b.WriteString(w.indent + indent + s + "\n") }
func (w *writer) blank()                { w.b.WriteString("\n") }

func (w *writer) field(indent, name, value string) { w.line(indent, name+": "+quote(value)) }

func (w *writer) comment(indent, format string, args ...any) {
	w.line(indent, "# "+fmt.Sprintf(format, args...))
}

// todo writes a TODO comment; `idemspec validate` lists each as a warning.
func (w *writer) todo(indent, format string, args ...any) {
	t := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	w.todos = append(w.todos, t)
	w.line(indent, "# TODO: "+t)
}

var (
	plainSafe = regexp.MustCompile(`^[A-Za-z0-9/_.$][A-Za-z0-9/_.~%?=&{}()\[\]*+,;:@!$-]*$`)
	plainNot  = regexp.MustCompile(`^(?i:true|false|yes|no|on|off|null|~|[-+0-9.eE_]+)$`)
)

// quote writes s plain when YAML reads it back as the same string, else
// single-quoted.
func quote(s string) string {
	if s == "" {
		return `""`
	}
	if plainSafe.MatchString(s) && !plainNot.MatchString(s) && !strings.Contains(s, ": ") && !strings.HasSuffix(s, ":") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
