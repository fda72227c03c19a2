package openapi

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// Document is a loaded OpenAPI 3.0 or 3.1 document.
type Document struct {
	name      string
	t         *openapi3.T
	nounsOnce sync.Once
	nouns     map[string]bool // the singular names of the document's path segments
}

// Load reads an OpenAPI document (JSON or YAML). References within the
// document are resolved; references to other files or URLs are refused,
// so drafting never reads beyond the one document.
func Load(name string, data []byte) (*Document, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	t, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !strings.HasPrefix(t.OpenAPI, "3.") {
		return nil, fmt.Errorf("%s: not an OpenAPI 3.0 or 3.1 document (openapi: %q): convert a Swagger 2.0 document first", name, t.OpenAPI)
	}
	if t.Paths == nil || t.Paths.Len() == 0 {
		return nil, fmt.Errorf("%s: the document has no paths", name)
	}
	return &Document{name: name, t: t}, nil
}

// Options choose what to draft.
type Options struct {
	Operations []string // operationIds to draft; none: see All
	All        bool     // every POST; neither: the first POST that declares a key
	KeyHeader  string   // the header the API takes its key in when an operation declares none ("": none assumed)
	BaseURL    string   // base_url; "": the document's first server
	// CheckKeyPattern says why a key's pattern cannot be the target's
	// key format (nil: it can); nil takes every pattern.
	CheckKeyPattern func(pattern string) error
}

// Draft is a drafted target file: one operation's create:, key: and
// oracle: at its top level, or several operations under operations:.
type Draft struct {
	Plans []*Plan // the operations, in the file's order
	Text  []byte
	TODOs []string // what the file leaves to its author, as "field: what to do"
}

// Draft drafts one target file of the operations the options choose.
// One operation keeps the plain form (create: at the top level), which
// every older idemspec reads; several share the file's base_url and
// headers, each under its own name in operations:.
func (d *Document) Draft(o Options) (Draft, error) {
	ops, err := d.choose(o)
	if err != nil {
		return Draft{}, err
	}
	plans := make([]*Plan, 0, len(ops))
	taken := map[string]bool{}
	for _, op := range ops {
		p := d.plan(op, o.KeyHeader)
		p.keyFormat(o.CheckKeyPattern)
		if len(ops) > 1 {
			p.Name = uniqueName(operationName(p.ID), "-", taken)
		}
		plans = append(plans, p)
	}
	text, todos := d.file(ops, plans, o.BaseURL)
	return Draft{Plans: plans, Text: text, TODOs: todos}, nil
}

// refersToResource says whether a property names another resource: an
// id (order_id, orderId), or the name of one of the document's
// collections (customer, when /v1/customers is a path).
func (d *Document) refersToResource(name string) bool {
	if name == "id" || strings.HasSuffix(strings.ToLower(name), "_id") || strings.HasSuffix(name, "Id") {
		return true
	}
	d.nounsOnce.Do(func() {
		d.nouns = map[string]bool{}
		for path := range d.t.Paths.Map() {
			for _, seg := range strings.Split(path, "/") {
				if seg != "" && !strings.HasPrefix(seg, "{") {
					d.nouns[resourceName(seg)] = true
				}
			}
		}
	})
	return d.nouns[name]
}

// operation is one operation of the document and where it stands.
type operation struct {
	path, method string
	item         *openapi3.PathItem
	op           *openapi3.Operation
}

// operations lists the document's operations by path, then method.
func (d *Document) operations() []operation {
	var out []operation
	paths := d.t.Paths.Map()
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item := paths[path]
		ops := item.Operations()
		for _, method := range slices.Sorted(maps.Keys(ops)) {
			out = append(out, operation{path: path, method: method, item: item, op: ops[method]})
		}
	}
	return out
}

// choose picks the operations to draft: those named, every POST (All),
// or the first POST that declares a key (any POST with a KeyHeader).
func (d *Document) choose(o Options) ([]operation, error) {
	all := d.operations()
	var posts []operation
	for _, op := range all {
		if op.method == "POST" {
			posts = append(posts, op)
		}
	}
	if len(o.Operations) > 0 {
		var out []operation
		for _, id := range o.Operations {
			i := slices.IndexFunc(all, func(op operation) bool { return operationID(op.method, op.path, op.op) == id })
			if i < 0 {
				return nil, fmt.Errorf("%s: no operation %q (POST operations: %s)", d.name, id, idList(posts))
			}
			// Naming one twice still tests it once.
			if !slices.ContainsFunc(out, func(op operation) bool { return op.op == all[i].op }) {
				out = append(out, all[i])
			}
		}
		return out, nil
	}
	if o.All {
		if len(posts) == 0 {
			return nil, fmt.Errorf("%s: the document has no POST operation", d.name)
		}
		return posts, nil
	}
	for _, op := range posts {
		_, mt := mediaType(op.op.RequestBody)
		var body *openapi3.Schema
		if mt != nil {
			body = flatten(mt.Schema)
		}
		if _, ok := declaredKey(parameters(op.item, op.op), body); ok || o.KeyHeader != "" {
			return []operation{op}, nil
		}
	}
	return nil, errors.New(d.name + ": no POST declares an idempotency key (a header, query parameter or body field named like Idempotency-Key): " +
		"name one with --operation (" + idList(posts) + ") or take every POST with --all; " +
		"if the API takes a key it does not declare (Stripe's Idempotency-Key), say which header with --key-header")
}

// idList names up to ten operations.
func idList(ops []operation) string {
	var ids []string
	for i, op := range ops {
		if i == 10 {
			ids = append(ids, fmt.Sprintf("and %d more", len(ops)-10))
			break
		}
		ids = append(ids, operationID(op.method, op.path, op.op))
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// baseURL is the document's first server with its variables at their
// defaults, "" when it names none or only a path.
func (d *Document) baseURL() string {
	if len(d.t.Servers) == 0 || d.t.Servers[0] == nil {
		return ""
	}
	s := d.t.Servers[0]
	raw := pathParam.ReplaceAllStringFunc(s.URL, func(m string) string {
		if v := s.Variables[strings.Trim(m, "{}")]; v != nil {
			return v.Default
		}
		return m
	})
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return strings.TrimSuffix(raw, "/")
}

// loopback says whether a base URL names this machine.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if h := u.Hostname(); h == "localhost" {
		return true
	} else if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	return false
}
