package targets_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/targets"
)

// The JSON paths of a target file, each form read through the list
// oracle (items, id_field, marker_field) as a run reads them.
func TestJSONPaths(t *testing.T) {
	const data = `{"data":[
		{"id":"a","status":"active","n":2,"ok":true,"m":"x","tags":["x","t"]},
		{"id":"b","status":"gone","n":2.0,"ok":false,"m":"x","tags":["y"],"gone":null},
		{"id":"c","status":"active","n":3,"m":"y","links":[{"rel":"self","href":"/c"}],"tags":[]}]}`
	const nested = `{"groups":[{"members":[{"ids":["p","q"]},{"ids":["r"]}]},{"members":[{"ids":["s"]}]}]}`
	tests := []struct {
		name                    string
		body, items, id, marker string
		want                    []string // ids; nil with err
		err                     string
	}{
		{name: "dotted keys, as always", body: `{"a":{"list":[{"x":{"id":"1"}}]}}`, items: "a.list", id: "x.id", want: []string{"1"}},
		{name: "a bare array", body: `[{"id":5},{"id":6}]`, id: "id", want: []string{"5", "6"}},
		{name: "a filter on a string", body: data, items: `data[?(@.status=="active")]`, id: "id", want: []string{"a", "c"}},
		{name: "!= without parentheses, single quotes", body: data, items: `data[?@.status != 'active']`, id: "id", want: []string{"b"}},
		{name: "a filter on a number compares values", body: data, items: `data[?(@.n == 2)]`, id: "id", want: []string{"a", "b"}},
		{name: "a filter on a boolean", body: data, items: `data[?(@.ok == true)]`, id: "id", want: []string{"a"}},
		{name: "a filter on null", body: data, items: `data[?(@.gone == null)]`, id: "id", want: []string{"b"}},
		{name: "present and not null", body: data, items: `data[?(@.ok)]`, id: "id", want: []string{"a", "b"}},
		{name: "a filter on an element of the item", body: data, items: `data[?(@.tags[0] == "x")]`, id: "id", want: []string{"a"}},
		{name: "every element", body: data, items: `data[*]`, id: "id", want: []string{"a", "b", "c"}},
		{name: "indices, negative from the end", body: nested, items: "groups[0].members", id: "ids[-1]", want: []string{"q", "r"}},
		{name: "an index past the end finds nothing", body: nested, items: "groups[0].members", id: "ids[5]", want: []string{}},
		{name: "[*] flattens", body: nested, items: "groups[*].members[*].ids", id: "", want: []string{"[p q]", "[r]", "[s]"}},
		{name: "quoted keys hold dots", body: `{"a.b":[{"x-y":{"id":7}}]}`, items: `["a.b"]`, id: `['x-y'].id`, want: []string{"7"}},
		{name: "a slice is no index", body: data, items: "data[2:3]", err: "not an index"},
		{name: "an id found by a filter", body: data, items: `data[?(@.links)]`, id: `links[?(@.rel=="self")].href`, want: []string{"/c"}},
		{name: "marker_field with an index", body: data, items: "data", id: "id", marker: "tags[0]", want: []string{"a"}},
		{name: "an id path that finds two", body: data, items: "data", id: "tags[*]", err: "id_field: tags[*] finds 2 values, want one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := fakes.DescribeTarget("http://127.0.0.1:1", "fake:test").Oracle.(*targets.ListOracle)
			o.Items, o.IDField, o.MarkerField = tc.items, tc.id, tc.marker
			obs, err := o.Read(http.StatusOK, []byte(tc.body), "x")
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err == "" && !slices.Equal(obs.IDs, tc.want):
				t.Errorf("ids %q, want %q", obs.IDs, tc.want)
			}
		})
	}
}

func TestResourceIDPath(t *testing.T) {
	tg := fakes.DescribeTarget("http://127.0.0.1:1", "fake:test")
	for idField, want := range map[string]string{
		"data[0].id":                    "r1",
		"data[-1].id":                   "r2",
		`data[?(@.kind=="order")].id`:   "r2",
		`data[?(@.kind=="payment")].id`: "",
		"data[*].id":                    "", // two: no one id
	} {
		tg.Create.IDField = idField
		if got := tg.ResourceID([]byte(`{"data":[{"id":"r1","kind":"fee"},{"id":"r2","kind":"order"}]}`)); got != want {
			t.Errorf("%s: ResourceID = %q, want %q", idField, got, want)
		}
	}
}

// A path that does not parse is a load error naming the field and what
// is wrong, never an oracle that silently finds nothing.
func TestJSONPathErrors(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"data[", "[ at offset 4 is never closed"},
		{"data[x]", "[x] at offset 4 is not an index, a quoted key, * or a filter"},
		{"data..id", "an empty name at offset 4"},
		{".id", "an empty name at offset 0"},
		{"id.", "an empty name at offset 2"},
		{"data.[0]", "an empty name at offset 4"},
		{"data]", "] without [ at offset 4"},
		{"data[0]x", "want . or [ after ] at offset 7"},
		{`data["x]`, `unclosed "`},
		{`data['x`, "unclosed '"},
		{`data["x"`, "want ] after the quoted key"},
		{`data[?(s == 1)]`, "want @ (the element)"},
		{`data[?(@.s = 1)]`, "want == or != and a value"},
		{`data[?(@.s == )]`, `"" is not a value`},
		{`data[?(@.s == active)]`, `"active" is not a value`},
		{`data[?(@.s == {})]`, `"{}": a filter compares to a string`},
		{`data[?(@.s == 'x']`, "want ) to close the filter"},
		{`data[?(@.a[*] == 1)]`, "@.a[*] finds a list: a filter compares one value"},
	} {
		_, err := targets.Parse("t.yaml", file(oracleBase+"  list:\n    path: '/r?m={{.Marker}}'\n    items: '"+strings.ReplaceAll(tc.path, "'", "''")+"'\n"))
		if err == nil || !strings.Contains(err.Error(), "t.yaml:6: oracle.list.items: path ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want t.yaml:6: oracle.list.items naming %q", tc.path, err, tc.want)
		}
	}
	for _, tc := range []struct{ spec, want string }{
		{"  list: {path: '/r?m={{.Marker}}', id_field: 'a['}\n", "t.yaml:4: oracle.list.id_field: path"},
		{"  list: {path: '/r?m={{.Marker}}', marker_field: 'a..b'}\n", "t.yaml:4: oracle.list.marker_field: path"},
		{"  lookup: {path: '/r/{{.ID}}', marker_field: 'a]'}\n", "t.yaml:4: oracle.lookup.marker_field: path"},
		{"  list: {path: '/r?m={{.Marker}}'}\nlookup: {path: '/k/{{.Key}}', id_field: 'a[?(@.x)'}\n", "t.yaml:5: lookup.id_field: path"},
	} {
		if _, err := targets.Parse("t.yaml", file(oracleBase+tc.spec)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.spec, err, tc.want)
		}
	}
	// The oracle's id field defaults to create.id_field, and is checked
	// under that name.
	_, err := targets.Parse("t.yaml", file(`
base_url: http://127.0.0.1:1
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: 'data[0'}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:2: create.id_field: path") {
		t.Errorf("error %v: want create.id_field named", err)
	}
}
