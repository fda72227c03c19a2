package targets

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// How a list oracle finds the page after the one it read
// (oracle.list.pages.next).
const (
	// PagesLink follows the Link header's rel="next" (RFC 8288), as
	// GitHub's API does.
	PagesLink = "link"
	// PagesURL follows a URL the answer gives at pages.field.
	PagesURL = "url"
	// PagesCursor sends the cursor the answer gives at pages.field back
	// in the query parameter pages.param, as Stripe's starting_after.
	PagesCursor = "cursor"
	// PagesPage counts pages in the query parameter pages.param.
	PagesPage = "page"
	// PagesOffset counts the items read so far in pages.param.
	PagesOffset = "offset"
)

// DefaultMaxPages bounds one reading of a list when the target file does
// not say: past it the reading is an error, never a short count.
const DefaultMaxPages = 100

// maxMaxPages is the most pages.max may say: every page is a request
// against the run's budget, and a reading must fit its timeout.
const maxMaxPages = 10000

// listTimeout bounds one reading, every page included, when the caller
// gave no deadline (the harness gives its request timeout).
const listTimeout = time.Minute

// pagesSpec is oracle.list.pages as written.
type pagesSpec struct {
	Next      string `yaml:"next" required:"true"`
	Field     string `yaml:"field"`
	Param     string `yaml:"param"`
	More      string `yaml:"more"`
	FirstPage *int   `yaml:"first_page"`
	Max       int    `yaml:"max"`
}

// Pages says how a list oracle reads a list that spans several answers.
type Pages struct {
	// Next is how the next page is found: PagesLink, PagesURL,
	// PagesCursor, PagesPage or PagesOffset.
	Next string
	// Field is the path of the next page's URL (PagesURL) or cursor
	// (PagesCursor) in an answer; absent, null or "" ends the list.
	Field string
	// Param is the query parameter that carries the cursor, the page
	// number or the offset.
	Param string
	// More, when set, is the path of a boolean that says whether another
	// page follows (Stripe's has_more).
	More string
	// FirstPage is the number of the page the oracle path reads
	// (PagesPage; default 1).
	FirstPage int
	// Max is the most pages one reading may take (DefaultMaxPages).
	Max int
}

// pages reads oracle.list.pages; nil when the list is one answer.
func (d *document) pages(s *pagesSpec) (*Pages, error) {
	if s == nil {
		return nil, nil
	}
	const at = "oracle.list.pages."
	p := &Pages{Next: s.Next, Field: s.Field, Param: s.Param, More: s.More, FirstPage: 1, Max: DefaultMaxPages}
	wantsField := s.Next == PagesURL || s.Next == PagesCursor
	wantsParam := s.Next == PagesCursor || s.Next == PagesPage || s.Next == PagesOffset
	switch {
	case !wantsField && !wantsParam && s.Next != PagesLink:
		return nil, d.errorf(at+"next", "%q is not a way to the next page (known: link, url, cursor, page, offset)", s.Next)
	case wantsField && s.Field == "":
		return nil, d.errorf(at+"field", "next: %s needs the path of the %s in the answer (as next_cursor or links.next)", s.Next, s.Next)
	case !wantsField && s.Field != "":
		return nil, d.errorf(at+"field", "is for next: url and next: cursor, not %s", s.Next)
	case wantsParam && s.Param == "":
		return nil, d.errorf(at+"param", "next: %s needs the query parameter that carries it (as cursor, starting_after, page, offset)", s.Next)
	case !wantsParam && s.Param != "":
		return nil, d.errorf(at+"param", "is for next: cursor, page and offset, not %s: the next page's URL is taken whole", s.Next)
	case s.Param != "" && url.QueryEscape(s.Param) != s.Param:
		return nil, d.errorf(at+"param", "%q is not a plain query parameter name", s.Param)
	case s.FirstPage != nil && s.Next != PagesPage:
		return nil, d.errorf(at+"first_page", "is for next: page, not %s", s.Next)
	case s.FirstPage != nil && *s.FirstPage < 0:
		return nil, d.errorf(at+"first_page", "%d is not a page number", *s.FirstPage)
	case s.Max < 0 || s.Max > maxMaxPages:
		return nil, d.errorf(at+"max", "%d is not a count from 1 to %d", s.Max, maxMaxPages)
	}
	if s.FirstPage != nil {
		p.FirstPage = *s.FirstPage
	}
	if s.Max > 0 {
		p.Max = s.Max
	}
	for field, path := range map[string]string{"field": s.Field, "more": s.More} {
		if _, err := d.jsonPathField(at+field, path); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// listPage is one answer of a list, read.
type listPage struct {
	header http.Header
	body   []byte
	doc    any   // the decoded answer
	items  []any // every item on the page, before the marker filter
}

// readPages reads the list from its first page's URL to its end, at
// most Pages.Max answers, and counts the items carrying marker.
// Every URL it follows is on base_url's host (follow), every page passes
// the run's gate (Target.Direct), and a list that never ends, or goes
// on past the bound, is an error rather than a short count.
func (o *ListOracle) readPages(ctx context.Context, first, marker string) (Observation, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, listTimeout)
		defer cancel()
	}
	bound := 1
	if o.Pages != nil {
		bound = o.Pages.Max
	}
	obs := Observation{IDs: []string{}}
	seen := map[string]bool{first: true}
	cur, read := first, 0
	var prev []byte
	for n := 1; ; n++ {
		where := requestURI(cur)
		status, header, body, err := o.target.getURL(ctx, cur)
		if err != nil {
			return Observation{}, fmt.Errorf("oracle list %s: %w", where, err)
		}
		page := listPage{header: header, body: body}
		got, err := o.read(status, &page, marker)
		if err != nil {
			return Observation{}, fmt.Errorf("oracle list %s: %w", where, err)
		}
		obs.Count += got.Count
		for _, id := range got.IDs {
			obs.addID(id)
		}
		obs.Omitted += got.Omitted
		read += len(page.items)
		next, err := o.next(first, cur, page, n, read)
		switch {
		case err != nil:
			return Observation{}, fmt.Errorf("oracle list %s (page %d): %w", where, n, err)
		case next == "":
			return obs, nil
		case n >= bound:
			return Observation{}, fmt.Errorf("oracle list %s: oracle.list.pages.max: the list goes on after page %d (next: %s), so the count would be short: raise pages.max or narrow oracle.list.path (a filter, a larger page size)", requestURI(first), n, requestURI(next))
		case seen[next]:
			return Observation{}, fmt.Errorf("oracle list %s (page %d): the next page is %s again: the list loops (a repeated link or cursor)", where, n, requestURI(next))
		case n > 1 && len(page.items) > 0 && bytes.Equal(body, prev):
			return Observation{}, fmt.Errorf("oracle list %s (page %d): the answer repeats page %d word for word: does the API honour %s?", where, n, n-1, or(o.Pages.Param, "its next link"))
		}
		seen[next], prev, cur = true, body, next
	}
}

// next is the URL of the page after page (the nth, read items so far
// in all), or "" at the end of the list.
func (o *ListOracle) next(first, cur string, page listPage, n, read int) (string, error) {
	linked := nextLink(page.header)
	p := o.Pages
	if p == nil {
		if linked != "" {
			// Reading page 1 alone would be a silent undercount.
			return "", fmt.Errorf("the answer links a next page (Link: rel=\"next\") and oracle.list.pages is not set, so the count would miss every page after the first: set oracle.list.pages.next: link")
		}
		return "", nil
	}
	if p.More != "" {
		v, err := valueAt(page.doc, p.More)
		more, ok := v.(bool)
		if err != nil || !ok {
			return "", fmt.Errorf("oracle.list.pages.more: no true or false at %s", p.More)
		}
		if !more {
			return "", nil
		}
	}
	var ref string
	switch p.Next {
	case PagesLink:
		ref = linked
	case PagesURL, PagesCursor:
		v, err := valueAt(page.doc, p.Field)
		if err != nil {
			return "", fmt.Errorf("oracle.list.pages.field: %w", err)
		}
		if v != nil {
			ref = fmt.Sprint(v)
		}
	case PagesPage:
		if len(page.items) > 0 {
			ref = strconv.Itoa(p.FirstPage + n)
		}
	case PagesOffset:
		if len(page.items) > 0 {
			ref = strconv.Itoa(read)
		}
	}
	switch {
	case ref == "" && p.More != "":
		return "", fmt.Errorf("%s is true and the answer gives no next page (pages.next: %s)", p.More, p.Next)
	case ref == "":
		return "", nil
	case p.Next == PagesLink || p.Next == PagesURL:
		return o.follow(cur, ref)
	}
	return withParam(first, p.Param, ref)
}

// valueAt is the one value at path in an answer (nil when absent).
func valueAt(doc any, path string) (any, error) {
	p, err := parsePath(path)
	if err != nil {
		return nil, err
	}
	return p.value(doc)
}

// follow resolves a link the answer gave (relative to the page it came
// from, as RFC 8288 says) and refuses one to another scheme, host or
// port than base_url's: the project's one URL rule, which no answer may
// bend.
func (o *ListOracle) follow(cur, ref string) (string, error) {
	base, err := url.Parse(cur)
	if err != nil {
		return "", err
	}
	u, err := base.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("the next page's link %q is not a URL: %v", ref, err)
	}
	b := o.target.BaseURL
	if u.Scheme != b.Scheme || contactOf("", u) != contactOf("", b) || u.User.String() != b.User.String() {
		return "", fmt.Errorf("the next page's link %s leaves base_url's %s://%s: idemspec follows links only on the host base_url names", u.Redacted(), b.Scheme, b.Host)
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

// withParam is the first page's URL with the query parameter name set
// to value.
func withParam(first, name, value string) (string, error) {
	u, err := url.Parse(first)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// nextLink is the target of a Link header's rel="next", or "".
func nextLink(h http.Header) string {
	for _, field := range h.Values("Link") {
		for _, link := range splitLinks(field) {
			target, params, ok := strings.Cut(link, ">")
			target = strings.TrimSpace(target)
			if !ok || !strings.HasPrefix(target, "<") {
				continue
			}
			for _, param := range strings.Split(params, ";") {
				name, value, _ := strings.Cut(strings.TrimSpace(param), "=")
				if !strings.EqualFold(strings.TrimSpace(name), "rel") {
					continue
				}
				for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(value), `"`)) {
					if strings.EqualFold(rel, "next") {
						return strings.TrimPrefix(target, "<")
					}
				}
			}
		}
	}
	return ""
}

// splitLinks splits a Link field on the commas between links (a comma
// inside <...> or a quoted string belongs to the link).
func splitLinks(field string) []string {
	var out []string
	start, inURI, inQuote := 0, false, false
	for i, c := range field {
		switch {
		case c == '<' && !inQuote:
			inURI = true
		case c == '>' && !inQuote:
			inURI = false
		case c == '"' && !inURI:
			inQuote = !inQuote
		case c == ',' && !inURI && !inQuote:
			out = append(out, field[start:i])
			start = i + 1
		}
	}
	return append(out, field[start:])
}

// requestURI is a URL's path and query, as errors name a page.
func requestURI(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.RequestURI()
}
