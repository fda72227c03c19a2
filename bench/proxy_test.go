package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// BenchmarkProxyOverhead sends the same create request (one key, so the
// reference replays it from its store after the first time) through the
// clean lane's proxy and straight to the target, alternating which goes
// first, on keep-alive connections, and reports both medians, the
// microseconds the proxy adds and the ratio. One op is one pair.
func BenchmarkProxyOverhead(b *testing.B) {
	e := startEnv(b, "fake:reference")
	direct := harness.DirectLane(e.Clean.Upstream)
	ctx := context.Background()
	h := &history.History{}
	body, err := e.Body(e.NewMarker("bench"), "100")
	if err != nil {
		b.Fatal(err)
	}
	key := e.NewKey()
	send := func(l *harness.Lane) time.Duration {
		x := e.Send(ctx, h, harness.Attempt{Step: "bench", Lane: l, Key: key, Body: body})
		if x.Status != 200 && x.Status != 201 {
			b.Fatalf("%s lane: status %d %s %s", l.Name, x.Status, x.Error, x.Body)
		}
		return x.Duration
	}
	// Open both keep-alive connections and store the key's answer.
	for range 20 {
		send(direct)
		send(e.Clean)
	}
	d, p := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			d = append(d, send(direct))
			p = append(p, send(e.Clean))
		} else {
			p = append(p, send(e.Clean))
			d = append(d, send(direct))
		}
	}
	b.StopTimer()
	d50, p50 := quantile(d, 0.5), quantile(p, 0.5)
	b.ReportMetric(micros(d50), "direct-p50-us")
	b.ReportMetric(micros(p50), "proxied-p50-us")
	b.ReportMetric(micros(p50-d50), "added-p50-us")
	b.ReportMetric(float64(p50)/float64(d50), "ratio-p50")
	b.ReportMetric(float64(quantile(p, 0.9))/float64(quantile(d, 0.9)), "ratio-p90")
}
