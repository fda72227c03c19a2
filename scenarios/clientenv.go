package scenarios

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/upstream"
	"github.com/idemspec/idemspec/targets"
)

// ClientEnv is client mode's harness: the reference server behind the
// proxy lanes, and the client command under test.
type ClientEnv struct {
	// Env holds the lanes and the oracle; the client talks to the faulty
	// lane, so the faults a check applies there reach it.
	Env *harness.Env
	// Server is the reference server behind the lanes: its request log
	// is what the checks judge, and it fails creates on request.
	Server upstream.Server
	// MCP is set when the client reaches a server over MCP: the
	// reference MCP server (ClientMCP, clientmcp.go) or a real one
	// through idemspec's relay (TargetMCP, clienttarget_mcp.go); its
	// log is judged in Server's stead.
	MCP MCPSubject
	// Wire is set when the program is judged against the API a target
	// file describes (clientwire.go): it runs unmodified, and the wire
	// is the log, in Server's stead.
	Wire *ClientWire
	// Command runs the client (with `sh -c`).
	Command string
	// Budget, Deadline and AttemptTimeout are handed to the client; the
	// checks hold it to the first two.
	Budget         int
	Deadline       time.Duration
	AttemptTimeout time.Duration
	// Slack is the start-up and scheduling time allowed past Deadline
	// before idemspec kills the client's process group.
	Slack time.Duration
	// StateRoot holds one state directory per operation.
	StateRoot string
	// InStateDir runs the command in its trial's state directory, kept
	// across the trial's restarts: an unmodified program that keeps its
	// state in its working directory resumes.
	InStateDir bool
	// Clients are the client programs running now: an interrupt stops
	// them all at once (Clients.Stop).
	Clients harness.Clients
}

// MCPSubject is what client mode over MCP stands the client in front
// of: it keeps the log the checks judge, says the client's environment,
// and loses answers on a check's request.
type MCPSubject interface {
	server() ClientServer
	adapt(t *trial)
	environ(t *trial) []string
	apply(t *trial, f harness.Fault, why string) (func(), error)
}

// outputExcerpt is how much of a client's stdout and stderr the evidence
// keeps.
const outputExcerpt = 2000

// UseClient sets the client the client specs run. Call it (after Use)
// before RunSpecs, with the label filter "client".
func UseClient(ce *ClientEnv) {
	suite.Lock()
	defer suite.Unlock()
	suite.client = ce
}

func currentClient() *ClientEnv {
	suite.Lock()
	defer suite.Unlock()
	return suite.client
}

// trial is one client check in progress: its operation's inputs, the
// client runs, and where the server's log stood when it began.
type trial struct {
	ce     *ClientEnv
	in     agent.Inputs
	offset int
	lost   map[int]bool // requests (by log index) whose answers were lost
	rec    ClientTrial
	ev     *check.Evidence
	// job is the workflow shape's job (nil: one create); holds are the
	// holds the trial armed at the server, and jobRec what it recorded.
	job    *jobState
	holds  []heldRequest
	jobRec *JobTrial
	// siblings are further operations of the same check (W4's second job).
	siblings []*trial
	// oracleBefore is a real MCP server's oracle as the trial began
	// (TargetMCP).
	oracleBefore []string
	// wt is a wire-mode trial's baseline and aim (nil otherwise).
	wt *wireTrial
}

// preparer is a subject that learns what the program does before a
// trial (TargetMCP's baseline), and settler one that counts a trial's
// effects itself instead of by the trial's marker.
type preparer interface {
	prepare(ctx context.Context, t *trial) error
}

type settler interface {
	settle(ctx context.Context, t *trial) error
}

// trialSpec runs a client or workflow check in its spec: outside client
// mode the check is skipped, as is one the API cannot support (its
// Needs), and the server's request log since the spec began is the
// trial's evidence. op is the operation of the target file the spec
// is for (an unmodified program's faults aim at it).
func trialSpec(c *Check, op string) func(SpecContext) check.Result {
	return func(ctx SpecContext) check.Result {
		ce := currentClient()
		if ce == nil {
			return check.Result{Verdict: check.Skip(c.ID, "client mode only (idemspec client --cmd ...)")}
		}
		if why := c.Skips(ce.Env.Target); why != "" {
			return check.Result{Verdict: check.Skip(c.ID, why)}
		}
		start := time.Now()
		var (
			t    *trial
			v    check.Verdict
			err  error
			late []string
		)
		for attempt := 1; attempt <= trialAttempts; attempt++ {
			t, err = newTrial(ce, c.ID, c.Group == WorkflowGroup)
			if p, ok := ce.MCP.(preparer); ok && err == nil {
				err = p.prepare(ctx, t)
			}
			if err == nil && ce.Wire != nil {
				err = t.baseline(ctx, op)
			}
			var unaimed errNotCalled
			if errors.As(err, &unaimed) {
				return check.Result{Verdict: check.Skip(c.ID, unaimed.Error()), Evidence: *t.ev}
			}
			if err == nil {
				v, err = c.Run(ctx, t)
			}
			ce.Env.ClearFaults()
			ce.server().FailNext(0, 0)
			if !errors.Is(err, errFaultLate) || attempt == trialAttempts || ctx.Err() != nil {
				break
			}
			late = append(late, fmt.Sprintf("attempt %d not judged: %v", attempt, err))
			t.releaseHolds()
		}
		if err != nil {
			v = check.Errored(c.ID, err)
		}
		var ev check.Evidence
		if t != nil {
			t.releaseHolds()
			ev = *t.ev
			ev.Notes = append(late, ev.Notes...)
			switch {
			case t.wt != nil:
				ev.Tables = append(ev.Tables, t.wireTables()...)
			case t.jobRec != nil:
				ev.Tables = append(ev.Tables, t.jobRec.table())
			default:
				ev.Tables = append(ev.Tables, t.logTable())
			}
		}
		ev.Elapsed = time.Since(start)
		return check.Result{Verdict: v, Evidence: ev}
	}
}

func newTrial(ce *ClientEnv, scope string, workflow bool) (*trial, error) {
	e := ce.Env
	marker := e.NewMarker(scope)
	var body []byte
	if ce.Wire == nil { // an unmodified program brings its own payloads
		var err error
		if body, err = e.Body(marker, "100"); err != nil {
			return nil, err
		}
	}
	state := filepath.Join(ce.StateRoot, marker)
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, fmt.Errorf("client state directory: %w", err)
	}
	t := &trial{
		ce: ce, offset: len(ce.server().Requests()), lost: map[int]bool{}, ev: &check.Evidence{},
		in: agent.Inputs{
			ServerURL: "http://" + e.Faulty.Addr, CreatePath: e.Target.Create.Path,
			LookupPath: strings.ReplaceAll(e.Target.LookupPath, "{{.Key}}", "{key}"), KeyIn: e.Target.Key.In, KeyName: e.Target.Key.Name, KeyHeader: keyHeader(e.Target.Key),
			Payload: string(body), Marker: marker, StateDir: state, RunID: e.RunID,
			AttemptBudget: ce.Budget, Deadline: ce.Deadline, AttemptTimeout: ce.AttemptTimeout,
		},
		rec: ClientTrial{Budget: ce.Budget, Deadline: ce.Deadline, Slack: ce.Slack},
	}
	if ce.Wire != nil {
		t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("client command: %s, unmodified (budget %d, deadline %v), in %s, handed %s in %s",
			ce.Command, ce.Budget, ce.Deadline, state, ce.Wire.Interposer.URL(), strings.Join(ce.Wire.BaseURLEnv, ", ")))
		if workflow {
			t.job = &jobState{} // its steps come from the baseline
		}
		return t, nil
	}
	t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("client command: %s (budget %d, deadline %v, attempt timeout %v, marker %s)",
		ce.Command, ce.Budget, ce.Deadline, ce.AttemptTimeout, marker))
	if ce.MCP != nil {
		ce.MCP.adapt(t)
	}
	if workflow {
		steps, err := jobSteps(e, marker)
		if err != nil {
			return nil, err
		}
		t.job = &jobState{steps: steps}
	}
	return t, nil
}

// releaseHolds disarms the holds nothing reached, and lets go of any
// request still held.
func (t *trial) releaseHolds() {
	for _, h := range t.holds {
		h.Release(true)
	}
	for _, u := range t.siblings {
		u.releaseHolds()
	}
}

// environ is the program's environment: one create's (over HTTP or
// MCP), or a job's.
func (t *trial) environ() []string {
	if t.ce.Wire != nil {
		return t.ce.Wire.environ(t.in.StateDir)
	}
	if t.ce.MCP != nil {
		return t.ce.MCP.environ(t)
	}
	if t.job != nil {
		return agent.Job{Inputs: t.in, Steps: t.job.steps}.Environ()
	}
	return t.in.Environ()
}

// keyHeader is the contract's IDEMSPEC_KEY_HEADER: the key's header, or
// "" when the key goes elsewhere.
func keyHeader(k targets.Key) string {
	if k.InHeader() {
		return k.Name
	}
	return ""
}

// start runs the client command once for the trial's operation, unless
// the run is being cut short (ctx ended).
func (t *trial) start(ctx context.Context) (*harness.ClientProcess, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("the client was not started: %w", context.Cause(ctx))
	}
	if t.ce.Wire != nil || t.ce.InStateDir {
		// In its working directory, kept across the trial's restarts.
		return t.ce.Clients.StartIn(t.in.StateDir, t.ce.Command, t.environ())
	}
	return t.ce.Clients.Start(t.ce.Command, t.environ())
}

// finish waits for a client run (killing it at the deadline plus slack,
// or stopping it at once when ctx ends) and keeps its exit and an
// excerpt of its output.
func (t *trial) finish(ctx context.Context, p *harness.ClientProcess, name string) check.ClientExit {
	x := p.Wait(ctx, t.ce.Deadline+t.ce.Slack)
	if x.State == "" && x.Killed == "" {
		if s, ok := t.exitCodes()[x.Code]; ok {
			x.State, x.Problem = s, ""
		}
	}
	t.rec.Exits = append(t.rec.Exits, x)
	stdout, stderr := p.Output(outputExcerpt)
	note := fmt.Sprintf("%s: exit %d after %v, state %q", name, x.Code, x.Elapsed.Round(time.Millisecond), x.State)
	if x.Killed != "" {
		note += ", killed: " + x.Killed
	}
	if x.Problem != "" {
		note += ", " + x.Problem
	}
	t.ev.Notes = append(t.ev.Notes, note, name+" stdout:\n"+stdout, name+" stderr:\n"+stderr)
	return x
}

// exitCodes are what an unmodified program's exit codes mean
// (--exit-codes), over HTTP or MCP; nil for a program on the contract.
func (t *trial) exitCodes() map[int]string {
	if t.ce.Wire != nil {
		return t.ce.Wire.ExitCodes
	}
	if m, ok := t.ce.MCP.(*TargetMCP); ok {
		return m.ExitCodes
	}
	return nil
}

// awaitCreate waits until the server has received a create for this
// trial (an event, not a timer), or the client exits, or the limit.
func (t *trial) awaitCreate(ctx context.Context, p *harness.ClientProcess) (int, error) {
	if t.ce.Wire != nil {
		return t.ce.Wire.awaitHeld(ctx, t, p)
	}
	limit := time.NewTimer(t.ce.Deadline + t.ce.Slack)
	defer limit.Stop()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		log := t.ce.server().Requests()
		for i := t.offset; i < len(log); i++ {
			if log[i].Path == t.in.CreatePath {
				return i, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-p.Exited():
			return 0, fmt.Errorf("the client exited before any create reached the server")
		case <-limit.C:
			return 0, fmt.Errorf("no create reached the server within %v", t.ce.Deadline+t.ce.Slack)
		case <-tick.C:
		}
	}
}

// applyFault puts f on the client's lane until the returned remove.
func (t *trial) applyFault(f harness.Fault, why string) (func(), error) {
	if t.ce.Wire != nil {
		return t.ce.Wire.holdFirst(t, why)
	}
	if t.ce.MCP != nil {
		return t.ce.MCP.apply(t, f, why)
	}
	remove, err := t.ce.Env.Faulty.Apply(f)
	if err != nil {
		return nil, err
	}
	DeferCleanup(remove)
	t.ev.Faults = append(t.ev.Faults, f.Name()+" "+why)
	return remove, nil
}

// judge reads the server's log and the oracle into the trial.
func (t *trial) judge(ctx context.Context) (ClientTrial, error) {
	if t.wt != nil {
		return t.judgeWire(ctx)
	}
	log := t.ce.requests()[t.offset:]
	var tenants []string
	lookups := strings.ReplaceAll(t.in.LookupPath, "{key}", "*")
	for i, a := range log {
		kind := "create"
		switch looked, _ := path.Match(lookups, a.Path); {
		case a.Path == t.in.CreatePath && a.Method == http.MethodPost:
			if !slices.Contains(tenants, a.Tenant) {
				tenants = append(tenants, a.Tenant)
			}
		case looked && a.Method == http.MethodGet:
			kind = "lookup"
		default:
			continue // not part of the one-create contract (a read of the resource, say)
		}
		t.rec.Requests = append(t.rec.Requests, check.ServerRequest{
			Seq: i + 1, Kind: kind, Key: a.Key, Tenant: upstream.TenantName(a.Tenant), Hash: a.Hash, Status: a.Status, At: a.At, Lost: t.lost[t.offset+i],
		})
	}
	if s, ok := t.ce.MCP.(settler); ok {
		return t.rec, s.settle(ctx, t)
	}
	n, err := t.census(ctx, tenants)
	if err != nil {
		return t.rec, fmt.Errorf("oracle: %w", err)
	}
	t.rec.Resources = n
	return t.rec, nil
}

// census counts the operation's resources in every tenant the server
// filed its creates under: a client that sends a token (as most SDKs
// do) creates in that token's tenant, which a read without it cannot
// see. Each tenant's reading is evidence, named by the tenant; with no
// create at all, the public tenant's reading says so.
func (t *trial) census(ctx context.Context, tenants []string) (int, error) {
	if len(tenants) == 0 {
		tenants = []string{""}
	}
	total := 0
	for _, tn := range tenants {
		as := targets.AsTenant(ctx, targets.Tenant{Name: upstream.TenantName(tn), Headers: upstream.TenantCredentials(tn)})
		obs, err := t.ce.Env.Observe(as, t.in.Marker)
		if err != nil {
			return 0, fmt.Errorf("tenant %s: %w", upstream.TenantName(tn), err)
		}
		total += obs.Count
		t.ev.Readings = append(t.ev.Readings, t.ce.Env.Reading(t.in.Marker, "after the client, in tenant "+upstream.TenantName(tn), obs))
	}
	return total, nil
}

// logTable is the server's log for the trial, as evidence.
func (t *trial) logTable() check.Table {
	title := "the reference server's log"
	if _, real := t.ce.MCP.(*TargetMCP); real {
		title = "the tool calls idemspec's relay carried (the operation's and the reads)"
	}
	tb := check.Table{Title: title, Columns: []string{"#", "request", "key", "tenant", "payload sha256", "status", "answer"}}
	for _, r := range t.rec.Requests {
		answer := "delivered"
		if r.Lost {
			answer = "lost by idemspec"
		}
		hash := r.Hash
		if len(hash) > 12 {
			hash = hash[:12]
		}
		tb.Rows = append(tb.Rows, []string{fmt.Sprint(r.Seq), r.Kind, r.Key, r.Tenant, hash, fmt.Sprint(r.Status), answer})
	}
	return tb
}
