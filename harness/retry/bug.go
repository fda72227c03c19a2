package retry

// bug is a deliberate defect. Only this package's tests set it (see
// export_test.go), to prove that the property tests catch a broken
// client, as the fakes' mutants prove the server checks. The zero value
// is the correct client; the run loop tests for a bug at the single place
// the broken client departs from the correct one.
type bug int

const (
	noBug bug = iota
	// bugUnbounded ignores MaxAttempts.
	bugUnbounded
	// bugFreshKey sends every attempt with a new key.
	bugFreshKey
	// bugNoDeadline cuts neither request timeouts nor pauses at the
	// deadline.
	bugNoDeadline
	// bugTimeoutIsFinal takes a missing answer for a refusal.
	bugTimeoutIsFinal
	// bugBlindResubmit resubmits after an unknown outcome without
	// reconciling first.
	bugBlindResubmit
	// bugLateJournal journals an attempt only after sending it.
	bugLateJournal
)
