package targets

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemspec/idemspec/internal/freeport"
	"go.yaml.in/yaml/v3"
)

// fileSpec is the target file as written. Field tags are the names users
// type; every field is documented in docs/TARGET-FILE.md.
type fileSpec struct {
	Name              string       `yaml:"name"`
	BaseURL           string       `yaml:"base_url" required:"true"`
	Setup             []setupSpec  `yaml:"setup"`
	Create            createSpec   `yaml:"create" required:"true"`
	Key               keySpec      `yaml:"key"`
	Headers           stringMap    `yaml:"headers"`
	Oracle            oracleSpec   `yaml:"oracle" required:"true"`
	Lookup            *lookupSpec  `yaml:"lookup"`
	Reconcile         string       `yaml:"reconcile"`
	Profile           string       `yaml:"profile"`
	Statuses          statusSpec   `yaml:"statuses"`
	Volatile          []string     `yaml:"volatile_fields"`
	InProgressTimeout string       `yaml:"in_progress_timeout"`
	FailTrigger       *failSpec    `yaml:"fail_trigger"`
	Process           *processSpec `yaml:"process"`
	Restart           *restartSpec `yaml:"restart"`
	Tenants           []tenantSpec `yaml:"tenants"`
	TLS               *tlsSpec     `yaml:"tls"`
	Instances         []string     `yaml:"instances"`
	AllowRemote       bool         `yaml:"allow_remote"`
	Cleanup           *cleanupSpec `yaml:"cleanup"`

	// Operations are read by operations(), each over a view of the file
	// (operation.go); the strict walk skips a list.
	Operations []operationSpec `yaml:"operations"`
}

type createSpec struct {
	Method      string `yaml:"method"`
	Path        string `yaml:"path" required:"true"`
	Body        string `yaml:"body" required:"true"`
	ContentType string `yaml:"content_type"`
	IDField     string `yaml:"id_field" required:"true"`
}

type keySpec struct {
	In        string `yaml:"in"`
	Name      string `yaml:"name"`
	Header    string `yaml:"header"` // the older spelling of in: header, name: ...
	Format    string `yaml:"format"`
	Pattern   string `yaml:"pattern"`
	MaxLength *int   `yaml:"max_length"`
	Required  *bool  `yaml:"required"`
}

// statusSpec overrides single codes of the profile; nil keeps its code.
type statusSpec struct {
	Mismatch   *int `yaml:"mismatch"`
	InFlight   *int `yaml:"in_flight"`
	MissingKey *int `yaml:"missing_key"`
}

type failSpec struct {
	Header string `yaml:"header" required:"true"`
	Value  string `yaml:"value" required:"true"`
}

// oracleSpec holds exactly one way of counting.
type oracleSpec struct {
	List    *listSpec     `yaml:"list"`
	Lookup  *idLookupSpec `yaml:"lookup"`
	SQL     *sqlSpec      `yaml:"sql"`
	Command *commandSpec  `yaml:"command"`
	Field   *fieldSpec    `yaml:"field"`
	Wire    *wireSpec     `yaml:"wire"`
}

type listSpec struct {
	Path        string     `yaml:"path" required:"true"`
	Items       string     `yaml:"items"`
	IDField     string     `yaml:"id_field"`
	MarkerField string     `yaml:"marker_field"`
	Pages       *pagesSpec `yaml:"pages"`
}

type lookupSpec struct {
	Path    string `yaml:"path" required:"true"`
	IDField string `yaml:"id_field"`
}

// MaxFileSize caps a target file: loading is linear, but a file is
// read whole into memory, and no sensible target file comes near this.
const MaxFileSize = 16 << 20

// LoadFile reads and validates a target file. Every error names the file,
// the line and the field; a file with errors is refused with all of them
// (a *FileError).
func LoadFile(path string) (*Target, error) {
	return LoadFileWith(path, LoadOptions{})
}

// LoadOptions say how forgiving loading is.
type LoadOptions struct {
	// AllowUnset lets a ${VAR} the environment does not set through as
	// a finding (Unset), read as empty, and leaves the fields holding
	// one unjudged: validate checks a file without the secrets. Such a
	// target must not be run (Target.Unset says so).
	AllowUnset bool
}

// LoadFileWith is LoadFile with options.
func LoadFileWith(path string, o LoadOptions) (*Target, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWith(path, data, o)
}

// ReadFile reads a target file whole, refusing one past MaxFileSize.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("target file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("target file: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: a target file is at most %d MiB", path, MaxFileSize>>20)
	}
	return data, nil
}

// Parse builds a target from target-file bytes; name is used in errors.
func Parse(name string, data []byte) (*Target, error) {
	return ParseWith(name, data, LoadOptions{})
}

// ParseWith is Parse with options. It reads the whole file whatever it
// finds: a file with errors is a *FileError holding every error, TODO,
// warning and unset variable in line order; a good file's target has
// its TODOs and warnings in Findings (and Warnings). A file that
// describes an MCP server is an *MCPFileError, found before anything
// else is read of it.
func ParseWith(name string, data []byte, o LoadOptions) (*Target, error) {
	doc, err := parseDocument(name, data)
	if err == nil && describesMCP(doc) {
		return nil, &MCPFileError{File: name}
	}
	found := newFindings(o)
	for _, f := range todos(name, data) {
		found.add(f)
	}
	var t *Target
	if err != nil {
		found.add(err.(Finding))
	} else {
		doc.found = found
		t = doc.target()
	}
	if err := found.err(); err != nil {
		return nil, err
	}
	t.Findings, t.Warnings, t.Unset = found.sorted(), nil, found.unset
	for _, f := range t.Findings {
		if f.Kind != Unset {
			t.Warnings = append(t.Warnings, f.Error())
		}
	}
	return t, nil
}

// MCPFileError is what loading a file that describes an MCP server (it
// has a top-level mcp:) as an HTTP target says: package targets/mcp
// reads such a file.
type MCPFileError struct{ File string }

func (e *MCPFileError) Error() string {
	return e.File + " describes an MCP server (mcp:), not an HTTP target"
}

// target builds the target of a file with one create:, or, with
// operations:, the first operation's, which holds them all. What it
// finds goes to d.found.
func (d *document) target() *Target {
	if d.value("operations") != nil {
		return d.operations()
	}
	var spec fileSpec
	d.keep(d.decode(&spec))
	return d.build(spec)
}

// decodeDocument parses target-file bytes into spec, strictly (every
// key known), keeping where each field stands for errors.
func decodeDocument(name string, data []byte, spec any) (*document, error) {
	doc, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	return doc, doc.decode(spec)
}

// expander expands ${ENV} in a field of t's file, keeping what came from
// the environment as t's secrets.
func (d *document) expander(t *Target) expander {
	return func(field, v string) (string, error) {
		out, secrets, unset, err := expandEnv(v)
		if err != nil {
			return "", d.errorf(field, "%v", err)
		}
		for _, name := range unset {
			err := d.errorf(field, "environment variable %q is not set", name)
			if !d.found.allowUnset {
				return "", err
			}
			f := err.(Finding)
			f.Kind, f.Message = Unset, f.Message+": validate went on without it, run needs it"
			d.found.add(f)
			if !slices.Contains(d.found.unset, name) {
				d.found.unset = append(d.found.unset, name)
			}
		}
		d.secrets(t, field, secrets...)
		return out, nil
	}
}

// processPort picks the free loopback port of a process: section
// ({{.Port}}); 0 without one.
func (d *document) processPort(p *processSpec) (int, error) {
	if p == nil {
		return 0, nil
	}
	port, err := freeport.Pick()
	if err != nil {
		return 0, d.errorf("process", "%v", err)
	}
	return port, nil
}

// build reads every section of the file into a target, each section's
// error kept as a finding: a section that needs another's result (the
// key needs the create body) reads what there is. The target is only
// used when the file holds no error.
func (d *document) build(s fileSpec) *Target {
	t := &Target{Name: s.Name, Source: d.name}
	expand := d.expander(t)

	port, err := d.processPort(s.Process)
	d.keep(err)
	t.BaseURL = d.buildBaseURL(s.BaseURL, port, t, expand)
	if t.Name == "" {
		t.Name = or(t.written, t.BaseURL.Host)
	}
	d.keep(d.tlsConfig(s.TLS, t))
	d.keep(d.instances(s.Instances, t, expand))

	d.keep(d.setup(s.Setup, t, expand))
	t.setups = &setups{done: map[string]*setupOnce{}}
	t.Create, err = d.create(s.Create, t)
	d.keep(err)

	t.Key, err = d.key(s.Key, t.Create)
	d.keep(err)

	t.Headers, err = d.headers("headers", s.Headers, t, expand)
	d.keep(err)

	// A failed oracle is left nil, never a typed nil the checks after
	// would call.
	if o, err := d.oracle(s.Oracle, s.Create.IDField, t, expand); d.keep(err) {
		t.Oracle = o
	}

	d.keep(d.buildReconcile(t, s))
	t.Profile, err = d.profile(s.Profile, s.Statuses)
	d.keep(err)
	t.Key.Required = t.Profile.KeyRequired
	if s.Key.Required != nil {
		t.Key.Required = *s.Key.Required
	}
	if f := s.FailTrigger; f != nil {
		switch {
		case !ValidHeaderName(f.Header):
			d.keep(d.errorf("fail_trigger.header", "%q is not a header name", f.Header))
		case checkHeader(f.Header, f.Value) != nil:
			d.keep(d.errorf("fail_trigger.value", "%v", checkHeader(f.Header, f.Value)))
		default:
			t.FailTrigger = &FailTrigger{Header: f.Header, Value: f.Value}
		}
	}
	t.Volatile = s.Volatile
	t.InProgressTimeout = 30 * time.Second
	if s.InProgressTimeout != "" {
		if t.InProgressTimeout, err = time.ParseDuration(s.InProgressTimeout); err != nil || t.InProgressTimeout <= 0 {
			d.keep(d.errorf("in_progress_timeout", "%q is not a positive duration such as 30s", s.InProgressTimeout))
		} else if t.InProgressTimeout > MaxInProgressTimeout {
			d.keep(d.errorf("in_progress_timeout", "%s is longer than %s: idemspec adds it to its request timeout, and the sum would overflow", t.InProgressTimeout, MaxInProgressTimeout))
		}
	}
	d.keep(d.lifecycle(s, t, port, expand))
	t.AllowRemote = s.AllowRemote
	d.keep(d.tenants(s.Tenants, t, expand))
	d.keep(d.cleanup(s.Cleanup, t, expand))
	if t.Cleanup != nil && t.Cleanup.Path != nil && t.Oracle != nil && (t.Oracle.Kind() == "command" || t.Oracle.Kind() == "field") {
		// A count names no resource: a delete cleanup would delete nothing.
		d.keep(d.errorf("cleanup.delete", "needs an oracle that names ids (list, sql, lookup); with oracle.%s use cleanup.command", t.Oracle.Kind()))
	}
	d.found.secrets = append(d.found.secrets, t.Secrets...)
	t.Direct = t.NewDirectClient()
	return t
}

// buildBaseURL reads base_url ({{.Port}} and ${ENV} filled in). One that
// is wrong, missing or names an unset variable is kept as a finding and
// read as a loopback stand-in of the same scheme, so that the fields
// checked against it (tls, instances) are judged still.
func (d *document) buildBaseURL(written string, port int, t *Target, expand expander) *url.URL {
	raw, err := expand("base_url", written)
	if d.keep(err) {
		raw, err = d.renderBaseURL(raw, port)
	}
	if d.keep(err) {
		u, err := d.baseURL(raw, t)
		if d.keep(err) {
			return u
		}
	}
	scheme := "http"
	if strings.HasPrefix(written, "https:") {
		scheme = "https"
	}
	t.written = written
	return &url.URL{Scheme: scheme, Host: "localhost"}
}

// buildReconcile reads lookup and reconcile: how a client can learn the
// fate of a request whose answer it lost.
func (d *document) buildReconcile(t *Target, s fileSpec) error {
	if s.Lookup != nil {
		t.LookupPath, t.LookupIDField = s.Lookup.Path, or(s.Lookup.IDField, "resource_id")
		if _, _, err := d.pathTemplate("lookup.path", s.Lookup.Path, struct{ Key string }{probeKey}, "{{.Key}}", probeKey); err != nil {
			return err
		}
		if _, err := d.jsonPathField("lookup.id_field", t.LookupIDField); err != nil {
			return err
		}
	}
	t.Reconcile = s.Reconcile
	switch s.Reconcile {
	case "":
		t.Reconcile = ReconcileNone
		if s.Lookup != nil {
			t.Reconcile = ReconcileLookup
		}
	case ReconcileLookup:
		if s.Lookup == nil {
			return d.errorf("reconcile", "lookup needs a lookup.path")
		}
	case ReconcileOracle:
		if t.Oracle == nil {
			return nil // the oracle's own error says enough
		}
		if _, ok := t.Oracle.(ClientOracle); !ok {
			return d.errorf("reconcile", "a %s oracle is not something a client can call", t.Oracle.Kind())
		}
		if l, ok := t.Oracle.(*ListOracle); ok && l.Pages != nil {
			return d.errorf("reconcile", "oracle: a client searches one answer, and oracle.list.pages spans several: use lookup")
		}
	case ReconcileNone:
	default:
		return d.errorf("reconcile", "unknown %q (known: lookup, oracle, none)", s.Reconcile)
	}
	return nil
}

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

// expandEnv replaces ${NAME} with the environment variable's value, and
// ${NAME:-default} with the default when the variable is unset or empty.
// A bare $ is left alone (it is common in URLs and JSON). The values it
// took from the environment are returned as secrets (a default is in the
// file already, so it is not one), and the names of the variables that
// are not set, which it reads as empty.
func expandEnv(s string) (out string, secrets, unset []string, err error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), secrets, unset, nil
		}
		j := strings.Index(s[i:], "}")
		if j < 0 {
			return "", nil, nil, fmt.Errorf("unclosed ${ in %q", s)
		}
		name, fallback, hasDefault := strings.Cut(s[i+2:i+j], ":-")
		val, ok := os.LookupEnv(name)
		switch {
		case name == "":
			return "", nil, nil, fmt.Errorf("empty variable name in %q", s[i:i+j+1])
		case hasDefault && val == "":
			val = fallback
		case !ok:
			unset = append(unset, name)
		default:
			secrets = append(secrets, val)
		}
		b.WriteString(s[:i])
		b.WriteString(val)
		s = s[i+j+1:]
	}
}

// document is a parsed target file that knows where each field stands.
type document struct {
	name string
	root *yaml.Node
	// op is set on the view of one operation: its fields' errors name
	// it (operations[1].create.path).
	op *opView
	// found collects what loading finds (findings.go); the views of a
	// file's operations share the file's.
	found *findings
}

func parseDocument(name string, data []byte) (*document, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, Finding{File: name, Message: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, Finding{File: name, Line: 1, Message: "a target file is a YAML mapping (base_url, create, oracle, ...)"}
	}
	return &document{name: name, root: root.Content[0], found: newFindings(LoadOptions{})}, nil
}

// errorf is an error for a field given by its dotted path: a Finding,
// printed file:line: field: message.
func (d *document) errorf(field, format string, args ...any) error {
	return d.errorAt(d.line(field), d.label(field), format, args...)
}

// line finds the line of a dotted field path, or of its nearest parent.
func (d *document) line(field string) int {
	n := d.root
	line := n.Line
	for _, part := range strings.Split(field, ".") {
		part, index := fieldIndex(part)
		next := (*yaml.Node)(nil)
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next != nil && index >= 0 && next.Kind == yaml.SequenceNode && index < len(next.Content) {
			next = next.Content[index]
			line = next.Line
		}
		if next == nil {
			return line
		}
		n = next
	}
	return line
}

// fieldIndex splits "setup[1]" into "setup" and 1 (-1 without an index).
func fieldIndex(part string) (string, int) {
	name, rest, ok := strings.Cut(part, "[")
	if !ok {
		return part, -1
	}
	i, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
	if err != nil {
		return part, -1
	}
	return name, i
}

// describesMCP says the file describes an MCP server: its top-level mcp:
// holds something.
func describesMCP(d *document) bool {
	n := d.value("mcp")
	return n != nil && n.ShortTag() != "!!null"
}
