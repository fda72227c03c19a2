package bench_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness"
)

// BenchmarkBurstFloor measures what no client can beat: the reference,
// in its own process, is frozen (SIGSTOP) after every handler of a burst
// has asked for its body (100 Continue), all N bodies are written while
// it cannot run, and then it is thawed. Every byte is there at once, so
// the arrival spread is only the server taking N requests in: the floor
// under BenchmarkBurst's figures on this machine. Side by side with it,
// in the same loop and against the same server process, taking turns,
// the harness's own bursts: through the clean lane (the proxy holds the
// bodies and the harness releases them from it) and straight to the
// server. The ratios of their medians to the floor's are the figures
// that travel from one machine's load to another's, and so is the ratio
// of the lane's median to the straight path's: what the proxy hop costs a
// burst. One op is one burst of each kind.
func BenchmarkBurstFloor(b *testing.B) {
	for _, n := range burstSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			e, p := processEnv(b)
			kinds := []string{"floor", e.Clean.Name, "direct"}
			direct := harness.DirectLane(e.Clean.Upstream)
			spreads := map[string][]time.Duration{}
			var gaps []time.Duration
			b.ResetTimer()
			for i := range b.N {
				for j := range kinds {
					switch kind := kinds[(i+j)%len(kinds)]; kind {
					case "floor":
						arrivals := frozenBurst(b, e, p, n)
						spreads[kind] = append(spreads[kind], spread(arrivals))
						gaps = append(gaps, arrivalGaps(arrivals)...)
					default:
						l := e.Clean
						if kind == "direct" {
							l = direct
						}
						bu, _ := burst(b, e, l, n)
						if !bu.ArrivalKnown {
							b.Fatalf("%s: the server did not stamp every arrival", kind)
						}
						spreads[kind] = append(spreads[kind], bu.ArrivalSpread)
					}
				}
			}
			b.StopTimer()
			floor := quantile(spreads["floor"], 0.5)
			b.ReportMetric(micros(floor), "floor-arrival-p50-us")
			b.ReportMetric(micros(quantile(spreads["floor"], 0.9)), "floor-arrival-p90-us")
			b.ReportMetric(micros(quantile(gaps, 0.5)), "floor-gap-p50-us")
			p50 := map[string]time.Duration{}
			for _, kind := range kinds[1:] {
				p50[kind] = quantile(spreads[kind], 0.5)
				b.ReportMetric(micros(p50[kind]), kind+"-arrival-p50-us")
				b.ReportMetric(float64(p50[kind])/float64(max(floor, 1)), kind+"-floor-ratio")
			}
			b.ReportMetric(float64(p50[e.Clean.Name])/float64(max(p50["direct"], 1)), e.Clean.Name+"-direct-ratio")
		})
	}
}

// frozenBurst sends one same-key burst of n with the bodies written while
// the server is frozen, and returns the server's arrival stamps.
func frozenBurst(b *testing.B, e *harness.Env, p *serverProcess, n int) []time.Time {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	deadline, _ := ctx.Deadline()
	body, err := e.Body(e.NewMarker("floor"), "100")
	if err != nil {
		b.Fatal(err)
	}
	req, err := e.Target.NewCreate(ctx, e.NewKey(), body)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Expect", "100-continue")
	var raw bytes.Buffer
	if err := req.Write(&raw); err != nil {
		b.Fatal(err)
	}
	head, payload, _ := bytes.Cut(raw.Bytes(), []byte("\r\n\r\n"))
	head = append(head, "\r\n\r\n"...)

	type conn struct {
		net.Conn
		r *bufio.Reader
	}
	conns := make([]conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		nc, err := net.Dial("tcp", e.Clean.Upstream)
		if err != nil {
			b.Fatal(err)
		}
		nc.SetDeadline(deadline)
		conns = append(conns, conn{nc, bufio.NewReader(nc)})
		if _, err := nc.Write(head); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range conns {
		if resp, err := http.ReadResponse(c.r, nil); err != nil || resp.StatusCode != http.StatusContinue {
			b.Fatalf("the server did not ask for the body: %v %v", resp, err)
		}
	}
	if err := p.freeze(); err != nil {
		b.Fatal(err)
	}
	for _, c := range conns {
		c.Write(payload)
	}
	if err := p.thaw(); err != nil {
		b.Fatal(err)
	}
	arrivals := make([]time.Time, 0, n)
	for _, c := range conns {
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		ns, err := strconv.ParseInt(resp.Header.Get(harness.ArrivalHeader), 10, 64)
		if err != nil {
			b.Fatalf("no arrival stamp: %v", err)
		}
		arrivals = append(arrivals, time.Unix(0, ns))
	}
	return arrivals
}
