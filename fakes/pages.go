package fakes

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// How the list endpoint pages, when Options.PageSize is set: the common
// conventions of real APIs, so the harness's list oracle is proven on
// each. Every style also answers has_more.
const (
	// PageLink: a Link: <URL>; rel="next" header (RFC 8288), as GitHub
	// does; the URL carries the cursor.
	PageLink = "link"
	// PageCursor: next_cursor in the answer, sent back as ?cursor=
	// (null on the last page).
	PageCursor = "cursor"
	// PagePage: ?page=N, the first page being 1.
	PagePage = "page"
	// PageOffset: ?offset=N, the number of items to skip.
	PageOffset = "offset"
)

// MaxPageSize bounds Options.PageSize.
const MaxPageSize = 1000

// PageStyles lists the styles Options.PageStyle takes.
var PageStyles = []string{PageLink, PageCursor, PagePage, PageOffset}

// checkPaging fills in the default style and refuses an unknown one.
func checkPaging(o *Options) error {
	if o.PageSize <= 0 {
		if o.PageStyle != "" {
			return fmt.Errorf("page style %q without a page size", o.PageStyle)
		}
		return nil
	}
	if o.PageSize > MaxPageSize {
		return fmt.Errorf("page size %d is more than %d", o.PageSize, MaxPageSize)
	}
	switch o.PageStyle {
	case "":
		o.PageStyle = PageLink
	case PageLink, PageCursor, PagePage, PageOffset:
	default:
		return fmt.Errorf("page style %q is not one of %v", o.PageStyle, PageStyles)
	}
	return nil
}

// writeList answers a list: every item at once, or the page the request
// asks for. A cursor is the id of the last item of the page before
// (Stripe's starting_after).
func (s *Server) writeList(w http.ResponseWriter, r *http.Request, items []map[string]any) {
	size, style := s.opts.PageSize, s.opts.PageStyle
	if size <= 0 {
		writeJSON(w, http.StatusOK, map[string]any{"items": items})
		return
	}
	q := r.URL.Query()
	start, err := pageStart(style, size, q, items)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	start = min(start, len(items))
	end := min(start+size, len(items))
	more := end < len(items)
	body := map[string]any{"items": items[start:end], "has_more": more}
	var cursor any // null on the last page
	if more {
		cursor = items[end-1]["id"]
	}
	switch {
	case style == PageCursor:
		body["next_cursor"] = cursor
	case style == PageLink && more:
		q.Set("cursor", fmt.Sprint(cursor))
		next := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawQuery: q.Encode()}
		if r.TLS != nil {
			next.Scheme = "https"
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next.String()))
	}
	writeJSON(w, http.StatusOK, body)
}

// pageStart is the index of the first item of the page asked for.
func pageStart(style string, size int, q url.Values, items []map[string]any) (int, error) {
	switch style {
	case PagePage, PageOffset:
		v := q.Get(style)
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 0 || (style == PagePage && n < 1):
			return 0, fmt.Errorf("%s=%q is not a %s", style, v, style)
		case style == PagePage:
			return min(n-1, 1<<20) * size, nil
		}
		return n, nil
	}
	c := q.Get("cursor")
	if c == "" {
		return 0, nil
	}
	for i, it := range items {
		if it["id"] == c {
			return i + 1, nil
		}
	}
	return 0, fmt.Errorf("cursor %q is no item of this list", c)
}
