package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/internal/console"
	"github.com/idemspec/idemspec/internal/outfile"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/scenarios/property"
	"github.com/idemspec/idemspec/targets"
)

func init() {
	register(command{use: "run", summary: "run the conformance suite against a target and write reports", define: runCommand})
}

// defaultTarget is the built-in reference server: `idemspec run` with no
// target proves the harness end to end.
const defaultTarget = "fake:reference"

// suiteFlags are the flags of every command that runs the suite.
type suiteFlags struct {
	reportDir   string
	labelFilter string
	seed        int64
	strict      bool
	verbose     bool
	quiet       bool
	noColor     bool
	timeout     time.Duration
	adoption    adoption // --accept, --fail-on
}

// defaultRunTimeout bounds a whole run. The default suite takes seconds
// against the built-in fakes and a few minutes against a slow managed
// process; every single wait is capped at targets.MaxWait besides.
const defaultRunTimeout = 30 * time.Minute

// register adds the suite flags to fs; filterUsage says what the label
// filter selects in this command.
func (c *suiteFlags) register(fs *pflag.FlagSet, filterUsage string) {
	fs.StringVar(&c.reportDir, "report-dir", "idemspec-report", "where report.json, junit.xml, report.md, report.html, report.sarif and ginkgo.log are written")
	fs.StringVar(&c.labelFilter, "label-filter", "", filterUsage)
	fs.Int64Var(&c.seed, "seed", 0, "random seed (0: from the clock); printed and stored in the report")
	fs.BoolVar(&c.strict, "strict", false, "fail the run on WARN (a SHOULD not met)")
	fs.BoolVarP(&c.verbose, "verbose", "v", false, "stream Ginkgo's own output too (it always goes to REPORT-DIR/ginkgo.log)")
	fs.BoolVarP(&c.quiet, "quiet", "q", false, "print only the summary line (errors still go to stderr)")
	fs.BoolVar(&c.noColor, "no-color", false, "no colour on a terminal (so does a non-empty NO_COLOR)")
	fs.DurationVar(&c.timeout, "timeout", defaultRunTimeout, "bound on the whole run: when it runs out, the reports hold what finished and the rest is ERROR (exit 2)")
	c.adoption.register(fs, &c.strict)
}

type runFlags struct {
	suiteFlags
	target      string
	operations  []string
	allowRemote bool
	dryRun      bool
	shard       string
	wait        time.Duration
	settings    harness.Settings
	tuning      scenarios.Tuning
	property    property.Config
}

func runCommand(fs *pflag.FlagSet) body {
	f := &runFlags{settings: harness.DefaultSettings(), tuning: scenarios.DefaultTuning(), property: property.DefaultConfig()}
	fs.StringVar(&f.target, "target", defaultTarget, "a target `FILE`, or fake:NAME for a built-in fake (idemspec list --fakes names them)")
	f.register(fs, `Ginkgo label filter, e.g. "S4" or "core && !S2"`)
	fs.StringSliceVar(&f.operations, "operation", nil, "run only the named operations of a target file with operations: (repeat it, or a comma list)")
	intFlag(fs, &f.tuning.Repeats, "repeats", 2, 1000, "how many times S1 sends the same request (2..1000)")
	intFlag(fs, &f.settings.BurstSize, "burst", 1, harness.MaxBurst, fmt.Sprintf("same-key requests per burst (1..%d)", harness.MaxBurst))
	fs.DurationVar(&f.settings.RequestTimeout, "request-timeout", f.settings.RequestTimeout, "bound on one request")
	fs.IntVar(&f.settings.Limits.Budget, "budget", 0, "most requests the run may send to the target, oracle and cleanup included (0: no limit)")
	fs.Float64Var(&f.settings.Limits.Rate, "rate", 0, "most requests per second, on average (0: no limit; a burst still goes out together)")
	fs.IntVar(&f.settings.Limits.Concurrency, "concurrency", 0, "most requests in flight at once; caps the burst size (0: no limit)")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow a target that is not on a loopback address (or say allow_remote: true in the target file)")
	fs.Var(shardFlag{&f.shard}, "shard", "run only slice `I/N` of the suite (by operation, then by check), so N machines run it once between them; `idemspec report --merge` joins their reports")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the plan (checks, request counts, faults, restarts) and send nothing")
	fs.DurationVar(&f.wait, "wait", 0, fmt.Sprintf("keep trying the target's first read for up to this long before giving up, for a service still starting (0: one try; at most %s)", maxWait))
	intFlag(fs, &f.tuning.Retry.MaxAttempts, "retry-attempts", 1, 100, "S6: the reference client's attempt budget (1..100)")
	fs.DurationVar(&f.tuning.Retry.AttemptTimeout, "retry-timeout", f.tuning.Retry.AttemptTimeout, "S6: the reference client's bound on one request under the fault")
	fs.DurationVar(&f.tuning.Retry.Deadline, "retry-deadline", f.tuning.Retry.Deadline, "S6: the reference client's deadline for a run under the fault")
	fs.IntVar(&f.property.Sequences, "sequences", f.property.Sequences, "random sequences the properties (P1, P2) try")
	// --checks was this flag's first name; it read as a number of checks.
	fs.IntVar(&f.property.Sequences, "checks", f.property.Sequences, "deprecated: --sequences")
	fs.MarkHidden("checks")
	fs.IntVar(&f.property.Steps, "steps", f.property.Steps, "average actions in a property sequence")
	fs.StringVar(&f.property.Counterexample, "counterexample", "", "run the properties on this one sequence of actions, as a report's replay line gives it (ACTION/KEY/PAYLOAD/N;...), with nothing drawn or shrunk")
	fs.IntVar(&f.property.Budget, "property-budget", f.property.Budget, "create requests the properties may send in all, shrinking included (0: none; --budget caps every request)")
	fs.IntVar(&f.property.Crashes, "crashes", f.property.Crashes, "crashes the properties land in a request's work per search (each waits out the in-progress timeout; 0: none)")
	intFlag(fs, &f.property.Workers, "search-workers", 0, 64, fmt.Sprintf("property sequences run at once, each on keys of its own (1..64; 0: sized to the API, %d, or %d when the preflight create took %s or longer); a restart or crash waits for the others to be between steps", property.QuickWorkers, property.SlowWorkers, property.SlowCreate))
	fs.DurationVar(&f.property.SearchTime, "search-time", 0, "stop starting property sequences after this long (0: derived from the preflight create's latency, at least "+property.MinSearchTime.String()+")")
	return func(_ []string, stdout, stderr io.Writer) int {
		if fs.Changed("checks") {
			fmt.Fprintln(stderr, "idemspec: --checks is deprecated: use --sequences (the same number, of random sequences)")
		}
		// The run's lifecycle begins before anything is loaded or
		// started: a signal from here on stops what was started and
		// the reports follow.
		l := begin(f.timeout)
		defer l.end()
		if err := f.validate(); err != nil {
			return fail(stderr, err)
		}
		return f.execute(l, stdout, stderr)
	}
}

func (f *runFlags) validate() error {
	if f.settings.RequestTimeout <= 0 || f.timeout <= 0 {
		return fmt.Errorf("--request-timeout and --timeout must be positive")
	}
	if l := f.settings.Limits; l.Budget < 0 || l.Rate < 0 || l.Concurrency < 0 {
		return fmt.Errorf("--budget, --rate and --concurrency must not be negative")
	}
	if r := f.settings.Limits.Rate; math.IsNaN(r) || math.IsInf(r, 0) {
		// NaN passed every comparison above and switched pacing off.
		return fmt.Errorf("--rate %g: must be a number of requests per second (0: no limit)", r)
	}
	if f.tuning.Retry.AttemptTimeout <= 0 || f.tuning.Retry.Deadline <= 0 {
		return fmt.Errorf("--retry-timeout and --retry-deadline must be positive")
	}
	if f.wait < 0 || f.wait > maxWait {
		return fmt.Errorf("--wait %s: must be between 0 and %s", f.wait, maxWait)
	}
	if f.property.Sequences < 1 || f.property.Steps < 1 || f.property.Budget < 0 || f.property.Crashes < 0 {
		return fmt.Errorf("--sequences and --steps must be at least 1, --property-budget and --crashes at least 0")
	}
	if f.property.SearchTime < 0 {
		return fmt.Errorf("--search-time %s: must not be negative (0: derived from the API's latency)", f.property.SearchTime)
	}
	if f.property.Crashes == 0 {
		f.property.Crashes = -1 // none: 0 in PropertyConfig means the default
	}
	if _, err := types.ParseLabelFilter(f.labelFilter); err != nil {
		return fmt.Errorf("--label-filter %q: %v", f.labelFilter, err)
	}
	return nil
}

func (f *runFlags) execute(l *lifecycle, stdout, stderr io.Writer) int {
	// SIGINT and SIGTERM do not kill idemspec (the lifecycle's ctx ends,
	// the suite is interrupted, a second signal skips the cleanup) and
	// the deferred Close stops any process idemspec started, so nothing
	// is left behind and the reports cover what ran.
	ctx := l.ctx
	target, err := loadTarget(ctx, f.target, f.timeout)
	if _, ok := err.(errLoadAbandoned); ok {
		return fail(stderr, err)
	}
	if err != nil {
		return f.notRun(l, nil, "", err, stdout, stderr)
	}
	defer target.Close()
	l.adopt(target)
	if err := target.Select(f.operations); err != nil {
		return f.notRun(l, target, "", err, stdout, stderr)
	}
	shard := f.slice(target)
	if err := target.CheckRemote(f.allowRemote); err != nil {
		return f.notRun(l, target, "", err, stdout, stderr)
	}
	warn(stderr, target)
	if f.dryRun {
		return f.printPlan(stdout, stderr, target, shard)
	}
	if err := os.MkdirAll(f.reportDir, 0o755); err != nil {
		return fail(stderr, fmt.Errorf("report directory: %w", err))
	}
	if err := target.Start(ctx, f.reportDir); err != nil {
		return f.notRun(l, target, "", l.cut(err, "starting the target"), stdout, stderr)
	}
	if p, ok := target.Lifecycle.(*targets.Process); ok && !f.quiet {
		fmt.Fprintf(stdout, "idemspec: started the target process, pid %d; its output goes to %s\n", p.Pid(), p.LogPath())
	}
	env, err := harness.New(target, f.settings)
	if err != nil {
		return f.notRun(l, target, "", l.cut(err, "setting up the lanes"), stdout, stderr)
	}
	defer env.Close()
	if err := preflight(ctx, env, f.wait, stdout); err != nil {
		return f.notRun(l, target, env.RunID, l.cut(err, "reaching the target"), stdout, stderr)
	}
	return runSuite(suiteRun{
		lc: l, adoption: &f.adoption, env: env, target: target, reportDir: f.reportDir, labelFilter: f.labelFilter,
		seed: f.seed, strict: f.strict, verbose: f.verbose, quiet: f.quiet, noColor: f.noColor,
		budget: f.settings.Limits.Budget, shard: shard,
		tuning: f.tuning, property: f.property, replay: f.replay,
		banner: fmt.Sprintf("testing %s at %s", target.Name, target.Redact(target.BaseURL.String())),
	}, stdout, stderr)
}

// suiteRun is one run of the embedded suite: `idemspec run` against a
// target, or `idemspec client` against a client command.
type suiteRun struct {
	// lc is the run's lifecycle: its signals, what is left of its time
	// limit, its redactor.
	lc              *lifecycle
	adoption        *adoption // the accepted findings (nil: none)
	env             *harness.Env
	target          *targets.Target
	reportDir       string
	labelFilter     string
	seed            int64
	strict, verbose bool
	quiet, noColor  bool
	client          bool
	workflow        bool // client mode's workflow shape
	banner          string
	budget          int            // the request budget, to report how much was spent
	shard           *reports.Shard // the slice of the suite to run (nil: all)
	// property is how hard the properties search; replay writes the
	// command line that replays a failing sequence (nil in client mode).
	tuning   scenarios.Tuning
	property property.Config
	replay   func(seed int64, c property.Config, operation string) string
}

// runSuite runs the specs the label filter selects and writes the reports.
func runSuite(r suiteRun, stdout, stderr io.Writer) int {
	target, env := r.target, r.env
	if err := os.MkdirAll(r.reportDir, 0o755); err != nil {
		return fail(stderr, fmt.Errorf("report directory: %w", err))
	}
	if err := r.adoption.load(target); err != nil {
		return fail(stderr, err)
	}
	// Quiet: the summary line alone, and errors.
	summary, incomplete := stdout, stdout
	if r.quiet {
		stdout, incomplete = io.Discard, stderr
	}
	logFile, err := outfile.Create(filepath.Join(r.reportDir, "ginkgo.log"))
	if err != nil {
		return fail(stderr, err)
	}
	defer logFile.Close()
	// Ginkgo's log and the progress lines carry failure messages, which
	// may quote what the target said: secrets are cut from both streams.
	log, progress := target.RedactWriter(logFile), target.RedactWriter(stdout)
	defer log.Flush()
	defer progress.Flush()

	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = r.labelFilter
	if t := r.lc.remaining(); t > 0 {
		suiteConfig.Timeout = t // --timeout bounds the command, start-up included
	}
	// The run's one seed: --seed, or Ginkgo's from the clock. Ginkgo
	// orders the checks by it and the report stores it; the checks draw
	// from it (S5b's crash point, the properties' sequences) through
	// scenarios.Options.Seed.
	if r.seed != 0 {
		suiteConfig.RandomSeed = r.seed
	}
	reporterConfig.NoColor = true
	// Ginkgo's reporter writes to formatter.ColorableStdOut; the terminal
	// gets idemspec's one line per check instead, the log gets Ginkgo's.
	var ginkgoOut io.Writer = log
	if r.verbose {
		ginkgoOut = io.MultiWriter(progress, log)
	}
	ginkgoStream := newStackless(ginkgoOut)
	defer ginkgoStream.Flush()
	formatter.ColorableStdOut = ginkgoStream
	r.property.Replay = r.replay
	view := console.Detect(stdout, r.noColor)
	view.Live = view.Live && !r.verbose // Ginkgo's stream would break into the status line
	shown := console.New(progress, view)
	defer shown.Close()
	scenarios.Use(env, scenarios.Options{Observer: shown, Strict: r.strict, Client: r.client, Workflow: r.workflow, Property: r.property, Tuning: r.tuning, Shard: r.shard, Seed: uint64(suiteConfig.RandomSeed)})
	gomega.RegisterFailHandler(ginkgo.Fail)

	fmt.Fprintf(stdout, "idemspec %s: %s through Toxiproxy (run %s, seed %d)\n",
		buildVersion(), r.banner, env.RunID, suiteConfig.RandomSeed)
	if r.workflow {
		fmt.Fprintln(stdout, "oracle: the reference server's database (every resource and event carrying the job's marker, of every tenant)")
	} else {
		fmt.Fprintf(stdout, "oracle: %s (%s)\n", target.Oracle.Kind(), targets.EvidenceOf(target))
	}
	if r.shard != nil {
		fmt.Fprintf(stdout, "shard %s: this run holds its slice of the suite's %d checks\n", r.shard, r.shard.Checks)
	}
	ginkgo.RunSpecs(suiteT{}, "idemspec", suiteConfig, reporterConfig)
	shown.Close()

	out := scenarios.Results()
	r.lc.beforeReports()
	rep := reports.New(out.Run, reports.Meta{
		Version: buildVersion(), RunID: env.RunID, LabelFilter: r.labelFilter, Strict: r.strict,
		Target: reportTarget(target), Redact: target.Redact, Shard: r.shard,
	}, out.Checks)
	rep.Run.Incomplete = namedSignal(r.lc.sig.first, rep.Run.Incomplete)
	rep = r.adoption.judge(rep)
	paths, err := reports.WriteAll(r.reportDir, rep)
	if err != nil {
		return fail(stderr, err)
	}
	// The cleanup runs after an interrupt too, bounded by its timeout; a
	// second interrupt skips it.
	cleanupFailed := runCleanup(r.lc.cleanupCtx, env, stdout, stderr)
	if r.budget > 0 {
		fmt.Fprintf(stdout, "requests sent: %d of a budget of %d\n", env.Sent(), r.budget)
	}
	s := rep.Summary
	if s.Total == s.Skip && rep.Run.Complete && r.shard == nil {
		return fail(stderr, errors.New("no check was run: the label filter selected none (see `idemspec list`)"))
	}
	progress.Flush()
	if !rep.Run.Complete {
		fmt.Fprintf(incomplete, "\nthe run is incomplete (%s): the reports hold the checks that finished\n", rep.Run.Incomplete)
		// The lines above are the checks that finished; what the
		// interruption made of the rest is the report's verdict.
		for _, c := range rep.Checks {
			if strings.HasPrefix(c.Reason, "not run: ") || strings.HasPrefix(c.Reason, "not finished: ") {
				fmt.Fprintf(incomplete, "%-5s %-4s %s\n", c.Verdict, c.ID, c.Reason)
			}
		}
	}
	// A program that sent nothing: how it ended, under the ERRORs that
	// say no request came. (A correct program run again after it
	// finished may well send nothing: no ERROR, nothing to explain.)
	if s.Error > 0 {
		silent := stdout
		if r.quiet {
			silent = stderr
		}
		r.lc.showSilent(silent)
	}
	r.adoption.print(summary, rep)
	fmt.Fprintln(stdout)
	fmt.Fprintf(summary, "%d checks: %d pass, %d fail, %d warn, %d skip, %d error%s\n", s.Total, s.Pass, s.Fail, s.Warn, s.Skip, s.Error, warned(rep))
	fmt.Fprintf(stdout, "reports: %s\n", strings.Join(paths, ", "))
	if code := rep.ExitCode(); code != exitOK || !cleanupFailed {
		return code
	}
	return exitError
}

// warned is what the summary line adds to a run that passed over WARNs,
// so that it never reads as a clean pass: ": passed, with 2 warnings".
func warned(r reports.Report) string {
	if r.Verdict() != "PASS" || r.Summary.Warn+r.Summary.Accepted == 0 {
		return ""
	}
	head, _, _ := strings.Cut(r.Headline(), ":")
	return ": " + head
}

// replay is the command line that runs the property alone from a failing
// sequence's seed, which rapid draws first: one sequence is enough.
// A file with several operations replays the one whose search failed.
func (f *runFlags) replay(seed int64, c property.Config, operation string) string {
	cmd := fmt.Sprintf("idemspec run --target %s --label-filter property --seed %d --sequences 1 --steps %d --crashes %d",
		shellQuote(f.target), seed, c.Steps, max(c.Crashes, 0))
	if operation != "" {
		cmd += " --operation " + shellQuote(operation)
	}
	if c.Counterexample != "" {
		cmd += " --counterexample " + shellQuote(c.Counterexample)
	}
	if c.Budget > 0 {
		cmd += fmt.Sprintf(" --property-budget %d", c.Budget)
	}
	if f.allowRemote {
		cmd += " --allow-remote"
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// suiteT is the GinkgoTestingT RunSpecs needs outside `go test`; the
// verdicts come from the report, so Fail has nothing to do.
type suiteT struct{}

func (suiteT) Fail() {}
