package targets_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// TestIDFieldProblem: the first create's id_field is compared with what
// the oracle found for its marker; a wrong field is named, with what it
// read, what the oracle listed, and the field that holds the listed id.
func TestIDFieldProblem(t *testing.T) {
	const marker = "idemspec-run1-preflight-1"
	reference := `{"created_at":"2026-01-01T00:00:00Z","id":"res_1","marker":"` + marker + `","payload":{"marker":"` + marker + `","amount":1}}`
	adyen := `{"pspReference":"PSP1","merchantReference":"` + marker + `","amount":{"value":1}}`
	listed := func(ids ...string) targets.Observation { return targets.Observation{Count: len(ids), IDs: ids} }
	cases := []struct {
		name   string
		r      targets.IDFieldReading
		want   []string // substrings of the error; none: no error
		absent []string
	}{
		{name: "agrees", r: targets.IDFieldReading{Field: "id", Read: "res_1", Answer: []byte(reference), Seen: listed("res_1")}},
		{name: "the oracle lists nothing yet: nothing to compare", r: targets.IDFieldReading{Field: "product_id", Read: "p9", Answer: []byte(reference), Seen: listed()}},
		{name: "two listed: the checks judge duplicates", r: targets.IDFieldReading{Field: "product_id", Read: "p9", Answer: []byte(reference), Seen: listed("res_1", "res_2")}},
		{name: "a counting oracle, an id", r: targets.IDFieldReading{Field: "id", Read: "res_1", Answer: []byte(reference), Seen: targets.Observation{Count: 1}}},
		{name: "another id than the one listed", r: targets.IDFieldReading{Field: "product_id", Read: "p9", Answer: []byte(`{"id":"res_1","product_id":"p9"}`), Oracle: "list", Seen: listed("res_1")},
			want: []string{`create.id_field "product_id" reads "p9"`, `the oracle (list) lists one resource for its marker, "res_1"`, `did you mean "id"?`}},
		{name: "the marker, Adyen's merchantReference", r: targets.IDFieldReading{Field: "merchantReference", Read: marker, Answer: []byte(adyen), Oracle: "list", Seen: listed("PSP1")},
			want: []string{`create.id_field "merchantReference" reads "` + marker + `"`, "that is the marker the harness sent", `lists one resource for the marker, "PSP1"`, `did you mean "pspReference"?`}},
		// oracle.list.id_field defaults to create.id_field: the oracle
		// reads the marker too, and the answer's id-like field is named.
		{name: "the marker, read by the oracle too", r: targets.IDFieldReading{Field: "marker", Read: marker, Answer: []byte(reference), Oracle: "list", Seen: listed(marker)},
			want: []string{`create.id_field "marker" reads`, "its id_field reads the marker as well", `did you mean "id"?`}},
		{name: "the marker, a counting oracle", r: targets.IDFieldReading{Field: "merchantReference", Read: marker, Answer: []byte(adyen), Oracle: "sql", Seen: targets.Observation{Count: 1}},
			want: []string{"that is the marker the harness sent", `did you mean "pspReference"?`}},
		{name: "absent", r: targets.IDFieldReading{Field: "data.id", Answer: []byte(reference), Oracle: "list", Status: 201, Seen: listed("res_1")},
			want: []string{`create.id_field "data.id" is not in the target's answer to the harness's first create, a 201`, `did you mean "id"?`}},
		{name: "listed id in no field: the oracle's id_field may be the wrong one", r: targets.IDFieldReading{Field: "id", Read: "res_1", Answer: []byte(reference), Oracle: "list", Seen: listed("42")},
			want: []string{`reads "res_1"`, `lists one resource for its marker, "42"`, `or the oracle's id_field: no field of the answer holds "42"`}, absent: []string{"did you mean"}},
		{name: "by id: found", r: targets.IDFieldReading{Field: "id", Read: "res_1", Answer: []byte(reference), ByID: true, Seen: listed("res_1")}},
		{name: "by id: found, and a parent's id too", r: targets.IDFieldReading{Field: "id", Read: "res_1", Answer: []byte(`{"id":"res_1","order_id":"o1"}`), ByID: true, Seen: listed("res_1", "o1")}},
		{name: "by id: not found, another field found", r: targets.IDFieldReading{Field: "product_id", Read: "p9", Answer: []byte(`{"id":"res_1","product_id":"p9"}`), Oracle: "lookup", ByID: true, Seen: listed("res_1")},
			want: []string{`create.id_field "product_id" reads "p9"`, "the oracle (lookup) finds no resource carrying its marker at that id", `did you mean "id"?`}},
		{name: "by id: nothing found", r: targets.IDFieldReading{Field: "product_id", Read: "p9", Answer: []byte(`{"product_id":"p9","ref":"x"}`), Oracle: "lookup", ByID: true, Seen: listed()},
			want: []string{"finds no resource carrying its marker at that id"}, absent: []string{"did you mean"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.r.Marker, c.r.Request = marker, "POST /resources"
			err := c.r.Problem()
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(err.Error(), a) {
					t.Errorf("error %q\nhas %q", err, a)
				}
			}
		})
	}
}

// TestIDFieldCandidates: a by-id oracle is asked about the id read first,
// then the answer's other values, never the marker.
func TestIDFieldCandidates(t *testing.T) {
	got := targets.IDFieldCandidates([]byte(`{"product_id":"p9","marker":"m","data":{"id":"r1"},"n":7,"ok":true}`), "p9", "m")
	want := []string{"p9", "7", "r1"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("candidates %q, want %q", got, want)
	}
	if f := targets.FieldHolding([]byte(`{"a":{"b.c":"x"}}`), "x"); f != `a["b.c"]` {
		t.Errorf("FieldHolding = %q", f)
	}
}
