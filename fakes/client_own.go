package fakes

import (
	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/harness/agent"
)

// ReferenceAPI is what the twins of the reference client and its
// mutants (`idemspec agent --base-url-env NAME`) know of the API
// `idemspec serve` serves, as an SDK written for it would
// (examples/targets/process-reference.yaml describes the same API to
// idemspec): the create, its look-up by key, the key's header, and one
// business payload with no marker of idemspec's. Over MCP, the record
// tools of `idemspec serve --mcp`.
var ReferenceAPI = agent.OwnAPI{
	CreatePath: "/resources",
	LookupPath: "/idempotency-keys/{key}",
	KeyHeader:  DefaultKeyHeader,
	Payload:    `{"name":"invoice 1042","amount":4200}`,
	CreateTool: mcpserver.ToolCreateRecord,
	FindTool:   mcpserver.ToolFindRecord,
	KeyArg:     mcpserver.KeyArgument,
	Arguments:  `{"marker":"invoice 1042","amount":4200}`,
	Operation:  "create-invoice-1042",
}
