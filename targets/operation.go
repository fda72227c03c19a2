package targets

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A target file may describe several idempotent operations of one API
// (create an order, create a payment, refund) under operations:. Each is
// read as a view of the whole file: the file-level fields with the
// operation's own over them. A check drives one operation as if it were
// the whole target, so every check stays as it is; what belongs to the
// service rather than to one call (base URL, process, tenants, limits,
// cleanup, the direct client) is the first operation's, shared.

// operationSpec is one item of operations:, as written.
type operationSpec struct {
	Name              string      `yaml:"name" required:"true"`
	Setup             []setupSpec `yaml:"setup"`
	Create            createSpec  `yaml:"create" required:"true"`
	Key               keySpec     `yaml:"key"`
	Oracle            oracleSpec  `yaml:"oracle"`
	Lookup            *lookupSpec `yaml:"lookup"`
	Statuses          statusSpec  `yaml:"statuses"`
	Volatile          []string    `yaml:"volatile_fields"`
	Profile           string      `yaml:"profile"`
	InProgressTimeout string      `yaml:"in_progress_timeout"`
	FailTrigger       *failSpec   `yaml:"fail_trigger"`
}

// overridable are the file-level fields an operation may set for itself.
var overridable = []string{"setup", "create", "key", "oracle", "lookup", "statuses", "volatile_fields", "profile", "in_progress_timeout", "fail_trigger"}

// operationName is what an operation may be called: it becomes a label,
// a report section and a --operation value.
var operationName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// opView is what a document knows of the operation it is a view of.
type opView struct {
	prefix string          // "operations[1]."
	own    map[string]bool // the fields the operation sets
	file   map[string]bool // the fields the file sets at its top level
}

// label is how an error names a field: on an operation's view, a field
// the operation set (or should have set: the file has none) is named
// under operations[i].
func (d *document) label(field string) string {
	if d.op == nil || field == "" {
		return field
	}
	top, _, _ := strings.Cut(field, ".")
	top, _ = fieldIndex(top)
	if d.op.own[top] || (!d.op.file[top] && slices.Contains(overridable, top)) {
		return d.op.prefix + field
	}
	return field
}

// value is the node of a top-level field, or nil.
func (d *document) value(key string) *yaml.Node {
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		if d.root.Content[i].Value == key {
			return d.root.Content[i+1]
		}
	}
	return nil
}

// operations builds a file with operations: the first operation's target
// holds the others in Operations (itself first). Each operation's
// findings go to the file's; nil when there is no operation to build.
func (d *document) operations() *Target {
	if d.value("create") != nil {
		d.keep(d.errorf("create", "give create or operations, not both (a file's single create is one unnamed operation)"))
	}
	list := d.value("operations")
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		d.keep(d.errorf("operations", "expected a list of operations, each with a name and a create"))
		return nil
	}
	file := map[string]bool{}
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		file[d.root.Content[i].Value] = true
	}
	var ops []*Target
	for i, item := range list.Content {
		at := fmt.Sprintf("operations[%d]", i)
		if err := d.walk(item, reflect.TypeFor[operationSpec](), at); !d.keep(err) {
			continue
		}
		view := &document{name: d.name, root: d.over(item), op: &opView{prefix: at + ".", own: map[string]bool{}, file: file}, found: d.found}
		var name string
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], item.Content[j+1]
			view.op.own[k.Value] = true
			if k.Value != "name" {
				continue
			}
			name = v.Value
			if !operationName.MatchString(name) {
				d.keep(d.errorAt(v.Line, at+".name", "%q is not an operation name (lowercase letters, digits and dashes)", name))
			}
			if slices.ContainsFunc(ops, func(o *Target) bool { return o.Operation == name }) {
				d.keep(d.errorAt(v.Line, at+".name", "%q names an operation already", name))
			}
		}
		var spec fileSpec
		view.keep(view.decode(&spec))
		t := view.build(spec)
		t.Operation = name
		ops = append(ops, t)
	}
	if len(ops) == 0 {
		return nil
	}
	first := ops[0]
	for _, t := range ops[1:] {
		first.share(t)
	}
	first.Operations = ops
	return first
}

// over is the file's top-level mapping with an operation's fields in
// place of the file's, in line order so a type error finds its field.
func (d *document) over(item *yaml.Node) *yaml.Node {
	type pair struct{ k, v *yaml.Node }
	var pairs []pair
	own := map[string]bool{}
	for j := 0; j+1 < len(item.Content); j += 2 {
		if k := item.Content[j]; k.Value != "name" {
			own[k.Value] = true
			pairs = append(pairs, pair{k, item.Content[j+1]})
		}
	}
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		if k := d.root.Content[i]; k.Value != "operations" && !own[k.Value] {
			pairs = append(pairs, pair{k, d.root.Content[i+1]})
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].k.Line < pairs[j].k.Line })
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: item.Line, Column: item.Column}
	for _, p := range pairs {
		out.Content = append(out.Content, p.k, p.v)
	}
	return out
}

// share makes t use what belongs to the service, not to one operation:
// first's process, addresses, tenants, cleanup and direct client (so the
// run's gate sees every request), and every operation's secrets.
func (first *Target) share(t *Target) {
	t.Name, t.BaseURL, t.Headers = first.Name, first.BaseURL, first.Headers
	t.Lifecycle, t.CrashWindow, t.Instances = first.Lifecycle, first.CrashWindow, first.Instances
	t.Tenants, t.TLS, t.AllowRemote, t.Cleanup, t.Direct = first.Tenants, first.TLS, first.AllowRemote, first.Cleanup, first.Direct
	for _, s := range t.Secrets {
		if !slices.Contains(first.Secrets, s) {
			first.Secrets = append(first.Secrets, s)
		}
	}
	t.Secrets = first.Secrets
	first.Warnings = append(first.Warnings, t.Warnings...)
	t.Warnings = nil // said once, by the file-level target
}

// Each is what a run drives: the file's operations, or the target itself
// when the file declares one unnamed operation.
func (t *Target) Each() []*Target {
	if len(t.Operations) == 0 {
		return []*Target{t}
	}
	return t.Operations
}

// Select keeps the named operations (all when names is empty), in the file's order; an unknown
// name is an error that lists the known ones.
func (t *Target) Select(names []string) error {
	if len(names) == 0 {
		return nil
	}
	var known []string
	for _, o := range t.Operations {
		known = append(known, o.Operation)
	}
	for _, n := range names {
		if !slices.Contains(known, n) {
			if len(known) == 0 {
				return fmt.Errorf("--operation %s: the target file declares no operations", n)
			}
			return fmt.Errorf("--operation %s: no such operation (known: %s)", n, strings.Join(known, ", "))
		}
	}
	var kept []*Target
	for _, o := range t.Operations {
		if slices.Contains(names, o.Operation) {
			kept = append(kept, o)
		}
	}
	t.Operations = kept
	return nil
}
