package mcptools

import (
	"time"

	"github.com/idemspec/idemspec/targets/mcp"
)

// Settings is how the audit calls a server's tools.
type Settings struct {
	Oracle mcp.Oracle
	Tools  map[string]mcp.ToolSettings
	// Burst is how many identical calls a burst makes at once; Lost how
	// many retries lose their answer.
	Burst, Lost int
	// CallTimeout bounds one call; CheckTimeout one check on one tool;
	// StartTimeout each of initialize and tools/list.
	CallTimeout, CheckTimeout, StartTimeout time.Duration
	// Sequences, Steps and PropertyTime bound M9's search: how many
	// random sequences, of at most how many steps, within what time
	// (shrinking included).
	Sequences, Steps int
	PropertyTime     time.Duration
	// Seed is rapid's base seed for M9 on every tool (0: a random one per
	// search); the same seed draws the same sequences again. Replay, if
	// set, is the command line that runs the audit again from a seed,
	// for M9's notes.
	Seed   uint64
	Replay func(seed uint64) string
}

func (s Settings) burst() int                  { return orDefault(s.Burst, DefaultBurst) }
func (s Settings) lost() int                   { return orDefault(s.Lost, DefaultLost) }
func (s Settings) callTimeout() time.Duration  { return orDefault(s.CallTimeout, DefaultCallTimeout) }
func (s Settings) checkTimeout() time.Duration { return orDefault(s.CheckTimeout, DefaultCheckTimeout) }
func (s Settings) startTimeout() time.Duration { return orDefault(s.StartTimeout, DefaultStartTimeout) }
func (s Settings) sequences() int              { return orDefault(s.Sequences, DefaultSequences) }
func (s Settings) steps() int                  { return orDefault(s.Steps, DefaultSteps) }
func (s Settings) propertyTime() time.Duration { return orDefault(s.PropertyTime, DefaultPropertyTime) }

// orDefault is v when set (positive), else d.
func orDefault[T int | time.Duration](v, d T) T {
	if v > 0 {
		return v
	}
	return d
}
