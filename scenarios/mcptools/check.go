package mcptools

import (
	"context"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets/mcp"
)

// Group is the catalogue group of the tool audit's checks.
const Group = "mcp"

// Check is one check of the tool audit: the one shape of every check,
// over its subject (one trial of a tool), what its skip rule reads (the
// tool as tools/list declared it, on its server) and what its plan reads
// (the audit's settings). Its Plan counts the tool and oracle calls it
// makes, at most; a check judged from the declaration alone has a Judge
// and no Run. Concerns says whether the check judges the tool at all (a
// read-only tool is not judged as a keyed create): the report lists only
// the checks that concern a tool.
type Check = check.Check[*trial, Offered, Settings]

// Audited is a tool as the audit sees it: its declaration, its key
// property ("" for none), and whether its arguments can be built (Args
// says why not).
type Audited struct {
	Tool mcp.Tool
	Key  string
	Args string
	Skip string // the target file's reason to leave it uncalled
	// Oracle is the tool the oracle calls ("": none could be chosen).
	Oracle string
}

// Offered is a tool as audited, on the server that offers it: what a
// check's skip rule reads.
type Offered struct {
	Audited
	Server Server
}

// Checks lists the audit's checks in ID order.
func Checks() []*Check { return check.Checks[*trial, Offered, Settings]() }

// Levels is each of the audit's checks' requirement level, by ID: what
// a verdict that finds a tool wanting is (a MUST's FAIL, a SHOULD's
// WARN).
func Levels() map[string]check.Level {
	out := map[string]check.Level{}
	for _, c := range Checks() {
		out[c.ID] = c.Level
	}
	return out
}

// toolRun is a check's Run: f drives the tool in one trial and judges
// its trace.
func toolRun(f func(ctx context.Context, tr *trial) check.Verdict) func(context.Context, *trial) (check.Verdict, error) {
	return func(ctx context.Context, tr *trial) (check.Verdict, error) { return f(ctx, tr), nil }
}

// calls is the plan of a check that makes at most n tool and oracle
// calls.
func calls(n int) check.Plan { return check.Plan{Requests: n, MaxRequests: n} }

// mutating is Concerns for the checks of a tool declared idempotent
// and not read-only.
func mutating(a Offered) bool { return a.Tool.Idempotent && !a.Tool.ReadOnly }

// keyed is Concerns for the checks of a tool with a key property.
func keyed(a Offered) bool { return a.Key != "" && !a.Tool.ReadOnly }

// callable is the Needs of every check that calls the tool.
func callable(a Offered) string {
	switch {
	case a.Skip != "":
		return "the target file leaves this tool uncalled: " + a.Skip
	case a.Args != "":
		return a.Args
	case a.Oracle == "":
		return "no oracle: name a read-only tool that shows the state (oracle: {tool: ...}, or --oracle)"
	}
	return ""
}

// restartable is the Needs of the restart check.
func restartable(a Offered) string {
	if why := callable(a); why != "" {
		return why
	}
	return a.Server.CannotRestart()
}

// Defaults of Settings.
const (
	DefaultBurst        = 8
	DefaultLost         = 2
	DefaultCallTimeout  = 10 * time.Second
	DefaultCheckTimeout = 60 * time.Second
	// DefaultStartTimeout bounds each of the two answers the audit needs
	// before it can plan anything, initialize and tools/list: a server
	// that never gives one gets ERROR verdicts and the reports once it
	// has passed, not the audit's whole --timeout.
	DefaultStartTimeout = 30 * time.Second
)
