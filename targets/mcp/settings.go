package mcp

// Oracle is the read-only tool call that shows the server's state: the
// audit counts a trial's marker in its answer.
type Oracle struct {
	Tool string         `yaml:"tool"`
	Args map[string]any `yaml:"args"`
}

// ToolSettings is what the target file says of one tool.
type ToolSettings struct {
	// Args is a Go template of the arguments, a JSON object, with
	// {{.Marker}} (unique to a trial, so the oracle can count its effects)
	// and {{.Key}} (a fresh idempotency key); "" generates them from the
	// input schema.
	Args string `yaml:"args"`
	// Key names the input property that carries an idempotency key
	// ("": one named like idempotency_key or request_id, if any).
	Key string `yaml:"key"`
	// Skip leaves the tool out of every call, with this reason (a tool
	// that sends mail, say); it is still in the per-tool table.
	Skip string `yaml:"skip"`
}
