package openapi

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Document is a loaded OpenAPI 3.0 or 3.1 document.
type Document struct {
	name     string
	t        *openapi3.T
	dangling []string // the $refs that name nothing in the document
}

// selection is what choose picked: the operations, why the default
// one is the API's main create and what else could be (why "": they
// were named, or --all), and the POSTs --all left out.
type selection struct {
	ops       []operation
	why, next string
	left      []string
}

// Load reads an OpenAPI document (JSON or YAML) of at most MaxDocument
// bytes. References within the document are resolved; references to
// other files or URLs are refused, so drafting never reads beyond the
// one document, and a chain of references to references longer than
// a real document's is refused before it is followed.
func Load(name string, data []byte) (*Document, error) {
	data, dangling, err := prescan(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
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
	return &Document{name: name, t: t, dangling: dangling}, nil
}

// Options choose what to draft.
type Options struct {
	Operations []string // operationIds to draft; none: see All
	All        bool     // every POST but token, search and session calls; neither: the API's main create
	KeyHeader  string   // the header the API takes its key in when an operation declares none ("": none assumed)
	BaseURL    string   // base_url; "": the document's first server
	// CheckKeyPattern says why a key's pattern cannot be the target's
	// key format (nil: it can); nil takes every pattern.
	CheckKeyPattern func(pattern string) error
}

// Draft is a drafted target file: one operation's create:, key: and
// oracle: at its top level, or several operations under operations:.
type Draft struct {
	Plans    []*Plan // the operations, in the file's order
	Text     []byte
	TODOs    []string // what the file leaves to its author, as "field: what to do"
	Warnings []string // what the document lacks, said once (init prints each)
}

// Draft drafts one target file of the operations the options choose.
// One operation keeps the plain form (create: at the top level), which
// every older idemspec reads; several share the file's base_url and
// headers, each under its own name in operations:.
func (d *Document) Draft(o Options) (Draft, error) {
	sel, err := d.choose(o)
	if err != nil {
		return Draft{}, err
	}
	ops := sel.ops
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
	text, todos := d.file(sel, plans, o.BaseURL)
	return Draft{Plans: plans, Text: text, TODOs: todos, Warnings: d.danglingWarning()}, nil
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

// choose picks the operations to draft: those named, every POST that
// creates or acts (All), or the API's main create (rank.go).
func (d *Document) choose(o Options) (selection, error) {
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
				return selection{}, fmt.Errorf("%s: no operation %q (POST operations: %s)", d.name, id, idList(posts))
			}
			// Naming one twice still tests it once.
			if !slices.ContainsFunc(out, func(op operation) bool { return op.op == all[i].op }) {
				out = append(out, all[i])
			}
		}
		return selection{ops: out}, nil
	}
	if o.All {
		// Creates and actions; POSTs that sign in, search or check
		// make nothing to count, and are named in a comment instead.
		var sel selection
		for _, op := range posts {
			if w := side(op); w != "" {
				sel.left = append(sel.left, fmt.Sprintf("%s (POST %s: %s)", operationID(op.method, op.path, op.op), op.path, w))
				continue
			}
			// A POST that is a query (Adyen's /paymentMethods,
			// /cardDetails) answers neither 201 nor an id.
			if !created(op.op) && idField(success(op.op), resourceName(op.path)) == "" {
				sel.left = append(sel.left, fmt.Sprintf("%s (POST %s: its answer names no id)", operationID(op.method, op.path, op.op), op.path))
				continue
			}
			sel.ops = append(sel.ops, op)
		}
		if len(sel.ops) == 0 {
			return selection{}, fmt.Errorf("%s: the document has no POST operation that creates or acts (%d token, search or session calls left out)", d.name, len(sel.left))
		}
		return sel, nil
	}
	if ranked := d.rank(posts, o.KeyHeader); len(ranked) > 0 && ranked[0].keyed {
		return selection{ops: []operation{ranked[0].op}, why: ranked[0].why(), next: nextCandidates(ranked)}, nil
	}
	return selection{}, errors.New(d.name + ": no POST declares an idempotency key (a header, query parameter or body field named like Idempotency-Key): " +
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

// created says whether an operation declares a 201 answer.
func created(op *openapi3.Operation) bool {
	return op.Responses != nil && op.Responses.Status(201) != nil
}
