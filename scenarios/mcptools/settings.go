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
	// CallTimeout bounds one call; CheckTimeout one check on one tool.
	CallTimeout, CheckTimeout time.Duration
}

func (s Settings) burst() int {
	if s.Burst > 0 {
		return s.Burst
	}
	return DefaultBurst
}

func (s Settings) lost() int {
	if s.Lost > 0 {
		return s.Lost
	}
	return DefaultLost
}

func (s Settings) callTimeout() time.Duration {
	if s.CallTimeout > 0 {
		return s.CallTimeout
	}
	return DefaultCallTimeout
}

func (s Settings) checkTimeout() time.Duration {
	if s.CheckTimeout > 0 {
		return s.CheckTimeout
	}
	return DefaultCheckTimeout
}
