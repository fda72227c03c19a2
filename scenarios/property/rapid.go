package property

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"pgregory.net/rapid"
)

// Knobs are rapid's settings for one search. rapid reads them from its
// flags on flag.CommandLine (registered when the package loads), not
// from an argument, so Drive sets those flags. Fail files are always off:
// a report carries the seed that replays a failure, and rapid would
// otherwise write under testdata/rapid/ in whatever directory idemspec
// runs in.
type Knobs struct {
	// Checks and Steps bound the sequences rapid draws and their length
	// (0: rapid's default).
	Checks, Steps int
	// Seed is the base seed (0: a random one).
	Seed       uint64
	ShrinkTime time.Duration
}

// knobs are the flags rapid reads while a search runs (steps at each
// sequence, the shrink time when shrinking), as Drive last set them:
// searches with the same ones share them (the MCP detection matrix and
// the pool run several at once), one with others holds them alone while
// it sets them.
var knobs struct {
	sync.RWMutex
	set bool
	cur Knobs // Checks and Seed zero: see starting
}

// starting is held while a search sets the flags rapid reads only as it
// starts (checks, seed) and until rapid has read them, which it has by
// the time it draws the first sequence: searches of other seeds then
// run side by side.
var starting sync.Mutex

// maxRetunes bounds how often a search sets its knobs only to find
// another search's set before it could start; past it, it runs alone.
const maxRetunes = 8

// Drive runs rapid over sequence with k, reporting to tb: P1 and P2's
// search and the MCP audit's M9 are driven alike. rapid reads the steps
// and the shrink time while it runs, so those hold still for the whole
// run; checks and seed it reads as it starts.
func Drive(tb *TB, k Knobs, sequence func(*rapid.T)) error {
	run := k
	run.Checks, run.Seed = 0, 0
	for range maxRetunes {
		knobs.RLock()
		if knobs.set && knobs.cur == run {
			defer knobs.RUnlock()
			return start(tb, k, sequence)
		}
		knobs.RUnlock()
		knobs.Lock()
		err := setKnobs(run)
		knobs.Unlock()
		if err != nil {
			return err
		}
	}
	knobs.Lock()
	defer knobs.Unlock()
	if err := setKnobs(run); err != nil {
		return err
	}
	return start(tb, k, sequence)
}

// start sets the checks and the seed, runs rapid and, once rapid has
// read them, lets the next search set its own.
func start(tb *TB, k Knobs, sequence func(*rapid.T)) error {
	starting.Lock()
	unlock := sync.OnceFunc(starting.Unlock)
	defer unlock()
	for _, f := range [][2]string{
		{"rapid.checks", flagOr("rapid.checks", k.Checks)},
		{"rapid.seed", strconv.FormatUint(k.Seed, 10)},
	} {
		if err := flag.Set(f[0], f[1]); err != nil {
			return fmt.Errorf("rapid: -%s=%s: %w", f[0], f[1], err)
		}
	}
	rapid.Check(tb, func(t *rapid.T) {
		unlock()
		sequence(t)
	})
	return nil
}

// flagOr is n for rapid's flag name, or the flag's default when n is 0.
func flagOr(name string, n int) string {
	if n == 0 {
		return flag.Lookup(name).DefValue
	}
	return strconv.Itoa(n)
}

// setKnobs sets rapid's flags read while it runs to k; the caller holds
// knobs alone.
func setKnobs(k Knobs) error {
	for _, f := range [][2]string{
		{"rapid.steps", flagOr("rapid.steps", k.Steps)},
		{"rapid.shrinktime", k.ShrinkTime.String()},
		{"rapid.nofailfile", "true"},
	} {
		if err := flag.Set(f[0], f[1]); err != nil {
			knobs.set = false
			return fmt.Errorf("rapid: -%s=%s: %w", f[0], f[1], err)
		}
	}
	knobs.set, knobs.cur = true, k
	return nil
}

// rapidTB is what rapid reports to. Ginkgo's GinkgoT() fails the spec by
// panicking on rapid's first Errorf, which cuts rapid short before it
// replays the shrunk sequence and leaves a spec failure with no verdict.
// So rapid reports here and the property turns the shortest failing
// sequence into a check.Verdict, as every other spec does. Fatal and
// FailNow only record: rapid calls FailNow as its very last act.
type rapidTB struct {
	name string // unique per run: rapid looks for old fail files by it
	log  io.Writer

	mu       sync.Mutex
	messages []string
}

func (r *rapidTB) Helper()                           {}
func (r *rapidTB) Name() string                      { return r.name }
func (r *rapidTB) Logf(format string, args ...any)   { fmt.Fprintf(r.log, format+"\n", args...) }
func (r *rapidTB) Log(args ...any)                   { fmt.Fprintln(r.log, args...) }
func (r *rapidTB) Errorf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *rapidTB) Error(args ...any)                 { r.record(fmt.Sprint(args...)) }
func (r *rapidTB) Fatalf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *rapidTB) Fatal(args ...any)                 { r.record(fmt.Sprint(args...)) }
func (r *rapidTB) Fail()                             { r.record("") }
func (r *rapidTB) FailNow()                          { r.record("") }
func (r *rapidTB) Skipf(format string, args ...any) {
	r.record("skipped: " + fmt.Sprintf(format, args...))
}
func (r *rapidTB) Skip(args ...any) { r.record("skipped: " + fmt.Sprint(args...)) }
func (r *rapidTB) SkipNow()         { r.record("skipped") }

func (r *rapidTB) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.messages) > 0
}

func (r *rapidTB) record(msg string) {
	fmt.Fprintln(r.log, msg)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.messages = append(r.messages, msg)
}

// message is what rapid reported, in one string.
func (r *rapidTB) message() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.TrimSpace(strings.Join(r.messages, "\n"))
}

// rapidSeed is how rapid names the seed that replays a failure.
var rapidSeed = regexp.MustCompile(`-rapid\.seed=(\d+)`)

// failingSeed reads the failing sequence's seed from rapid's report (0
// when rapid gave none).
func failingSeed(report string) uint64 {
	m := rapidSeed.FindStringSubmatch(report)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseUint(m[1], 10, 64)
	return n
}
