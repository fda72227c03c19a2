package fakes

import (
	"fmt"
	"sort"
	"strings"
)

// bug names the one defect a mutant adds to the reference server. The
// handler tests for it at the single place where the mutant departs from
// the reference, so each mutant reads as "the reference, except here".
type bug int

const (
	noBug bug = iota
	bugNoDedup
	bugCheckThenInsert
	bugIgnorePayload
	bugMemoryRecords
	bugSplitCommit
	bugStuckInFlight
	bugKeyOptional
	bugMissingKey422
	bugUUIDOnly
	bugFirstOfDuplicates
	bugQueryScopedKeys
	bugReplayDropsLocation
	bugInFlight429
	bugCommitBeforeFail
	bugGlobalKeys
	bugPerProcessLock
	bugMismatch417
	bugReplay200Reduced
	bugRecordAfterAnswer
)

// Mutant is the reference server plus exactly one named bug, with the
// checks that must catch it. The detection matrix holds the harness to
// Catches: every listed check fails, every other check passes. The
// properties catch every mutant by themselves: P1 each one that breaks a
// MUST check, P2 each one that breaks only SHOULD checks (P2 is skipped
// when P1 fails); a mutant right on one instance is caught where Multi
// says.
type Mutant struct {
	Name    string
	Bug     string   // what is wrong, in one sentence
	Catches []string // check IDs that must fail against this mutant
	// MayCatch lists checks that may also fail, with the reason in Why;
	// the matrix accepts either verdict for these and no others.
	MayCatch []string
	Why      string
	// Multi lists the checks that must fail when two instances of the
	// mutant share one database (a single instance fails only Catches).
	Multi []string
	bug   bug
}

// Reference is the name of the correct server.
const Reference = "reference"

var mutants = []Mutant{
	{
		Name: "per-process-lock",
		Bug:  "deduplicates under an in-process mutex with no unique constraint: right on one instance, two instances sharing a database race",
		// One instance serializes every create, so it passes; the
		// multi-instance test runs two and S4 must fail there.
		Catches: []string{},
		Multi:   []string{"S4", "P1"},
		bug:     bugPerProcessLock,
	},
	{
		Name:    "global-keys",
		Bug:     "does not scope keys by tenant: a second tenant reusing a key gets the first tenant's stored answer",
		Catches: []string{"T1", "P1"},
		bug:     bugGlobalKeys,
	},
	{
		Name: "nodedup",
		Bug:  "ignores the idempotency key: every request executes",
		// S6: it keeps no key record, so after a lost answer the client's
		// look-up finds nothing and its same-key resubmission executes
		// again: two resources.
		Catches: []string{"S1", "S2", "S3", "S4", "S5a", "S6", "K1", "K2a", "K3", "K4", "K6", "P1"},
		bug:     bugNoDedup,
	},
	{
		Name:    "check-then-insert",
		Bug:     "looks the key up, then inserts without a unique constraint: concurrent requests race through the gap",
		Catches: []string{"S4", "P1"},
		bug:     bugCheckThenInsert,
	},
	{
		Name:    "ignore-payload",
		Bug:     "never compares the payload hash: a reused key with another payload replays the first answer",
		Catches: []string{"S3", "K3", "P1"},
		bug:     bugIgnorePayload,
	},
	{
		Name:    "memory-records",
		Bug:     "keeps the idempotency records in memory (resources in SQLite): a restart forgets every key",
		Catches: []string{"S5a", "P1"},
		// The crash point of the built-in fake is inside the work, before
		// anything is written, so nothing is lost; a managed process is
		// killed at a drawn delay that may fall after its commit, and then
		// the retry creates a second resource.
		MayCatch: []string{"S5b"},
		Why:      "S5b fails too when the crash falls after the resource was committed (a managed process is killed at a drawn delay)",
		bug:      bugMemoryRecords,
	},
	{
		Name:    "split-commit",
		Bug:     "commits the resource, then completes the key record in a second transaction: a crash between the two leaves a resource behind an in-flight key",
		Catches: []string{"S5b", "P1"},
		bug:     bugSplitCommit,
	},
	{
		Name:    "stuck-inflight",
		Bug:     "never expires an in-flight record: after a crash mid-request the key answers 409 forever",
		Catches: []string{"S5b", "P1"},
		bug:     bugStuckInFlight,
	},
	{
		Name:    "key-optional",
		Bug:     "runs a create without the key, unprotected, although the key is declared required",
		Catches: []string{"K1", "P1"},
		bug:     bugKeyOptional,
	},
	{
		Name:    "missing-key-422",
		Bug:     "refuses a create without the key, but with 422 instead of the draft's 400",
		Catches: []string{"K1a", "P2"},
		bug:     bugMissingKey422,
	},
	{
		Name:    "uuid-only-500",
		Bug:     "parses every key as a UUID and answers 500 when that fails, instead of validating it",
		Catches: []string{"K2", "P1"},
		bug:     bugUUIDOnly,
	},
	{
		Name:    "first-of-duplicate-keys",
		Bug:     "takes the first of two Idempotency-Key headers instead of refusing the request",
		Catches: []string{"K2a", "P2"},
		bug:     bugFirstOfDuplicates,
	},
	{
		Name:    "query-scoped-keys",
		Bug:     "scopes the key by the request's query string: the same key with another query parameter executes again",
		Catches: []string{"K3", "P1"},
		bug:     bugQueryScopedKeys,
	},
	{
		Name:    "replay-drops-location",
		Bug:     "stores the status and body for replay but not the Location header",
		Catches: []string{"K4", "P2"},
		bug:     bugReplayDropsLocation,
	},
	{
		Name:    "in-flight-429",
		Bug:     "answers a duplicate of a request still in flight with 429 Too Many Requests instead of 409",
		Catches: []string{"K5", "P2"},
		bug:     bugInFlight429,
	},
	{
		Name:    "commit-before-fail",
		Bug:     "commits the work before the step that fails, then answers the failure: the failed attempt leaves a resource behind",
		Catches: []string{"K6", "P1"},
		bug:     bugCommitBeforeFail,
	},
	{
		Name: "mismatch-417",
		Bug:  "refuses a reused key with another payload, but with 417 Expectation Failed instead of the profile's 422",
		// The refusal holds (S3); only its status is off, a SHOULD.
		Catches: []string{"S3a", "P2"},
		bug:     bugMismatch417,
	},
	{
		Name: "replay-200-reduced",
		Bug:  "replays the original resource's id with status 200 and a reduced body instead of the original 201 answer",
		// The same resource, unfaithfully replayed: replay fidelity is
		// K4's alone, so S2, S3 and S5a pass.
		Catches: []string{"K4", "P2"},
		bug:     bugReplay200Reduced,
	},
	{
		Name: "record-after-answer",
		Bug:  "answers first and completes the key's record afterwards, in the background (a hook on the send): a restart right after an answer leaves the key in flight, and the retry is refused, then executed again",
		// Live requests see the answer from memory, so only a restart
		// aimed right after an answer shows the bug.
		Catches: []string{"S5a", "P1"},
		bug:     bugRecordAfterAnswer,
	},
}

// Mutants lists every mutant, sorted by name.
func Mutants() []Mutant {
	out := append([]Mutant(nil), mutants...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupMutant finds a mutant by name; "reference" and "" are the correct
// server, which has no bug.
func LookupMutant(name string) (Mutant, error) {
	if name == "" || name == Reference {
		return Mutant{Name: Reference}, nil
	}
	for _, m := range mutants {
		if m.Name == name {
			return m, nil
		}
	}
	names := []string{Reference}
	for _, m := range Mutants() {
		names = append(names, m.Name)
	}
	return Mutant{}, fmt.Errorf("unknown fake %q (known: %s)", name, strings.Join(names, ", "))
}
