package agent

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The environment a client command is given (docs/CLIENT-CONTRACT.md).
const (
	EnvServerURL      = "IDEMSPEC_SERVER_URL"         // base URL, through the fault proxy
	EnvCreatePath     = "IDEMSPEC_CREATE_PATH"        // POST here to create
	EnvLookupPath     = "IDEMSPEC_LOOKUP_PATH"        // GET here, {key} replaced, to reconcile
	EnvKeyIn          = "IDEMSPEC_KEY_IN"             // where the key goes: header, body or query
	EnvKeyName        = "IDEMSPEC_KEY_NAME"           // the header, the body field (dotted JSON path) or the query parameter
	EnvKeyHeader      = "IDEMSPEC_KEY_HEADER"         // the key's header, when it goes in one
	EnvPayload        = "IDEMSPEC_PAYLOAD"            // the exact create body (JSON, holds the marker)
	EnvMarker         = "IDEMSPEC_MARKER"             // unique to this operation
	EnvStateDir       = "IDEMSPEC_STATE_DIR"          // where the client keeps what must survive a restart
	EnvRunID          = "IDEMSPEC_RUN_ID"             // the idemspec run
	EnvAttemptBudget  = "IDEMSPEC_ATTEMPT_BUDGET"     // most create requests per run
	EnvDeadline       = "IDEMSPEC_DEADLINE_MS"        // the client must exit within this
	EnvAttemptTimeout = "IDEMSPEC_ATTEMPT_TIMEOUT_MS" // a sensible bound on one request
	// EnvResultFile is a path, new for each run of the program, where
	// it may write its result instead of stdout's last line; a file
	// written wins.
	EnvResultFile = "IDEMSPEC_RESULT_FILE"
)

// KeyInHeader is IDEMSPEC_KEY_IN for a key in a header (the others are
// "body" and "query").
const KeyInHeader = "header"

// Result is the line the contract asks for on stdout's last line. State
// is one of the contract's end states: state.Succeeded,
// state.UnknownResult or state.Failed (harness/retry/state).
type Result struct {
	State      string `json:"state"`
	ResourceID string `json:"resource_id,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Sent       int    `json:"sent"`
	Lookups    int    `json:"lookups"`
}

// Inputs are what idemspec hands a client for one operation.
type Inputs struct {
	ServerURL, CreatePath, LookupPath string
	// KeyIn is where the key goes (header, body or query) and KeyName
	// the header, the body field's dotted JSON path or the parameter;
	// KeyHeader is KeyName when the key goes in a header, else "".
	KeyIn, KeyName, KeyHeader        string
	Payload, Marker, StateDir, RunID string
	AttemptBudget                    int
	Deadline, AttemptTimeout         time.Duration
}

// Environ is in the form exec.Cmd.Env takes.
func (in Inputs) Environ() []string {
	return []string{
		EnvServerURL + "=" + in.ServerURL,
		EnvCreatePath + "=" + in.CreatePath,
		EnvLookupPath + "=" + in.LookupPath,
		EnvKeyIn + "=" + in.KeyIn,
		EnvKeyName + "=" + in.KeyName,
		EnvKeyHeader + "=" + in.KeyHeader,
		EnvPayload + "=" + in.Payload,
		EnvMarker + "=" + in.Marker,
		EnvStateDir + "=" + in.StateDir,
		EnvRunID + "=" + in.RunID,
		EnvAttemptBudget + "=" + strconv.Itoa(in.AttemptBudget),
		EnvDeadline + "=" + strconv.FormatInt(in.Deadline.Milliseconds(), 10),
		EnvAttemptTimeout + "=" + strconv.FormatInt(in.AttemptTimeout.Milliseconds(), 10),
	}
}

// FromEnv reads the inputs from the process environment.
func FromEnv() (Inputs, error) {
	in := Inputs{
		ServerURL: os.Getenv(EnvServerURL), CreatePath: os.Getenv(EnvCreatePath), LookupPath: os.Getenv(EnvLookupPath),
		KeyIn: os.Getenv(EnvKeyIn), KeyName: os.Getenv(EnvKeyName), KeyHeader: os.Getenv(EnvKeyHeader),
		Payload: os.Getenv(EnvPayload), Marker: os.Getenv(EnvMarker), StateDir: os.Getenv(EnvStateDir), RunID: os.Getenv(EnvRunID),
	}
	// An idemspec that predates IDEMSPEC_KEY_IN names only a header.
	if in.KeyIn == "" {
		in.KeyIn, in.KeyName = KeyInHeader, in.KeyHeader
	}
	var missing []string
	for name, v := range map[string]string{EnvServerURL: in.ServerURL, EnvCreatePath: in.CreatePath, EnvLookupPath: in.LookupPath,
		EnvKeyName: in.KeyName, EnvPayload: in.Payload, EnvMarker: in.Marker, EnvStateDir: in.StateDir} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return in, fmt.Errorf("not run by `idemspec client`: %s not set", strings.Join(missing, ", "))
	}
	return in, in.readBounds()
}
