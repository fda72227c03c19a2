package check

import "time"

// The records of a client trial (client mode): what the reference server
// saw, and how the client command ended. The harness records them; the
// client checks judge them.

// ServerRequest is one request in the reference server's log.
type ServerRequest struct {
	Seq  int    `json:"seq"`
	Kind string `json:"kind"` // "create" or "lookup"
	Key  string `json:"key"`
	// Tenant names the tenant the server filed the request under:
	// "public", or the digest of its token (never the token itself).
	Tenant string    `json:"tenant,omitempty"`
	Hash   string    `json:"payload_sha256,omitempty"`
	Status int       `json:"status"`
	At     time.Time `json:"at"`
	// Lost: the harness made sure the client never got this answer.
	Lost bool `json:"lost,omitempty"`
}

// ClientExit is how one run of the client command ended.
type ClientExit struct {
	Code       int    `json:"exit_code"`
	Killed     string `json:"killed,omitempty"` // why idemspec killed it, if it did
	State      string `json:"state,omitempty"`  // from the result file or the last stdout line: a contract end state (harness/retry/state)
	ResourceID string `json:"resource_id,omitempty"`
	// IDs are a job's ids, by step, from its result (the workflow shape).
	IDs     map[string]string `json:"ids,omitempty"`
	Problem string            `json:"problem,omitempty"` // why the last line was not a result
	Elapsed time.Duration     `json:"elapsed_ns"`
}
