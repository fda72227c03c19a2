package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets"
)

// hugeList is a list answer of n items, about 16 bytes each.
func hugeList(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"r%07d"}`, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// A list far longer than the sample a reading keeps (60k ids, 15 times
// targets.MaxObservedIDs) costs each reading a bounded sample, not the
// whole list; the count stays exact; an answer over the read cap is an
// error that says so, not a short list. The size the cap was made for
// (900k ids, 15 MiB: a full suite held 3.7 GB and wrote a 380 MB
// report.json) is BenchmarkHugeListReadings' to measure: decoded under
// -race here it cost 70 CPU-seconds and proved nothing more.
func TestHugeListsKeepABoundedSample(t *testing.T) {
	const n = 60_000
	answer := hugeList(n)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("m") == "over" {
			w.Write(bytes.Repeat([]byte(" "), targets.MaxReadAnswer+1))
			return
		}
		w.Write(answer)
	}))
	defer srv.Close()
	env := envOf(t, `base_url: `+srv.URL+`
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}', items: items}}
`)
	obs, err := env.Observe(context.Background(), "m1")
	if err != nil {
		t.Fatal(err)
	}
	r := env.Reading("m1", "after", obs)
	if r.Count != n || len(r.IDs) != targets.MaxObservedIDs || r.IDsOmitted != n-targets.MaxObservedIDs || r.IDs[0] != "r0000000" {
		t.Fatalf("reading: count %d, %d ids (first %s), %d omitted; want %d, %d, %d", r.Count, len(r.IDs), r.IDs[0], r.IDsOmitted, n, targets.MaxObservedIDs, n-targets.MaxObservedIDs)
	}
	sample, _ := json.Marshal(check.Evidence{Readings: []check.Reading{r}})
	all := make([]string, n)
	for i := range all {
		all[i] = fmt.Sprintf("r%07d", i)
	}
	whole, _ := json.Marshal(check.Evidence{Readings: []check.Reading{{Marker: "m1", Count: n, IDs: all, Oracle: "list"}}})
	t.Logf("one reading in report.json: %d bytes, was %d with every id (%.0fx)", len(sample), len(whole), float64(len(whole))/float64(len(sample)))
	if len(sample) > 100<<10 {
		t.Errorf("one reading writes %d bytes to the report", len(sample))
	}
	if _, err := env.Observe(context.Background(), "over"); err == nil || !bytes.Contains([]byte(err.Error()), []byte("the answer is longer than 16 MiB")) {
		t.Errorf("an answer over the cap: %v", err)
	}
}
