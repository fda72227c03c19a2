package mcprelay

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Call is one tools/call the agent made, as the relay saw it.
type Call struct {
	At   time.Time
	Tool string
	// ReadOnly: the server declares the tool read-only (readOnlyHint).
	ReadOnly bool
	// Key is the value of the tool's key argument ("" when it has none
	// or the call left it out); Hash the sha256 of the other arguments.
	Key, Hash string
	// Arguments are the call's arguments as sent.
	Arguments json.RawMessage
	// Answered: an answer came (from the server, or injected); Err is
	// why not.
	Answered bool
	Err      string
	// IsError, Retryable and Content are the answer: a tool error (and
	// whether it said it may be retried, in its structured content, or,
	// injected, whether the relay meant it so), and what it carried.
	IsError, Retryable bool
	Content            string
	// Injected: the relay answered itself, the server never saw the
	// call. Dropped: the agent never got the answer.
	Injected, Dropped bool
}

// Status is the call's outcome in HTTP's terms, as client mode's log
// keeps it: 200 for an answer, 503 for a retryable tool error, 422 for
// a final one, 0 for no answer.
func (c Call) Status() int {
	switch {
	case !c.Answered:
		return 0
	case c.IsError && c.Retryable:
		return 503
	case c.IsError:
		return 422
	}
	return 200
}

// keyAndHash splits a call's arguments into the key argument's value
// and the digest of the rest, canonical (sorted members, so a client
// that reorders its arguments sends the same).
func keyAndHash(raw json.RawMessage, keyArg string) (key, hash string) {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		sum := sha256.Sum256(raw)
		return "", hex.EncodeToString(sum[:])
	}
	if v, ok := args[keyArg]; ok && keyArg != "" {
		key = fmt.Sprint(v)
		delete(args, keyArg)
	}
	canon, _ := json.Marshal(args) // maps marshal with sorted keys
	sum := sha256.Sum256(canon)
	return key, hex.EncodeToString(sum[:])
}
