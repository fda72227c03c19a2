package mcptools

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets/mcp"
)

// Group is the catalogue group of the tool audit's checks.
const Group = "mcp"

// Check is one check of the tool audit, whole: its catalogue entry,
// which tools it concerns, what it needs, what it will call, and its
// run, which ends in a pure judge.
type Check struct {
	ID, Title, Clause string
	Level             check.Level
	// Concerns says whether the check judges the tool at all (a
	// read-only tool is not judged as a keyed create); the report lists
	// only the checks that concern a tool.
	Concerns func(a Audited) bool
	// Needs says why the check cannot run on this tool and server ("":
	// it can); the verdict is SKIP with that reason.
	Needs func(a Audited, srv Server) string
	// Calls is how many tool and oracle calls the check makes, at most.
	Calls func(s Settings) int
	// Run drives the tool and judges the trace; nil for a check judged
	// from the declaration alone.
	Run func(ctx context.Context, tr *trial) check.Verdict
	// Judge is the verdict of a check judged from the declaration alone.
	Judge func(a Audited) check.Verdict
}

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

// Entry is the check's catalogue entry.
func (c *Check) Entry() check.Entry {
	return check.Entry{ID: c.ID, Title: c.Title, Level: c.Level, Clause: c.Clause, Group: Group}
}

var catalogue []*Check

func define(c Check) *Check {
	if (c.Run == nil) == (c.Judge == nil) || c.Concerns == nil {
		panic(fmt.Sprintf("check %s: needs Concerns, and a Run or a Judge", c.ID))
	}
	check.Register(c.Entry())
	catalogue = append(catalogue, &c)
	return &c
}

// Checks lists the audit's checks in ID order.
func Checks() []*Check {
	out := slices.Clone(catalogue)
	slices.SortFunc(out, func(a, b *Check) int { return check.CompareID(a.ID, b.ID) })
	return out
}

// mutating is Concerns for the checks of a tool declared idempotent
// and not read-only.
func mutating(a Audited) bool { return a.Tool.Idempotent && !a.Tool.ReadOnly }

// keyed is Concerns for the checks of a tool with a key property.
func keyed(a Audited) bool { return a.Key != "" && !a.Tool.ReadOnly }

// callable is the Needs of every check that calls the tool.
func callable(a Audited, _ Server) string {
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
func restartable(a Audited, srv Server) string {
	if why := callable(a, srv); why != "" {
		return why
	}
	return srv.CannotRestart()
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
