package openapi

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
)

// Plan is the draft of one operation: what a target file's create:,
// key: and oracle: say of it, and a TODO for each thing the document
// leaves open.
type Plan struct {
	ID      string // the operationId, or one made of the method and path
	Name    string // its name under operations: ("" when the file holds it alone)
	Summary string
	Method  string
	Path    string      // as the document writes it
	path    string      // create.path: Path, each parameter whose parent setup makes replaced by its id
	setup   []setupPlan // the requests that make its parents
	key     keyPlace
	body    body
	idField string
	idWhy   idChoice  // why idField, and the runner-up
	list    *listPlan // nil: no list oracle could be drafted
	lookup  *lookupPlan
	// wire: neither a list nor a look-up could be drafted, and the
	// answers name an id: the draft counts from the lanes' record.
	wire  bool
	todos []todo
}

// listPlan is a drafted oracle.list.
type listPlan struct {
	path, items, idField, markerField string
	pages                             *pages
}

// lookupPlan is a drafted oracle.lookup: the GET of one resource.
type lookupPlan struct{ path, markerField string }

// lookupOracle drafts oracle.lookup from the GET of one of what the
// create makes (GET /v2/checkout/orders/{id} beside POST
// /v2/checkout/orders), nil when the document has none.
func (d *Document) lookupOracle(p *Plan) *lookupPlan {
	if templated(p.Path) {
		return nil
	}
	shape := func(s string) string { return pathParam.ReplaceAllString(strings.TrimSuffix(s, "/"), "{}") }
	for _, o := range d.operations() {
		if o.method != "GET" || shape(o.path) != shape(p.Path)+"/{}" {
			continue
		}
		l := &lookupPlan{path: strings.TrimSuffix(p.path, "/") + "/{{.ID}}"}
		if p.body.marker != nil && propertyAt(success(o.op), p.body.marker) != nil {
			l.markerField = jsonPathOf(p.body.marker)
		}
		return l
	}
	return nil
}

// todo is what the user must decide, next to the field it concerns.
type todo struct{ field, text string }

func (p *Plan) todo(field, format string, args ...any) {
	p.todos = append(p.todos, todo{field, fmt.Sprintf(format, args...)})
}

var pathParam = regexp.MustCompile(`\{([^{}]+)\}`)

// templated says whether a path holds braces besides its parameters'
// ({{range ...}}, a lone brace): drafted as is, they would be read as
// template actions.
func templated(path string) bool {
	return strings.ContainsAny(pathParam.ReplaceAllString(path, ""), "{}")
}

// plan drafts an operation. keyHeader, when set, is the header the API
// takes its key in when the operation declares none.
func (d *Document) plan(o operation, keyHeader string) *Plan {
	path, method, item, op := o.path, o.method, o.item, o.op
	p := &Plan{ID: operationID(method, path, op), Summary: op.Summary, Method: method, Path: path}
	danglingTODOs(p, op)
	if templated(path) {
		// A path is the template create.path is rendered from: what
		// the document wrote in it is text, never an action.
		p.path = escapeActions(path)
		p.todo("create.path", "the document's path %s holds braces that are not path parameters ({name}): write the path the API takes", path)
	} else {
		p.path = d.parents(p)
	}
	resource := resourceName(path)
	contentType, mt := mediaType(op.RequestBody)
	var jsonBody *openapi3.Schema
	if mt != nil && contentType != formType {
		jsonBody = flatten(mt.Schema)
	}
	var ok bool
	if p.key, ok = declaredKey(parameters(item, op), jsonBody); !ok {
		p.key = keyPlace{in: openapi3.ParameterInHeader, name: or(keyHeader, "Idempotency-Key")}
		if keyHeader == "" {
			p.todo("key", "the operation declares no idempotency key: idemspec sends it in the Idempotency-Key header; say where your API takes it (in: header, body or query)")
		}
	}
	l, noList := readListing(item.Get, item, resource)
	keep := func(name string) bool { return slices.Contains(actions, resource) && d.isParent(name) }
	p.body = draftBody(p, contentType, mt, l.filters, keep, func(p *Plan, s *openapi3.Schema, fields map[string]any) {
		d.useTestValues(fields)
		d.bodyParents(p, s, fields)
		for _, s := range p.setup {
			if s.currency != "" {
				currencyIn(fields, s.currency)
				break
			}
		}
	})
	p.idWhy = chooseID(success(op), resource, requestNames(parameters(item, op), jsonBody))
	if p.idField = p.idWhy.field; p.idField == "" {
		p.todo("create.id_field", "the 2xx answer declares no id: give the JSON path of the new resource's id in it")
	}
	if noList != "" {
		if p.lookup = d.lookupOracle(p); p.lookup != nil {
			p.todo("oracle", "%s, so the oracle reads each id the answers named: a duplicate whose answer was lost is invisible to it; count with a list, sql or command oracle if you can", noList)
			return p
		}
		if p.idField != "" {
			p.wire = true
			p.todo("oracle", "%s, nor a GET of one: the wire oracle counts the ids of the create answers your API gave on idemspec's lanes (dropped ones included), which cannot see an execution whose answer was never written (S5b is skipped with it); count with a list, sql or command oracle if you can", noList)
			return p
		}
		p.todo("oracle", "%s: describe how to count what exists (oracle: list, sql, command or lookup)", noList)
		return p
	}
	p.list = listOracle(p, l, resource)
	return p
}

// listOracle drafts oracle.list from the GET beside the create: it
// searches by the marker's field when the GET filters by it, else reads
// the whole list and picks the marker out of each item.
func listOracle(p *Plan, l listing, resource string) *listPlan {
	lp := &listPlan{path: p.path, items: l.items, pages: l.pages}
	marker := jsonPathOf(p.body.marker)
	inItems := marker != "" && propertyAt(l.item, p.body.marker) != nil
	switch {
	case len(p.body.marker) == 1 && slices.Contains(l.filters, marker):
		lp.path = p.path + "?" + url.QueryEscape(marker) + "={{.Marker}}"
		if inItems {
			lp.markerField = marker
		}
	case inItems && p.ownParent():
		lp.markerField = marker
	case inItems:
		lp.markerField = marker
		p.todo("oracle.list.path", "the list cannot be searched by %s: it reads the whole collection, which grows with every run; add a filter by {{.Marker}} if the API has one", marker)
	default:
		p.todo("oracle.list.path", "the list neither filters by nor shows the field that holds the marker: give a path that lists the resources carrying {{.Marker}}")
	}
	requiredFilters(p, lp, l.required)
	// The list's items are the create's resources: its id names them
	// there too, and a cursor pages by it, never by another field.
	itemID := ownID(l.item, resource)
	if p.idField != "" && propertyAt(l.item, strings.Split(p.idField, ".")) != nil {
		itemID = p.idField
	}
	if pg := l.pages; pg != nil && pg.next == "cursor" && strings.HasPrefix(pg.field, l.items+"[-1].") && itemID != "" {
		pg.field = l.items + "[-1]." + itemID
	}
	switch {
	case itemID == "":
		p.todo("oracle.list.id_field", "the list's items declare no id: give its JSON path in an item")
	case itemID != p.idField:
		lp.idField = itemID
	}
	if l.pages == nil && l.sized != "" {
		p.todo("oracle.list.pages", "the list takes %s: if it answers a page at a time, say how to reach the next page", l.sized)
	}
	return lp
}

// ownParent says whether each marker's creates act on parents of their
// own, which setup makes: then a list under the parent holds that
// marker's effects alone, and reading it whole is no burden.
func (p *Plan) ownParent() bool {
	return len(p.setup) > 0 && len(p.setup) == len(pathParam.FindAllString(p.Path, -1))
}

// operationID is the operation's id, or one made of its method and path.
func operationID(method, path string, op *openapi3.Operation) string {
	if op.OperationID != "" {
		return op.OperationID
	}
	made := strings.ToLower(method) + strings.NewReplacer("/", "-", "{", "", "}", "").Replace(path)
	return strings.TrimSuffix(made, "-")
}

var notName = regexp.MustCompile(`[^a-z0-9]+`)

// operationName makes an operationId a name a target file's operations:
// accepts (lowercase letters, digits and dashes): the words of camelCase
// split by dashes (createOrder: create-order, getHTTPStatus:
// get-http-status), anything else a dash.
func operationName(id string) string {
	r := []rune(id)
	var b strings.Builder
	for i, c := range r {
		// A capital starts a word after a lowercase letter or a digit, and
		// after an acronym when a lowercase letter follows it.
		if i > 0 && unicode.IsUpper(c) && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]) ||
			unicode.IsUpper(r[i-1]) && i+1 < len(r) && unicode.IsLower(r[i+1])) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	if n := strings.Trim(notName.ReplaceAllString(b.String(), "-"), "-"); n != "" {
		return n
	}
	return "operation"
}

// uniqueName is name, or name-2, name-3, ... (with sep "-") when taken
// already; it marks the one it returns taken.
func uniqueName(name, sep string, taken map[string]bool) string {
	out := name
	for i := 2; taken[out]; i++ {
		out = fmt.Sprintf("%s%s%d", name, sep, i)
	}
	taken[out] = true
	return out
}

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}
