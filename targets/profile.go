package targets

import (
	"fmt"
	"sort"
	"strings"
)

// Profile is the convention a target follows: which status answers which
// situation, whether the key is required, and how a replay is marked. A
// target file may override single codes (statuses:) and whether the key
// is required (key.required).
type Profile struct {
	Name       string
	Mismatch   int // same key, another payload
	InFlight   int // same key while the first request is still running
	MissingKey int // a create without the key header, when the key is required
	// KeyRequired says a create without the key is refused. Without it the
	// create runs unprotected and the missing-key checks are skipped.
	KeyRequired bool
	// ReplayHeader marks a replayed answer ("" when the convention has none).
	ReplayHeader string
	// FailedAttempt is what the convention does with a first attempt that
	// failed with a 5xx: FailureReplayed (stored and replayed to retries) or
	// FailureRetried (no record kept; a retry executes afresh). K6 reports
	// what the target did and whether it matches; both are acceptable.
	FailedAttempt string
	// Source says where the table comes from.
	Source string
}

// What a convention does after a failed (5xx) first attempt.
const (
	FailureReplayed = "replayed"
	FailureRetried  = "retried"
)

// profiles are the known conventions, researched from their sources:
//
//   - ietf: draft-ietf-httpapi-idempotency-key-header §2.7: "SHOULD reply
//     with an HTTP 400" for a missing key, "SHOULD reply with a HTTP 422"
//     for a reused key with another payload, "SHOULD reply with an HTTP
//     409" while the original is still being processed; §2.6: a retry
//     gets "the result of the previously completed operation, success or
//     an error". The draft names no replay header.
//   - stripe: docs.stripe.com/api/idempotent_requests and
//     /error-low-level: the key is optional; a reused key with other
//     parameters is an idempotency_error (400); "409 Conflict: the request
//     conflicts with another request (perhaps due to using the same
//     idempotent key)"; 500s are saved and replayed; a replay carries
//     "Idempotent-Replayed: true".
//   - brandur: Brandur Leach, "Implementing Stripe-like Idempotency Keys in
//     Postgres" (github.com/brandur/rocket-rides-atomic api.rb): 400 when
//     the key is missing, 409 for a parameter mismatch, 409 while the key
//     is locked; an unexpected error unlocks the key so the retry runs
//     afresh; no replay header.
//   - powertools: Powertools for AWS Lambda, idempotency utility: a missing
//     key only warns and the function runs (unless
//     raise_on_no_idempotency_key); IdempotencyValidationError (payload
//     mismatch, with payload_validation_jmespath) and
//     IdempotencyAlreadyInProgressError are exceptions that reach the
//     client as 500 unless the handler maps them
//     (powertools-lambda-typescript#3425); an unhandled exception deletes
//     the record, so a retry executes afresh; no replay header.
var profiles = map[string]Profile{
	"ietf": {
		Name: "ietf", Mismatch: 422, InFlight: 409, MissingKey: 400, KeyRequired: true,
		FailedAttempt: FailureReplayed, Source: "draft-ietf-httpapi-idempotency-key-header §2.6, §2.7",
	},
	"stripe": {
		Name: "stripe", Mismatch: 400, InFlight: 409, MissingKey: 400, KeyRequired: false,
		ReplayHeader: "Idempotent-Replayed", FailedAttempt: FailureReplayed, Source: "docs.stripe.com/api/idempotent_requests",
	},
	"brandur": {
		Name: "brandur", Mismatch: 409, InFlight: 409, MissingKey: 400, KeyRequired: true,
		FailedAttempt: FailureRetried, Source: "brandur.org/idempotency-keys (rocket-rides-atomic)",
	},
	"powertools": {
		Name: "powertools", Mismatch: 500, InFlight: 500, MissingKey: 500, KeyRequired: false,
		FailedAttempt: FailureRetried, Source: "docs.powertools.aws.dev idempotency utility",
	},
}

// DefaultProfile is the convention a target follows unless it says.
const DefaultProfile = "ietf"

// LookupProfile finds a profile by name.
func LookupProfile(name string) (Profile, error) {
	p, ok := profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(ProfileNames(), ", "))
	}
	return p, nil
}

// ProfileNames lists the known profiles in order.
func ProfileNames() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
