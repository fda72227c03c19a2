package targets

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

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
// the line and the field.
func LoadFile(path string) (*Target, error) {
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
	return Parse(path, data)
}

// Parse builds a target from target-file bytes; name is used in errors.
func Parse(name string, data []byte) (*Target, error) {
	t, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	t.Warnings = append(t.Warnings, todos(name, data)...)
	return t, nil
}

// parse builds the target of a file with one create:, or, with
// operations:, the first operation's, which holds them all.
func parse(name string, data []byte) (*Target, error) {
	doc, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	if doc.value("operations") != nil {
		return doc.operations()
	}
	var spec fileSpec
	if err := doc.decode(&spec); err != nil {
		return nil, err
	}
	return doc.build(spec)
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
		out, secrets, err := expandEnv(v)
		if err != nil {
			return "", d.errorf(field, "%v", err)
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
	port, err := freePort()
	if err != nil {
		return 0, d.errorf("process", "%v", err)
	}
	return port, nil
}

func (d *document) build(s fileSpec) (*Target, error) {
	t := &Target{Name: s.Name, Source: d.name}
	expand := d.expander(t)

	raw, err := expand("base_url", s.BaseURL)
	if err != nil {
		return nil, err
	}
	port, err := d.processPort(s.Process)
	if err != nil {
		return nil, err
	}
	if raw, err = d.renderBaseURL(raw, port); err != nil {
		return nil, err
	}
	if t.BaseURL, err = d.baseURL(raw, t); err != nil {
		return nil, err
	}
	if t.Name == "" {
		t.Name = t.BaseURL.Host
	}
	if err := d.tlsConfig(s.TLS, t); err != nil {
		return nil, err
	}
	if err := d.instances(s.Instances, t, expand); err != nil {
		return nil, err
	}

	if err := d.setup(s.Setup, t, expand); err != nil {
		return nil, err
	}
	t.setups = &setups{done: map[string]*setupOnce{}}
	if t.Create, err = d.create(s.Create, t); err != nil {
		return nil, err
	}

	if t.Key, err = d.key(s.Key, t.Create); err != nil {
		return nil, err
	}

	if t.Headers, err = d.headers("headers", s.Headers, t, expand); err != nil {
		return nil, err
	}

	if t.Oracle, err = d.oracle(s.Oracle, s.Create.IDField, t, expand); err != nil {
		return nil, err
	}

	if err := d.buildReconcile(t, s); err != nil {
		return nil, err
	}
	if t.Profile, err = d.profile(s.Profile, s.Statuses); err != nil {
		return nil, err
	}
	t.Key.Required = t.Profile.KeyRequired
	if s.Key.Required != nil {
		t.Key.Required = *s.Key.Required
	}
	if f := s.FailTrigger; f != nil {
		if !ValidHeaderName(f.Header) {
			return nil, d.errorf("fail_trigger.header", "%q is not a header name", f.Header)
		}
		if err := checkHeader(f.Header, f.Value); err != nil {
			return nil, d.errorf("fail_trigger.value", "%v", err)
		}
		t.FailTrigger = &FailTrigger{Header: f.Header, Value: f.Value}
	}
	t.Volatile = s.Volatile
	t.InProgressTimeout = 30 * time.Second
	if s.InProgressTimeout != "" {
		if t.InProgressTimeout, err = time.ParseDuration(s.InProgressTimeout); err != nil || t.InProgressTimeout <= 0 {
			return nil, d.errorf("in_progress_timeout", "%q is not a positive duration such as 30s", s.InProgressTimeout)
		}
	}
	if err := d.lifecycle(s, t, port, expand); err != nil {
		return nil, err
	}
	t.AllowRemote = s.AllowRemote
	if err := d.tenants(s.Tenants, t, expand); err != nil {
		return nil, err
	}
	if err := d.cleanup(s.Cleanup, t, expand); err != nil {
		return nil, err
	}
	if t.Cleanup != nil && t.Cleanup.Path != nil && (t.Oracle.Kind() == "command" || t.Oracle.Kind() == "field") {
		// A count names no resource: a delete cleanup would delete nothing.
		return nil, d.errorf("cleanup.delete", "needs an oracle that names ids (list, sql, lookup); with oracle.%s use cleanup.command", t.Oracle.Kind())
	}
	t.Direct = t.newDirectClient()
	return t, nil
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
// file already, so it is not one).
func expandEnv(s string) (string, []string, error) {
	var out strings.Builder
	var secrets []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			out.WriteString(s)
			return out.String(), secrets, nil
		}
		j := strings.Index(s[i:], "}")
		if j < 0 {
			return "", nil, fmt.Errorf("unclosed ${ in %q", s)
		}
		name, fallback, hasDefault := strings.Cut(s[i+2:i+j], ":-")
		val, ok := os.LookupEnv(name)
		switch {
		case name == "":
			return "", nil, fmt.Errorf("empty variable name in %q", s[i:i+j+1])
		case hasDefault && val == "":
			val = fallback
		case !ok:
			return "", nil, fmt.Errorf("environment variable %q is not set", name)
		default:
			secrets = append(secrets, val)
		}
		out.WriteString(s[:i])
		out.WriteString(val)
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
}

func parseDocument(name string, data []byte) (*document, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:1: a target file is a YAML mapping (base_url, create, oracle, ...)", name)
	}
	return &document{name: name, root: root.Content[0]}, nil
}

// errorf formats an error for a field given by its dotted path.
func (d *document) errorf(field, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", d.name, d.line(field), d.label(field), fmt.Sprintf(format, args...))
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
