package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets"
)

// BenchmarkHugeListReadings reads a list that answers 900k ids (15 MiB)
// ten times, as a suite's checks do, and reports side by side what
// the readings kept cost: the heap they hold and the bytes they write
// to report.json, as recorded (a bounded sample of ids) and as they
// were before (every id in every reading).
func BenchmarkHugeListReadings(b *testing.B) {
	const n, readings = 900_000, 10
	var list bytes.Buffer
	list.WriteString(`{"items":[`)
	all := make([]string, n)
	for i := range n {
		if i > 0 {
			list.WriteByte(',')
		}
		all[i] = fmt.Sprintf("r%07d", i)
		fmt.Fprintf(&list, `{"id":%q}`, all[i])
	}
	list.WriteString(`]}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(list.Bytes()) }))
	defer srv.Close()
	target, err := targets.Parse("t.yaml", []byte(`base_url: `+srv.URL+`
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}', items: items}}
`))
	if err != nil {
		b.Fatal(err)
	}
	defer target.Close()
	env, err := harness.New(target, harness.DefaultSettings())
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	held := func(keep func() []check.Reading) (heapMB, reportMB float64) {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		kept := keep()
		runtime.GC()
		runtime.ReadMemStats(&after)
		out, _ := json.Marshal(check.Evidence{Readings: kept})
		runtime.KeepAlive(kept)
		return megabytes(int64(after.HeapInuse) - int64(before.HeapInuse)), megabytes(int64(len(out)))
	}
	var sampleHeap, sampleReport, wholeHeap, wholeReport []float64
	for range b.N {
		h, r := held(func() []check.Reading {
			var kept []check.Reading
			for i := range readings {
				obs, err := env.Observe(context.Background(), fmt.Sprint("m", i))
				if err != nil {
					b.Fatal(err)
				}
				kept = append(kept, env.Reading(fmt.Sprint("m", i), "after", obs))
			}
			return kept
		})
		sampleHeap, sampleReport = append(sampleHeap, h), append(sampleReport, r)
		h, r = held(func() []check.Reading {
			var kept []check.Reading
			for i := range readings {
				kept = append(kept, check.Reading{Marker: fmt.Sprint("m", i), Count: n, IDs: append([]string(nil), all...), Oracle: "list"})
			}
			return kept
		})
		wholeHeap, wholeReport = append(wholeHeap, h), append(wholeReport, r)
	}
	b.ReportMetric(mean(sampleHeap), "sample-held-MB")
	b.ReportMetric(mean(wholeHeap), "every-id-held-MB")
	b.ReportMetric(mean(sampleReport), "sample-report-MB")
	b.ReportMetric(mean(wholeReport), "every-id-report-MB")
}
