package bench_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios"
)

// searchWorkers are the pool sizes the search benchmarks compare: one
// sequence at a time, and the default pool (0: sized to the API, six
// workers against these 200 ms creates, four against the quick fakes).
var searchWorkers = []int{1, 0}

// BenchmarkSearchWorkers runs the properties' search alone (P1 and P2)
// against the reference served in a process of its own with a 200 ms
// handler, with one worker and with the default pool, taking turns, from the same
// seed: the same sequences and steps. It reports each one's search time
// and their ratio (the pool's speed-up). target=process is
// examples/targets/process-reference.yaml: idemspec manages the
// process, so the search restarts and crashes it, and those run alone;
// target=served is the same server started here, which the search
// cannot restart: only the sequences' own steps. target=suite is the
// full default suite against the managed process, and its figures are
// the whole run's time (the search is most of it). Every run must pass.
func BenchmarkSearchWorkers(b *testing.B) {
	for _, target := range []string{"served", "process", "suite"} {
		b.Run("target="+target, func(b *testing.B) {
			bin := idemspecBinary(b)
			file := "../examples/targets/process-reference.yaml"
			if target == "served" {
				file = servedReference(b, bin, "200ms")
			}
			filter := []string{"--label-filter", "property"}
			if target == "suite" {
				filter = nil
			}
			wall := map[int][]time.Duration{}
			b.ResetTimer()
			for i := range b.N {
				for j := range searchWorkers {
					w := searchWorkers[(i+j)%len(searchWorkers)]
					args := append([]string{"--target", file, "--seed", fmt.Sprint(1000 + i), "--search-workers", fmt.Sprint(w)}, filter...)
					r := runCLI(b, args...)
					if r.code != 0 {
						b.Fatalf("the reference did not pass with %d workers (exit %d)\n%s", w, r.code, r.output)
					}
					took := searchTime(b, r)
					if target == "suite" {
						took = time.Duration(r.report.Run.DurationMS * float64(time.Millisecond))
					}
					wall[w] = append(wall[w], took)
				}
			}
			b.StopTimer()
			one, pool := quantile(wall[1], 0.5), quantile(wall[0], 0.5)
			b.ReportMetric(one.Seconds(), "one-worker-s")
			b.ReportMetric(pool.Seconds(), "pool-s")
			b.ReportMetric(one.Seconds()/max(pool.Seconds(), 1e-9), "speedup")
		})
	}
}

// servedReference starts `idemspec serve` with a handler taking delay
// on a free loopback port, stops it when the benchmark ends, and writes
// a target file for it with no process: section (nothing restarts it).
func servedReference(b *testing.B, bin, delay string) string {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := b.TempDir()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--db", filepath.Join(dir, "target.db"), "--delay", delay)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	url := "http://" + addr
	healthy := false
	for range 300 { // 30 s at most
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			healthy = resp.StatusCode == http.StatusOK
			if healthy {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !healthy {
		b.Fatalf("idemspec serve on %s did not come up", addr)
	}
	// The managed example's target, less its process: section, at this
	// server's address.
	example, err := os.ReadFile("../examples/targets/process-reference.yaml")
	if err != nil {
		b.Fatal(err)
	}
	yaml, _, _ := strings.Cut(string(example), "\nprocess:")
	yaml = strings.Replace(yaml, "http://127.0.0.1:{{.Port}}", url, 1)
	file := filepath.Join(dir, "served-reference.yaml")
	if err := os.WriteFile(file, []byte(yaml+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return file
}

// searchTime is how long a run's search took (P1's spec ran it).
func searchTime(b *testing.B, r cliRun) time.Duration {
	b.Helper()
	p1 := checkResult(b, r, scenarios.P1.ID)
	return time.Duration(p1.DurationMS * float64(time.Millisecond))
}

// BenchmarkSearchDetection runs the properties' search alone against
// the race mutants, with one worker and with the default pool, taking turns, from
// the same seed, and reports the share of runs in which P1 caught each:
// check-then-insert with its race window narrowed to 100 µs and 10 µs
// (bursts), and record-after-answer-quick (a restart right after an
// answer). A difference of at least 0 points: the pool catches as often.
func BenchmarkSearchDetection(b *testing.B) {
	for _, target := range []string{"check-then-insert?delay=100us", "check-then-insert?delay=10us", "record-after-answer-quick"} {
		b.Run("mutant="+target, func(b *testing.B) {
			idemspecBinary(b)
			caught := map[int]int{}
			b.ResetTimer()
			for i := range b.N {
				for j := range searchWorkers {
					w := searchWorkers[(i+j)%len(searchWorkers)]
					r := runCLI(b, "--target", "fake:"+target, "--label-filter", "property",
						"--seed", fmt.Sprint(2000+i), "--search-workers", fmt.Sprint(w))
					switch p1 := checkResult(b, r, scenarios.P1.ID); p1.Verdict {
					case check.FAIL:
						caught[w]++
					case check.PASS:
					default:
						b.Fatalf("P1 %s: %s", p1.Verdict, p1.Reason)
					}
				}
			}
			b.StopTimer()
			one, pool := 100*float64(caught[1])/float64(b.N), 100*float64(caught[0])/float64(b.N)
			b.ReportMetric(one, "one-worker-caught-%")
			b.ReportMetric(pool, "pool-caught-%")
			// A share can be 0, so the pool's against one is a
			// difference, in points: at least 0 is as good or better.
			b.ReportMetric(pool-one, "caught-diff-points")
		})
	}
}
