package openapi

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// listing is what a GET on the create's path offers the list oracle.
type listing struct {
	params  []string         // its query parameters
	filters []string         // those a marker could be searched by: free strings
	items   string           // JSON path of the array in the answer ("" for a bare array)
	item    *openapi3.Schema // the schema of one item
	pages   *pages           // nil: one answer holds the whole list, as far as the document says
	sized   string           // a page-size parameter when pages is nil
	// required are the query parameters the GET requires (Adyen's
	// createdSince and createdUntil): the oracle's path must send them.
	required []*openapi3.Parameter
}

// pages is a drafted oracle.list.pages.
type pages struct{ next, field, param, more string }

// listNames are the properties a list answer holds its items in most
// often, in the order they are tried.
var listNames = []string{"data", "items", "results"}

// readListing reads the GET beside a create. ok is false, with the
// reason, when there is none or its answer holds no array.
func readListing(get *openapi3.Operation, item *openapi3.PathItem, resource string) (l listing, why string) {
	if get == nil {
		return l, "the document has no GET on this path to list what the create made"
	}
	for _, p := range parameters(item, get) {
		if p.Value == nil || p.Value.In != openapi3.ParameterInQuery {
			continue
		}
		l.params = append(l.params, p.Value.Name)
		if p.Value.Schema == nil || freeString(flatten(p.Value.Schema)) {
			l.filters = append(l.filters, p.Value.Name)
		}
	}
	s := success(get)
	switch {
	case s == nil:
		return l, "the GET on this path declares no JSON answer"
	case kind(s) == openapi3.TypeArray:
		l.item = flatten(s.Items)
	default:
		// The array named after the collection (Square's payments,
		// beside its errors) first, then the usual names.
		array := func(name string) bool {
			return kind(property(s, name)) == openapi3.TypeArray && !slices.Contains([]string{"errors", "warnings"}, name)
		}
		l.items = best(s, array, append([]string{singular(resource) + "s", resource + "s"}, listNames...))
		items := s
		if l.items == "" {
			// A HAL answer holds its items in _embedded, under the
			// collection's name (Mollie's _embedded.payments).
			if e := property(s, "_embedded"); kind(e) == openapi3.TypeObject {
				if name := best(e, func(n string) bool { return kind(property(e, n)) == openapi3.TypeArray }, []string{singular(resource) + "s", resource + "s"}); name != "" {
					items, l.items = e, "_embedded."+name
				}
			}
		}
		if l.items == "" {
			return l, "the answer of the GET on this path holds no array"
		}
		l.item = flatten(property(items, strings.TrimPrefix(l.items, "_embedded.")).Items)
	}
	for _, p := range parameters(item, get) {
		if v := p.Value; v != nil && v.In == openapi3.ParameterInQuery && v.Required {
			l.required = append(l.required, v)
		}
	}
	l.pages = readPages(s, l, ownID(l.item, resource), responseHeaders(get))
	if l.pages == nil {
		for _, p := range []string{"limit", "page_size", "per_page", "pageSize", "size"} {
			if slices.Contains(l.params, p) {
				l.sized = p
				break
			}
		}
	}
	return l, ""
}

// cursorFields and cursorParams are where APIs put the next page's
// cursor in an answer, and the parameter that takes it back.
var (
	cursorFields = []string{"next_cursor", "next_page_token", "nextPageToken", "next_token", "nextToken", "cursor"}
	cursorParams = []string{"cursor", "page_token", "pageToken", "next_token", "token", "after"}
)

// readPages finds how the list reaches its next page: Stripe's has_more
// with starting_after, a cursor field and parameter, a next URL, a Link
// header, a page or an offset parameter.
func readPages(s *openapi3.Schema, l listing, itemID string, headers []string) *pages {
	has := func(name, k string) bool { return kind(s) == openapi3.TypeObject && kind(property(s, name)) == k }
	more := ""
	if has("has_more", openapi3.TypeBoolean) {
		more = "has_more"
	}
	if more != "" && l.items != "" && itemID != "" && slices.Contains(l.params, "starting_after") {
		return &pages{next: "cursor", field: l.items + "[-1]." + itemID, param: "starting_after", more: more}
	}
	for _, f := range cursorFields {
		if !has(f, openapi3.TypeString) {
			continue
		}
		for _, p := range cursorParams {
			if slices.Contains(l.params, p) {
				return &pages{next: "cursor", field: f, param: p, more: more}
			}
		}
	}
	if has("next", openapi3.TypeString) {
		return &pages{next: "url", field: "next", more: more}
	}
	if f := nextLink(s); f != "" {
		return &pages{next: "url", field: f, more: more}
	}
	for _, h := range headers {
		if strings.EqualFold(h, "Link") {
			return &pages{next: "link", more: more}
		}
	}
	for _, p := range []string{"page", "offset"} {
		if slices.Contains(l.params, p) {
			return &pages{next: p, param: p, more: more}
		}
	}
	return nil
}

// responseHeaders are the headers an operation's 200 answer declares.
func responseHeaders(op *openapi3.Operation) []string {
	if op.Responses == nil {
		return nil
	}
	r := op.Responses.Status(200)
	if r == nil || r.Value == nil {
		return nil
	}
	var out []string
	for name := range r.Value.Headers {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// best is the first property that fits, by preferred name, then
// required, then name.
func best(s *openapi3.Schema, fits func(string) bool, preferred []string) string {
	for _, group := range [][]string{preferred, s.Required, propertyNames(s)} {
		for _, name := range group {
			if property(s, name) != nil && fits(name) {
				return name
			}
		}
	}
	return ""
}

// nextLink is the JSON path of a next page's URL in a links object:
// HAL's _links.next.href (Mollie, Adyen), links.next, or a next.href at
// the top; "" for none.
func nextLink(s *openapi3.Schema) string {
	if kind(s) != openapi3.TypeObject {
		return ""
	}
	href := func(at *openapi3.Schema, path string) string {
		switch next := property(at, "next"); {
		case kind(next) == openapi3.TypeString:
			return path + "next"
		case kind(next) == openapi3.TypeObject && kind(property(next, "href")) == openapi3.TypeString:
			return path + "next.href"
		}
		return ""
	}
	for _, name := range []string{"_links", "links"} {
		if l := property(s, name); kind(l) == openapi3.TypeObject {
			if f := href(l, name+"."); f != "" {
				return f
			}
		}
	}
	if kind(property(s, "next")) == openapi3.TypeObject {
		return href(s, "")
	}
	return ""
}

// windowEnds are words that name a window's end (createdUntil,
// created_before); any other time parameter is its start.
var windowEnds = []string{"until", "to", "before", "end", "max"}

// requiredFilters adds to the list's path each query parameter the GET
// requires that it does not send yet: a time the ends of the window
// around the reading ({{.Since}}, {{.Until}}), a date the years any run
// falls in (with a TODO: the template has no date), any other a sample
// value with a TODO.
func requiredFilters(p *Plan, lp *listPlan, required []*openapi3.Parameter) {
	var dates []string
	for _, r := range required {
		if strings.Contains(lp.path, "?"+url.QueryEscape(r.Name)+"=") || strings.Contains(lp.path, "&"+url.QueryEscape(r.Name)+"=") {
			continue
		}
		s := flatten(r.Schema)
		end := slices.ContainsFunc(windowEnds, func(w string) bool { return strings.Contains(strings.ToLower(r.Name), w) })
		var value string
		switch {
		case s != nil && s.Format == "date-time":
			value = map[bool]string{false: "{{.Since}}", true: "{{.Until}}"}[end]
		case s != nil && s.Format == "date":
			value = map[bool]string{false: "2000-01-01", true: "2100-01-01"}[end]
			dates = append(dates, r.Name+"="+value)
		default:
			value = escapeActions(url.QueryEscape(fmt.Sprint(sample(r.Schema, 1, newBudget()))))
			p.todo("oracle.list.path", "the list requires %s: give the value your account lists by", r.Name)
		}
		sep := "?"
		if strings.Contains(lp.path, "?") {
			sep = "&"
		}
		lp.path += sep + url.QueryEscape(r.Name) + "=" + value
	}
	if len(dates) > 0 {
		p.todo("oracle.list.path", "the list requires a window of dates: the draft sends %s, which every run falls in; narrow it around your runs if the API limits the span", strings.Join(dates, " and "))
	}
}
