package targets_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/targets"
)

// pagedList is a target file whose oracle reads the built-in fakes' list
// endpoint at base without a filter: the run's items are picked out by
// marker_field, so they lie wherever the list puts them.
func pagedList(t *testing.T, base, pages string) *targets.Target {
	t.Helper()
	tg, err := targets.Parse("paged.yaml", file(fmt.Sprintf(`
base_url: %s
create: {path: /resources, body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}', id_field: id}
oracle:
  list:
    path: /resources
    items: items
    marker_field: marker
%s`, base, pages)))
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// countPages counts the requests a target's oracle sends.
func countPages(tg *targets.Target) *atomic.Int64 {
	n := &atomic.Int64{}
	next := tg.Direct.Transport
	tg.Direct.Transport = roundTrip(func(r *http.Request) (*http.Response, error) {
		n.Add(1)
		return next.RoundTrip(r)
	})
	return n
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// create sends one create with key and marker to a fake, and wants 201.
func create(t *testing.T, tg *targets.Target, key, marker string) {
	t.Helper()
	req, err := tg.NewCreate(context.Background(), key, []byte(`{"marker":"`+marker+`","amount":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tg.Direct.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create %s: status %d", marker, resp.StatusCode)
	}
}

// TestDuplicateOnPage3 is the proof that the list oracle reads a real
// list: nodedup (which executes every request) makes a duplicate under
// one key after four other resources, so with two items a page the
// duplicate pair lies on page 3. Read in each page style the fake
// offers, the oracle counts 2; page 1 alone would count 0, and a
// bound of 2 pages is an error, not that 0.
func TestDuplicateOnPage3(t *testing.T) {
	for _, tc := range []struct {
		style, pages string
		requests     int64 // pages read: the page style's end costs one more when it is an empty page
	}{
		{fakes.PageLink, "    pages: {next: link}\n", 3},
		{fakes.PageCursor, "    pages: {next: cursor, field: next_cursor, param: cursor}\n", 3},
		// Stripe's way: the cursor is the last item's id, has_more ends it.
		{fakes.PageCursor, "    pages: {next: cursor, field: 'items[-1].id', param: cursor, more: has_more}\n", 3},
		{fakes.PagePage, "    pages: {next: page, param: page, more: has_more}\n", 3},
		{fakes.PagePage, "    pages: {next: page, param: page}\n", 4},
		{fakes.PageOffset, "    pages: {next: offset, param: offset}\n", 4},
	} {
		t.Run(tc.style+" "+strings.TrimSpace(tc.pages), func(t *testing.T) {
			fake, err := fakes.StartTarget("fake:nodedup?page_size=2&page_style=" + tc.style)
			if err != nil {
				t.Fatal(err)
			}
			defer fake.Close()
			for i := range 4 {
				create(t, fake, fmt.Sprintf("other-%d", i), fmt.Sprintf("other-%d", i))
			}
			create(t, fake, "the-key", "dup")
			create(t, fake, "the-key", "dup")

			tg := pagedList(t, fake.BaseURL.String(), tc.pages)
			requests := countPages(tg)
			obs, err := tg.Oracle.Observe(context.Background(), "dup")
			if err != nil {
				t.Fatal(err)
			}
			if obs.Count != 2 || len(obs.IDs) != 2 || obs.IDs[0] == obs.IDs[1] {
				t.Errorf("observed %+v: want the duplicate, 2 resources with 2 ids, from page 3", obs)
			}
			if got := requests.Load(); got != tc.requests {
				t.Errorf("%d pages read, want %d", got, tc.requests)
			}

			bounded := pagedList(t, fake.BaseURL.String(), strings.Replace(tc.pages, "}", ", max: 2}", 1))
			if _, err := bounded.Oracle.Observe(context.Background(), "dup"); err == nil || !strings.Contains(err.Error(), "oracle.list.pages.max: the list goes on after page 2") {
				t.Errorf("with max: 2, error %v: want the bound reported, never a short count", err)
			}

			onePage := pagedList(t, fake.BaseURL.String(), "")
			obs, err = onePage.Oracle.Observe(context.Background(), "dup")
			switch {
			case tc.style == fakes.PageLink && (err == nil || !strings.Contains(err.Error(), `links a next page (Link: rel="next") and oracle.list.pages is not set`)):
				t.Errorf("without pages, error %v: want the unread next page reported", err)
			case tc.style != fakes.PageLink && (err != nil || obs.Count != 0):
				t.Errorf("without pages, observed %+v, %v: page 1 alone holds no duplicate (what an oracle without pages sees)", obs, err)
			}
		})
	}
}

// TestPagedReferenceCountsOne: the reference, paged one item at a time
// in each style, still shows one resource per key (the fake's own
// target reads every page).
func TestPagedReferenceCountsOne(t *testing.T) {
	for _, style := range fakes.PageStyles {
		t.Run(style, func(t *testing.T) {
			fake, err := fakes.StartTarget("fake:reference?page_size=1&page_style=" + style)
			if err != nil {
				t.Fatal(err)
			}
			defer fake.Close()
			create(t, fake, "k1", "m")
			create(t, fake, "k2", "m")
			req, err := fake.NewCreate(context.Background(), "k1", []byte(`{"marker":"m","amount":1}`))
			if err != nil {
				t.Fatal(err)
			}
			if resp, err := fake.Direct.Do(req); err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("replay: %v %v", resp, err)
			}
			if obs, err := fake.Oracle.Observe(context.Background(), "m"); err != nil || obs.Count != 2 {
				t.Errorf("observed %+v, %v: want 2 resources (two keys), one page each", obs, err)
			}
		})
	}
}

func TestFakePageOptions(t *testing.T) {
	for ref, want := range map[string]string{
		"fake:reference?page_size=0":                 `page_size: "0" is not a count from 1 to 1000`,
		"fake:reference?page_size=2&page_style=html": `page style "html" is not one of`,
		"fake:reference?page_style=cursor":           `page style "cursor" without a page size`,
	} {
		if _, err := fakes.StartTarget(ref); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", ref, err, want)
		}
	}
}

// listServer answers each page from pages (by the request's URI), with
// its Link header when it has one; SELF stands for the server's own
// origin.
func listServer(t *testing.T, pages map[string]struct{ link, body string }) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[r.URL.RequestURI()]
		if !ok {
			http.Error(w, "no page "+r.URL.RequestURI(), http.StatusNotFound)
			return
		}
		if p.link != "" {
			w.Header().Set("Link", strings.ReplaceAll(p.link, "SELF", "http://"+r.Host))
		}
		io.WriteString(w, strings.ReplaceAll(p.body, "SELF", "http://"+r.Host))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPagedOracleFollows(t *testing.T) {
	type page = struct{ link, body string }
	tests := []struct {
		name  string
		pages string
		list  map[string]page
		want  int
		err   string
	}{
		{
			name:  "a relative Link, among other rels, resolved against the page",
			pages: "{next: link}",
			list: map[string]page{
				"/resources":         {`<https://docs.example/x>; rel="help", </resources?after=a>; rel="next last"`, `{"items":[{"id":"a","marker":"m"}]}`},
				"/resources?after=a": {"", `{"items":[{"id":"b","marker":"m"}]}`},
			},
			want: 2,
		},
		{
			name:  "a next URL in the body, found by a filter",
			pages: `{next: url, field: 'links[?(@.rel=="next")].href'}`,
			list: map[string]page{
				"/resources":     {"", `{"items":[{"id":"a","marker":"m"}],"links":[{"rel":"self","href":"/resources"},{"rel":"next","href":"SELF/resources?p=2"}]}`},
				"/resources?p=2": {"", `{"items":[{"id":"b","marker":"m"}],"links":[{"rel":"next","href":"/resources?p=3"}]}`},
				"/resources?p=3": {"", `{"items":[{"id":"c","marker":"x"}],"links":[]}`},
			},
			want: 2,
		},
		{
			name:  "a link to another host is refused",
			pages: "{next: link}",
			list: map[string]page{
				"/resources": {`<http://127.0.0.2:1/resources?after=a>; rel="next"`, `{"items":[]}`},
			},
			err: `the next page's link http://127.0.0.2:1/resources?after=a leaves base_url's http://127.0.0.1`,
		},
		{
			name:  "a link to another scheme is refused",
			pages: "{next: url, field: next}",
			list: map[string]page{
				"/resources": {"", `{"items":[],"next":"file:///etc/passwd"}`},
			},
			err: "leaves base_url's",
		},
		{
			name:  "a cursor that comes back is a loop",
			pages: "{next: cursor, field: next, param: c}",
			list: map[string]page{
				"/resources":     {"", `{"items":[{"id":"a","marker":"m"}],"next":"x"}`},
				"/resources?c=x": {"", `{"items":[{"id":"b","marker":"m"}],"next":"x"}`},
			},
			err: "the next page is /resources?c=x again: the list loops",
		},
		{
			name:  "a page parameter the API ignores",
			pages: "{next: page, param: page}",
			list: map[string]page{
				"/resources":        {"", `{"items":[{"id":"a","marker":"m"}]}`},
				"/resources?page=2": {"", `{"items":[{"id":"a","marker":"m"}]}`},
			},
			err: "the answer repeats page 1 word for word: does the API honour page?",
		},
		{
			name:  "has_more true without a cursor",
			pages: "{next: cursor, field: next, param: c, more: has_more}",
			list: map[string]page{
				"/resources": {"", `{"items":[{"id":"a","marker":"m"}],"has_more":true}`},
			},
			err: "has_more is true and the answer gives no next page",
		},
		{
			name:  "no has_more in the answer",
			pages: "{next: offset, param: o, more: has_more}",
			list: map[string]page{
				"/resources": {"", `{"items":[{"id":"a","marker":"m"}]}`},
			},
			err: "oracle.list.pages.more: no true or false at has_more",
		},
		{
			name:  "a next cursor that finds two values",
			pages: "{next: cursor, field: 'items[*].id', param: c}",
			list: map[string]page{
				"/resources": {"", `{"items":[{"id":"a","marker":"m"},{"id":"b","marker":"m"}]}`},
			},
			err: "oracle.list.pages.field: items[*].id finds 2 values, want one",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := listServer(t, tc.list)
			tg := pagedList(t, srv.URL, "    pages: "+tc.pages+"\n")
			obs, err := tg.Oracle.Observe(context.Background(), "m")
			switch {
			case tc.err == "" && (err != nil || obs.Count != tc.want):
				t.Errorf("observed %+v, %v: want %d", obs, err, tc.want)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestPagesSpecErrors(t *testing.T) {
	list := "  list:\n    path: /r\n    marker_field: m\n    pages: "
	for _, tc := range []struct{ spec, want string }{
		{"{next: scroll}", `t.yaml:7: oracle.list.pages.next: "scroll" is not a way to the next page (known: link, url, cursor, page, offset)`},
		{"{field: x}", "t.yaml:7: oracle.list.pages.next: missing required field"},
		{"{next: url}", "t.yaml:7: oracle.list.pages.field: next: url needs the path"},
		{"{next: cursor, field: c}", "t.yaml:7: oracle.list.pages.param: next: cursor needs the query parameter"},
		{"{next: link, param: page}", "t.yaml:7: oracle.list.pages.param: is for next: cursor, page and offset, not link"},
		{"{next: page, field: p, param: page}", "t.yaml:7: oracle.list.pages.field: is for next: url and next: cursor, not page"},
		{"{next: page, param: 'a b'}", `t.yaml:7: oracle.list.pages.param: "a b" is not a plain query parameter name`},
		{"{next: offset, param: o, first_page: 0}", "t.yaml:7: oracle.list.pages.first_page: is for next: page, not offset"},
		{"{next: link, max: -1}", "t.yaml:7: oracle.list.pages.max: -1 is not a count from 1 to 10000"},
		{"{next: link, max: 20000}", "t.yaml:7: oracle.list.pages.max: 20000 is not a count from 1 to 10000"},
		{"{next: url, field: 'links[?(@.rel=next)].href'}", `t.yaml:7: oracle.list.pages.field: path "links[?(@.rel=next)].href"`},
		{"{next: link, more: 'has_more.'}", `t.yaml:7: oracle.list.pages.more: path "has_more."`},
	} {
		if _, err := targets.Parse("t.yaml", file(oracleBase+list+tc.spec+"\n")); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.spec, err, tc.want)
		}
	}
}

func TestPagedOracleIsNoClientSearch(t *testing.T) {
	_, err := targets.Parse("t.yaml", file(oracleBase+"  list: {path: '/r?m={{.Marker}}', pages: {next: link}}\nreconcile: oracle\n"))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:5: reconcile: oracle: a client searches one answer, and oracle.list.pages spans several") {
		t.Errorf("error %v: want reconcile: oracle refused with a paged list", err)
	}
}

// A list path without {{.Marker}} is allowed only with marker_field:
// otherwise nothing would pick the run's items out.
func TestListPathWithoutMarker(t *testing.T) {
	if _, err := targets.Parse("t.yaml", file(oracleBase+"  list: {path: /r, marker_field: m}\n")); err != nil {
		t.Errorf("a list that does not filter, with marker_field: %v", err)
	}
	if _, err := targets.Parse("t.yaml", file(oracleBase+"  list: {path: /r}\n")); err == nil || !strings.Contains(err.Error(), "oracle.list.path: must contain {{.Marker}}") {
		t.Errorf("error %v: want {{.Marker}} required without marker_field", err)
	}
}
