package targets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"text/template"
	tparse "text/template/parse"
)

// The target file's templates are a small language: text and the
// fields a field's table names ({{.Marker}}, {{.Setup.order.id}}),
// nothing else. text/template's loops, conditions, variables,
// functions and nested templates are refused when the file loads:
// {{range 100000000000}} would spin the load for ever, and printf's
// widths or a pipeline could make a value other than the one named.
// So rendering is a walk over the text once, each field writing one
// value, and what it writes is capped (MaxRendered).
//
// Values the target answered (a setup answer's field, a listed id) are
// escaped for where they stand, as html/template does for HTML: in a
// path as one segment, in a query as one parameter's value, in a JSON
// body as a JSON string's content or a JSON value. A value can then
// never add a path segment, a query parameter or a JSON member.

// MaxRendered bounds what one template renders, in bytes: a body or a
// path. A field repeated over a large setup answer is refused, not sent.
const MaxRendered = 1 << 20

// escaping is how a template's values are written where they stand.
type escaping int

const (
	asWritten escaping = iota // a header, a process field: as they are
	inPath                    // a path: a segment before ?, a query value after
	inJSON                    // a JSON body
	inForm                    // a form body (a=1&b=2): a query value
)

// bodyEscaping is how a body of contentType escapes its values: a body
// that is neither JSON nor a form is sent as rendered.
func bodyEscaping(contentType string) escaping {
	ct := strings.ToLower(contentType)
	switch {
	case strings.Contains(ct, "json"):
		return inJSON
	case strings.Contains(ct, "x-www-form-urlencoded"):
		return inForm
	}
	return asWritten
}

// escaper writes one field's value where it stands.
type escaper func(v any) (string, error)

var (
	segment escaper = func(v any) (string, error) { return scalar(v, url.PathEscape) }
	query   escaper = func(v any) (string, error) { return scalar(v, url.QueryEscape) }
)

// parseTemplate parses one template field of the target file, refusing
// all but text and fields, and adds each field's escaper.
func parseTemplate(name, text string, esc escaping) (*template.Template, error) {
	tmpl, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("not a valid template: %s", templateReason(err))
	}
	if len(tmpl.Templates()) > 1 {
		return nil, errors.New("{{define}} and {{block}} are not part of a target file's templates: " + onlyFields)
	}
	if tmpl.Tree == nil || tmpl.Root == nil {
		return tmpl, nil
	}
	state := escapeState{esc: esc}
	funcs := template.FuncMap{}
	for _, n := range tmpl.Root.Nodes {
		switch n := n.(type) {
		case *tparse.TextNode:
			state.text(n.Text)
		case *tparse.CommentNode:
		case *tparse.ActionNode:
			literal, err := onlyAField(n)
			if err != nil {
				return nil, err
			}
			if literal != nil {
				state.text([]byte(literal.Text)) // the file's own text
				continue
			}
			esc, err := state.escaper()
			if err != nil {
				return nil, fmt.Errorf("%s: %v", construct(n), err)
			}
			if esc != nil {
				// One function per field, so its error names the field.
				fn, field := fmt.Sprintf("idemspecEscape%d", len(funcs)), n.String()
				funcs[fn] = func(v any) (string, error) {
					s, err := esc(v)
					if err != nil {
						return "", fmt.Errorf("%s %v", field, err)
					}
					return s, nil
				}
				id := tparse.NewIdentifier(fn).SetTree(tmpl.Tree).SetPos(n.Pos)
				n.Pipe.Cmds = append(n.Pipe.Cmds, &tparse.CommandNode{NodeType: tparse.NodeCommand, Pos: n.Pos, Args: []tparse.Node{id}})
			}
		default:
			return nil, fmt.Errorf("%s is not part of a target file's templates: %s", construct(n), onlyFields)
		}
	}
	return tmpl.Funcs(funcs), nil
}

const onlyFields = "they hold text and fields only, as {{.Marker}} (no range, if, with, variables or functions; {{\"{{\"}} writes {{)"

// onlyAField refuses an action that is not one field chain ({{.A.B}})
// or a quoted literal ({{"{{"}}, how a template writes "{{"), which it
// returns.
func onlyAField(n *tparse.ActionNode) (*tparse.StringNode, error) {
	p := n.Pipe
	if len(p.Decl) == 0 && len(p.Cmds) == 1 && len(p.Cmds[0].Args) == 1 {
		switch a := p.Cmds[0].Args[0].(type) {
		case *tparse.FieldNode:
			return nil, nil
		case *tparse.StringNode:
			return a, nil
		}
	}
	return nil, fmt.Errorf("%s is not part of a target file's templates: %s", construct(n), onlyFields)
}

// construct names a node of the tree for an error: {{range ...}}.
func construct(n tparse.Node) string {
	s := n.String()
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

// escapeState follows the text before each field, to know where the
// field stands: in a path or its query, in or out of a JSON string.
type escapeState struct {
	esc      escaping
	query    bool // a ? came before (in a path)
	inString bool // within a JSON string
	escaped  bool // just after a backslash in a JSON string
}

func (s *escapeState) text(b []byte) {
	for _, c := range b {
		switch s.esc {
		case inPath:
			if c == '?' || c == '#' {
				s.query = true
			}
		case inJSON:
			switch {
			case s.escaped:
				s.escaped = false
			case s.inString && c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = !s.inString
			}
		}
	}
}

// escaper is what the next field's value goes through (nil: nothing).
func (s *escapeState) escaper() (escaper, error) {
	switch s.esc {
	case inPath:
		if s.query {
			return query, nil
		}
		return segment, nil
	case inForm:
		return query, nil
	case inJSON:
		switch {
		case s.escaped:
			return nil, errors.New("a field just after a backslash in a JSON string: remove the backslash")
		case s.inString:
			return jsonStringContent, nil
		}
		return jsonValue, nil
	}
	return nil, nil
}

// scalar writes a string, number, boolean or null through escape; an
// object or a list is not one path segment or query value.
func scalar(v any, escape func(string) string) (string, error) {
	switch v := v.(type) {
	case string:
		return escape(v), nil
	case json.Number:
		return escape(v.String()), nil
	case float64:
		return escape(strconv.FormatFloat(v, 'f', -1, 64)), nil
	case bool:
		return strconv.FormatBool(v), nil
	case int:
		return strconv.Itoa(v), nil
	case nil:
		return "", errors.New("is null in the answer, not a value")
	case map[string]any:
		return "", errors.New("is an object in the answer, not one value")
	case []any:
		return "", errors.New("is a list in the answer, not one value")
	}
	return escape(fmt.Sprint(v)), nil
}

// jsonStringContent writes v as the inside of a JSON string: quotes,
// backslashes and control characters escaped.
func jsonStringContent(v any) (string, error) {
	s, err := scalar(v, func(s string) string { return s })
	if err != nil {
		return "", err
	}
	b, err := marshal(s)
	if err != nil {
		return "", err
	}
	return string(b[1 : len(b)-1]), nil
}

// jsonValue writes v as one JSON value where a value stands
// ("amount":{{.Variant}}): a number as written, a string quoted (so
// "amount":{{.Setup.order.total}} is a number when the answer's is,
// and a string can add no member), an object or a list as JSON.
func jsonValue(v any) (string, error) {
	if s, ok := v.(string); ok && isJSONNumber(s) {
		return s, nil
	}
	if n, ok := v.(json.Number); ok {
		return n.String(), nil
	}
	b, err := marshal(v)
	return string(b), err
}

func isJSONNumber(s string) bool {
	var n json.Number
	return s != "" && json.Unmarshal([]byte(s), &n) == nil && !strings.ContainsAny(s, " \t\r\n")
}

// marshal is json.Marshal without HTML escaping: the bytes stay those
// the value holds.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// render executes tmpl with data into at most MaxRendered bytes.
func render(tmpl *template.Template, data any) (string, error) {
	w := cappedBuffer{max: MaxRendered}
	if err := tmpl.Execute(&w, data); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

// execute renders a template to a string; an error names the field.
func execute(tmpl *template.Template, data any) (string, error) {
	s, err := render(tmpl, data)
	if err != nil {
		return "", fmt.Errorf("%s: %s", tmpl.Name(), templateReason(err))
	}
	return s, nil
}

// errTooLarge ends a rendering past MaxRendered.
var errTooLarge = fmt.Errorf("renders to more than %d MiB, the most one template may render: refused", MaxRendered>>20)

type cappedBuffer struct {
	b   bytes.Buffer
	max int
}

func (w *cappedBuffer) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, errTooLarge
	}
	return w.b.Write(p)
}

// JSONTemplate parses a template of JSON text of a target file
// elsewhere (an MCP tool's args): the same language, its values JSON.
func JSONTemplate(name, text string) (*template.Template, error) {
	return parseTemplate(name, text, inJSON)
}

// Render renders a template of the target file's language, capped at
// MaxRendered bytes.
func Render(tmpl *template.Template, data any) (string, error) {
	return render(tmpl, data)
}
