package state

// State is where an operation stands. The retrying client journals it on
// every change, so a restarted process knows whether a send may already
// have applied.
type State string

const (
	// Pending: the key is journaled and nothing has been sent yet.
	Pending State = "PENDING"
	// Submitting: an attempt is on the wire (journaled before the send).
	// A process that finds its operation here crashed mid-send: the
	// attempt may have applied.
	Submitting State = "SUBMITTING"
	// Succeeded: a 2xx answer, or reconciliation found the resource.
	Succeeded State = "SUCCEEDED"
	// UnknownResult: an attempt may have applied and the client could
	// not find out. Resuming reconciles before it resubmits.
	UnknownResult State = "UNKNOWN_RESULT"
	// FailedRetryable: no attempt can have applied and the budget or the
	// deadline ran out; resuming may try again.
	FailedRetryable State = "FAILED_RETRYABLE"
	// FailedFinal: the server refused the request (a 4xx other than 408,
	// 409, 425 or 429) and no attempt can have applied.
	FailedFinal State = "FAILED_FINAL"
	// Failed is the client-mode contract's one failure: a client under
	// test prints it where the retrying client journals FailedFinal or
	// FailedRetryable. The contract's other end states are Succeeded and
	// UnknownResult.
	Failed State = "FAILED"
)

// Done reports a state no resumption changes: the operation succeeded
// or was refused for good.
func (s State) Done() bool { return s == Succeeded || s == FailedFinal }
