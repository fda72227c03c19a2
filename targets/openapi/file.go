package openapi

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemspec/idemspec/targets"
)

// file renders the target file: a header naming the document, base_url
// and credentials, then one operation's create:, key: and oracle: at the
// top level, or several operations under operations:, each with its
// TODOs under its own operations[i].
func (d *Document) file(sel selection, plans []*Plan, base string) ([]byte, []string) {
	var w writer
	title := "the OpenAPI document"
	if d.t.Info != nil && d.t.Info.Title != "" {
		title = fmt.Sprintf("%q %s", d.t.Info.Title, d.t.Info.Version)
	}
	w.comment("", "Drafted by `idemspec init --openapi` from %s (OpenAPI %s),", title, d.t.OpenAPI)
	name := plans[0].ID
	if len(plans) == 1 {
		p := plans[0]
		w.comment("", "operation %s: %s %s%s.", p.ID, p.Method, p.Path, summary(p.Summary))
		if sel.why != "" {
			w.comment("", "Chosen as the API's main create: %s.", sel.why)
			if sel.next != "" {
				w.comment("", "Next candidates (init --operation ID): %s.", sel.next)
			}
		}
	} else {
		w.comment("", "%d operations: each item of operations: is tested as a target of its own", len(plans))
		w.comment("", "(`idemspec run --operation NAME` runs the one named), all sharing base_url and headers.")
		name = d.title()
		for _, l := range sel.left {
			w.comment("", "Left out, as it creates nothing to count: %s.", l)
		}
	}
	w.comment("", "Each TODO needs you; `idemspec validate FILE` names a field still missing.")
	w.comment("", "Every field is described in idemspec's docs/TARGET-FILE.md.")
	w.field("", "name", name)

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
	// Setup requests go with the file's headers too: they hold the
	// credentials of the POSTs that make the parents.
	withParents := slices.Clone(sel.ops)
	for _, p := range plans {
		for _, s := range p.setup {
			if !slices.ContainsFunc(withParents, func(o operation) bool { return o.op == s.parent.op }) {
				withParents = append(withParents, s.parent)
			}
		}
	}
	d.writeCredentials(&w, withParents)
	if p := d.profile(); p != "" {
		w.comment("", "The document is %s's: its answers to a reused or refused key are the %s profile's (idemspec list).", p, p)
		w.field("", "profile", p)
	}
	w.blank()
	if len(plans) == 1 {
		writeOperation(&w, plans[0], "")
		return []byte(w.b.String()), w.todos
	}
	w.line("", "operations:")
	for i, p := range plans {
		if i > 0 {
			w.blank()
		}
		w.comment("  ", "%s: %s %s%s.", p.ID, p.Method, p.Path, summary(p.Summary))
		w.field("  - ", "name", p.Name)
		w.indent = "    "
		writeOperation(&w, p, fmt.Sprintf("operations[%d].", i))
		w.indent = ""
	}
	return []byte(w.b.String()), w.todos
}

// title names a file of several operations: the document's title, else
// its file name.
func (d *Document) title() string {
	if d.t.Info != nil && d.t.Info.Title != "" {
		return d.t.Info.Title
	}
	return strings.TrimSuffix(filepath.Base(d.name), filepath.Ext(d.name))
}

func summary(s string) string {
	if s == "" {
		return ""
	}
	return " (" + strings.TrimSuffix(strings.SplitN(s, "\n", 2)[0], ".") + ")"
}

// writeCredentials writes headers: the credentials the operations'
// security takes, from the environment. A file's headers go with every
// operation, so several operations get them all, and a TODO when they
// do not all take the same.
func (d *Document) writeCredentials(w *writer, ops []operation) {
	var headers [][2]string
	var todos []string
	each := make([][][2]string, len(ops))
	for i, op := range ops {
		h, t := d.credentials(op.op)
		each[i] = h
		for _, t := range t {
			if !slices.Contains(todos, t) {
				todos = append(todos, t)
			}
		}
		for _, h := range h {
			if !slices.ContainsFunc(headers, func(o [2]string) bool { return strings.EqualFold(o[0], h[0]) }) {
				headers = append(headers, h)
			}
		}
	}
	for _, t := range todos {
		w.todo("", "headers: %s", t)
	}
	if len(headers) == 0 {
		return
	}
	if slices.ContainsFunc(each, func(h [][2]string) bool { return len(h) != len(headers) || !containsAll(headers, h) }) {
		w.todo("", "headers: the operations do not all take the same credentials, and every operation sends these: keep those the API accepts on each")
	}
	w.todo("", "headers: set the variables these read in the environment (their values are redacted from every report)")
	w.line("", "headers:")
	for _, h := range headers {
		w.field("  ", h[0], h[1])
	}
}

// containsAll says whether all holds every header of some.
func containsAll(all, some [][2]string) bool {
	for _, h := range some {
		if !slices.Contains(all, h) {
			return false
		}
	}
	return true
}

// credentials are the headers the security an operation needs takes,
// their values from the environment, and what they leave to the author.
func (d *Document) credentials(op *openapi3.Operation) (headers [][2]string, todos []string) {
	reqs := d.t.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if len(reqs) == 0 || slices.ContainsFunc(reqs, func(r openapi3.SecurityRequirement) bool { return len(r) == 0 }) {
		return nil, nil
	}
	// Of alternatives, the simplest to pass: a bearer token (Stripe
	// takes basic or bearer), then a key in a header (Adyen's
	// X-API-Key), then Basic; a key in the query or a cookie last.
	chosen := slices.MinFunc(reqs, func(a, b openapi3.SecurityRequirement) int { return d.ease(a) - d.ease(b) })
	for _, name := range slices.Sorted(maps.Keys(chosen)) {
		s := d.scheme(name)
		switch {
		case s == nil:
			todos = append(todos, fmt.Sprintf("the security scheme %q is not defined: send its credentials in headers:", name))
		case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
			// user:password, which idemspec sends in base64.
			headers = append(headers, [2]string{"Authorization", "Basic ${API_BASIC_CREDENTIALS}"})
		case s.Type == "http" || s.Type == "oauth2" || s.Type == "openIdConnect":
			headers = append(headers, [2]string{"Authorization", "Bearer ${API_TOKEN}"})
		case s.Type == "apiKey" && s.In == openapi3.ParameterInHeader && !targets.ValidHeaderName(s.Name):
			todos = append(todos, fmt.Sprintf("the security scheme %q takes its credentials in the header %q, which is not a header name: send them in headers:", name, s.Name))
		case s.Type == "apiKey" && s.In == openapi3.ParameterInHeader:
			headers = append(headers, [2]string{s.Name, "${API_KEY}"})
		default:
			todos = append(todos, fmt.Sprintf("the security scheme %q takes its credentials in the %s, and idemspec sends them in headers:", name, s.In))
		}
	}
	return headers, todos
}

// ease ranks a security requirement by how simply a target file's
// headers pass it, the simplest lowest.
func (d *Document) ease(r openapi3.SecurityRequirement) int {
	if len(r) != 1 {
		return 4
	}
	for name := range r {
		switch s := d.scheme(name); {
		case s == nil:
			return 4
		case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"):
			return 0
		case s.Type == "apiKey" && s.In == openapi3.ParameterInHeader:
			return 1
		case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
			return 2
		}
	}
	return 3
}

// scheme is the security scheme of that name, nil when undefined.
func (d *Document) scheme(name string) *openapi3.SecurityScheme {
	if d.t.Components == nil || d.t.Components.SecuritySchemes[name] == nil {
		return nil
	}
	return d.t.Components.SecuritySchemes[name].Value
}

// writeOperation writes an operation's create:, key: and oracle:, with
// its TODOs beside the fields they concern, each naming its field after
// at ("operations[1]." for an item of operations:, whose lines w.indent
// sets in). It is the one place an operation becomes YAML.
func writeOperation(w *writer, p *Plan, at string) {
	todos := func(indent, field string) {
		for _, t := range p.todos {
			if t.field == field {
				w.todo(indent, "%s%s: %s", at, t.field, t.text)
			}
		}
	}
	// A field the draft cannot fill is written empty with its TODO at
	// the end of its line: validate's error names that line, and the
	// TODO stops warning once the field has a value.
	emptyField := func(indent, name, field string) {
		var texts []string
		for _, t := range p.todos {
			if t.field == field {
				texts = append(texts, t.text)
			}
		}
		for _, t := range texts[:max(len(texts)-1, 0)] {
			w.todo(indent, "%s%s: %s", at, field, t)
		}
		if len(texts) > 0 {
			w.fieldTODO(indent, name, at+field, texts[len(texts)-1])
		}
	}
	writeSetup(w, p.setup)
	w.line("", "create:")
	w.field("  ", "method", p.Method)
	todos("  ", "create.path")
	w.field("  ", "path", p.path)
	if p.body.contentType != "" {
		w.field("  ", "content_type", p.body.contentType)
	}
	todos("  ", "create.body")
	if p.body.text != "" {
		w.line("  ", "body: "+quote(p.body.text))
	}
	todos("  ", "create.id_field")
	if p.idField != "" {
		w.comment("  ", "%s", p.idWhy.say())
		w.field("  ", "id_field", p.idField)
	}
	w.blank()
	todos("", "key")
	w.line("", "key:")
	w.field("  ", "in", p.key.in)
	w.field("  ", "name", p.key.name)
	if p.key.pattern != "" {
		w.field("  ", "format", "pattern")
		w.field("  ", "pattern", p.key.pattern)
	}
	if p.key.uuid && p.key.pattern == "" {
		w.field("  ", "format", "uuid")
	}
	if p.key.maxLength > 0 {
		w.line("  ", "max_length: "+strconv.FormatUint(p.key.maxLength, 10))
	}
	switch {
	case p.key.declared && p.key.optional:
		w.comment("  ", "The document declares the key optional: a create without one is served, not refused.")
		w.line("  ", "required: false")
	case p.key.declared:
		w.line("  ", "required: true")
	}
	w.blank()
	if p.lookup == nil && p.list == nil && !p.wire && at == "" {
		emptyField("", "oracle", "oracle")
	} else {
		todos("", "oracle")
	}
	if p.wire {
		w.line("", "oracle:")
		w.line("  ", "wire: {}")
	}
	if l := p.lookup; l != nil {
		w.line("", "oracle:")
		w.line("  ", "lookup:")
		w.field("    ", "path", l.path)
		if l.markerField != "" {
			w.field("    ", "marker_field", l.markerField)
		}
	}
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
// indent, and keeps the TODOs it wrote. Every string a document gave
// reaches the file through it as data: a key or a value is quoted by
// quote, and a comment is kept on its one line by oneLine, so no
// operationId, title or property name can add a field to the file.
type writer struct {
	b      strings.Builder
	indent string
	todos  []string
}

func (w *writer) line(indent, s string) { w.b.WriteString(w.indent + indent + s + "\n") }
func (w *writer) blank()                { w.b.WriteString("\n") }

// field writes name: value, both quoted.
func (w *writer) field(indent, name, value string) { w.line(indent, quote(name)+": "+quote(value)) }

func (w *writer) comment(indent, format string, args ...any) {
	w.line(indent, "# "+oneLine(fmt.Sprintf(format, args...)))
}

// todo writes a TODO comment; `idemspec validate` lists each as a warning.
func (w *writer) todo(indent, format string, args ...any) {
	t := oneLine(fmt.Sprintf(format, args...))
	w.todos = append(w.todos, t)
	w.line(indent, "# TODO: "+t)
}

// fieldTODO writes a field left empty, its TODO at the end of its line;
// the TODO is listed as field's, like one above a field.
func (w *writer) fieldTODO(indent, name, field, text string) {
	t := oneLine(text)
	w.todos = append(w.todos, field+": "+t)
	w.line(indent, quote(name)+": # TODO: "+t)
}

// oneLine keeps text on one line of a comment: a line break (YAML
// reads U+0085, U+2028 and U+2029 as breaks too) or any other rune
// that is not printable is written as its Go escape (\n, \u2028).
func oneLine(s string) string {
	if !strings.ContainsFunc(s, notPrintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if notPrintable(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// notPrintable is a rune YAML may read as a break or refuse in a
// scalar: a control character, a separator other than the space, a
// format character such as the byte-order mark, an invalid byte.
func notPrintable(r rune) bool { return r == utf8.RuneError || !strconv.IsPrint(r) }

var (
	plainSafe = regexp.MustCompile(`^[A-Za-z0-9/_.$][A-Za-z0-9/_.~%?=&{}()\[\]*+,;:@!$-]*$`)
	plainNot  = regexp.MustCompile(`^(?i:true|false|yes|no|on|off|null|~|[-+0-9.eE_]+)$`)
)

// quote writes s as a YAML scalar that reads back as the same string:
// plain when it is safe so, single-quoted when every rune is printable
// (inside single quotes only a quote is special, and it is doubled),
// else double-quoted with escapes (\n, \u2028), which YAML reads as Go
// writes them. None of the three can end the line it is on.
func quote(s string) string {
	switch {
	case s == "":
		return `""`
	case plainSafe.MatchString(s) && !plainNot.MatchString(s) && !strings.Contains(s, ": ") && !strings.HasSuffix(s, ":"):
		return s
	case !strings.ContainsFunc(s, notPrintable):
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return strconv.Quote(strings.ToValidUTF8(s, "\uFFFD"))
}
