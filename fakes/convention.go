package fakes

import "net/http"

// Convention is how a fake answers the situations that conventions
// disagree on (see targets.Profile): the reference follows the IETF
// draft, and `fake:reference?profile=NAME` follows another, so the
// harness's profiles are proven against a server that really uses them.
type Convention struct {
	Mismatch   int // same key, another payload
	InFlight   int // same key while the first request runs
	MissingKey int // no key, when the key is required
	// KeyOptional runs a create without a key, unprotected.
	KeyOptional bool
	// ReplayHeader marks a replayed answer ("" for none).
	ReplayHeader string
	// StoreFailures keeps a failed (5xx) attempt's answer and replays it;
	// otherwise the failed attempt's claim is released and a retry runs
	// afresh.
	StoreFailures bool
}

// IETF is the reference's convention: draft-ietf-httpapi-idempotency-key-
// header §2.7 codes, failures replayed as "the result of the previously
// completed operation, success or an error" (§2.6), and replays marked
// as Stripe marks them.
var IETF = Convention{
	Mismatch: http.StatusUnprocessableEntity, InFlight: http.StatusConflict, MissingKey: http.StatusBadRequest,
	ReplayHeader: ReplayHeader, StoreFailures: true,
}
