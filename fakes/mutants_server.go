package fakes

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/idemspec/idemspec/fakes/mutant"
)

// The server's mutants: the reference server with one step of s.steps
// (or one code of its convention) replaced or wrapped. The larger ones
// live in files of their own: check_then_insert.go, split_commit.go,
// record_after_answer.go.
var serverMutants = asMutantsOf(OfServer, []mutant.Mutant{
	{
		Name: "per-process-lock",
		Bug:  "deduplicates under an in-process mutex with no unique constraint: right on one instance, two instances sharing a database race",
		// One instance serializes every create, so it passes; the
		// multi-instance test runs two and S4 must fail there.
		Catches: mutant.Checks(),
		Multi:   []string{"S4", "P1"},
		Change:  perProcessLock,
	},
	{
		Name:    "global-keys",
		Bug:     "does not scope keys by tenant: a second tenant reusing a key gets the first tenant's stored answer",
		Catches: mutant.Checks("T1", "P1"),
		Change: func(s *Server) {
			s.steps.tenant = func(*http.Request) string { return public }
		},
	},
	{
		Name: "nodedup",
		Bug:  "ignores the idempotency key: every request executes",
		// S6: it keeps no key record, so after a lost answer the client's
		// look-up finds nothing and its same-key resubmission executes
		// again: two resources. Nothing is refused or replayed, so the
		// checks of refusals' statuses and of replays have nothing to
		// judge.
		Catches: mutant.Checks("S1", "S2", "S3", "S4", "S5a", "S6", "K1", "K2a", "K3", "K6", "P1"),
		Skips:   []string{"S3a", "K1a", "K4", "K5"},
		Change:  func(s *Server) { s.steps.create = s.unprotected },
	},
	{
		Name:    "check-then-insert",
		Bug:     "looks the key up, then inserts without a unique constraint: concurrent requests race through the gap",
		Catches: mutant.Checks("S4", "P1"),
		Change:  checkThenInsert,
	},
	{
		Name:    "ignore-payload",
		Bug:     "never compares the payload hash: a reused key with another payload replays the first answer",
		Catches: mutant.Checks("S3", "K3", "P1"),
		Skips:   []string{"S3a"}, // the mismatch is replayed, never refused
		Change: func(s *Server) {
			s.steps.samePayload = func(record, string) bool { return true }
		},
	},
	{
		Name:    "memory-records",
		Bug:     "keeps the idempotency records in memory (resources in SQLite): a restart forgets every key",
		Catches: mutant.Checks("S5a", "P1"),
		// The crash point of the built-in fake is inside the work, before
		// anything is written, so nothing is lost; a managed process is
		// killed at a drawn delay that may fall after its commit, and then
		// the retry creates a second resource.
		MayCatch: []string{"S5b"},
		Why:      "S5b fails too when the crash falls after the resource was committed (a managed process is killed at a drawn delay)",
		Change: func(s *Server) {
			// A TEMP table lives in the connection's memory, not in the
			// file, and dies with the process; the resources stay.
			s.steps.schema = editSchema(s.steps.schema, "CREATE TABLE IF NOT EXISTS idempotency_keys", "CREATE TEMP TABLE IF NOT EXISTS idempotency_keys")
		},
	},
	{
		Name:    "split-commit",
		Bug:     "commits the resource, then completes the key record in a second transaction: a crash between the two leaves a resource behind an in-flight key",
		Catches: mutant.Checks("S5b", "P1"),
		Change:  func(s *Server) { s.steps.execute = s.splitCommit },
	},
	{
		Name:    "stuck-inflight",
		Bug:     "never expires an in-flight record: after a crash mid-request the key answers 409 forever",
		Catches: mutant.Checks("S5b", "P1"),
		Change: func(s *Server) {
			s.steps.abandoned = func(record) bool { return false }
		},
	},
	{
		Name:    "key-optional",
		Bug:     "runs a create without the key, unprotected, although the key is declared required",
		Catches: mutant.Checks("K1", "P1"),
		Skips:   []string{"K1a"}, // the keyless create is accepted, never refused
		Change:  func(s *Server) { s.conv.KeyOptional = true },
	},
	{
		Name:    "missing-key-422",
		Bug:     "refuses a create without the key, but with 422 instead of the draft's 400",
		Catches: mutant.Checks("K1a", "P2"),
		Change:  func(s *Server) { s.conv.MissingKey = http.StatusUnprocessableEntity },
	},
	{
		Name:    "uuid-only-500",
		Bug:     "parses every key as a UUID and answers 500 when that fails, instead of validating it",
		Catches: mutant.Checks("K2", "P1"),
		Change: func(s *Server) {
			s.steps.refuseKey = func(key string) (answer, bool) {
				if !uuidRE.MatchString(key) {
					return serverError(fmt.Errorf("invalid UUID %q", key)), true
				}
				return answer{}, false
			}
		},
	},
	{
		// Taking the first of two key headers is no bug: the draft leaves
		// it to the server (fake:reference?duplicate_keys=first passes).
		Name:    "unbounded-key-length",
		Bug:     "accepts a key of any length (a 1024-character key is stored and run) instead of refusing one longer than the 255 characters keys may have",
		Catches: mutant.Checks("K2a", "P2"),
		Change: func(s *Server) {
			refuse := s.steps.refuseKey
			s.steps.refuseKey = func(key string) (answer, bool) {
				if len(key) > maxKeyLength {
					key = key[:maxKeyLength]
				}
				return refuse(key)
			}
		},
	},
	{
		Name:    "query-scoped-keys",
		Bug:     "scopes the key by the request's query string: the same key with another query parameter executes again",
		Catches: mutant.Checks("K3", "P1"),
		Change: func(s *Server) {
			key := s.steps.key
			s.steps.key = func(r *http.Request, body []byte) string {
				// The key's own parameter (key_in=query) is not part of
				// the scope: a request with no other parameter keeps its
				// plain key, as its crash point expects.
				q := r.URL.Query()
				q.Del(KeyField)
				if len(q) > 0 {
					return key(r, body) + "?" + q.Encode()
				}
				return key(r, body)
			}
		},
	},
	{
		Name:    "replay-drops-location",
		Bug:     "stores the status and body for replay but not the Location header",
		Catches: mutant.Checks("K4", "P2"),
		Change: func(s *Server) {
			replay := s.steps.replay
			s.steps.replay = func(rec record) answer {
				a := replay(rec)
				a.location = ""
				return a
			}
		},
	},
	{
		Name:    "in-flight-429",
		Bug:     "answers a duplicate of a request still in flight with 429 Too Many Requests instead of 409",
		Catches: mutant.Checks("K5", "P2"),
		Change:  func(s *Server) { s.conv.InFlight = http.StatusTooManyRequests },
	},
	{
		Name:    "commit-before-fail",
		Bug:     "commits the work before the step that fails, then answers the failure: the failed attempt leaves a resource behind",
		Catches: mutant.Checks("K6", "P1"),
		Change: func(s *Server) {
			commit := s.steps.commit
			s.steps.commit = func(ctx context.Context, work func(tx *sql.Tx) error) error {
				var failed error
				err := commit(ctx, func(tx *sql.Tx) error {
					err := work(tx)
					if errors.As(err, new(failure)) {
						failed, err = err, nil // the work so far is kept
					}
					return err
				})
				if err != nil {
					return err
				}
				return failed
			}
		},
	},
	{
		Name: "mismatch-417",
		Bug:  "refuses a reused key with another payload, but with 417 Expectation Failed instead of the profile's 422",
		// The refusal holds (S3); only its status is off, a SHOULD.
		Catches: mutant.Checks("S3a", "P2"),
		Change:  func(s *Server) { s.conv.Mismatch = http.StatusExpectationFailed },
	},
	{
		Name: "replay-200-reduced",
		Bug:  "replays the original resource's id with status 200 and a reduced body instead of the original 201 answer",
		// The same resource, unfaithfully replayed: replay fidelity is
		// K4's alone, so S2, S3 and S5a pass.
		Catches: mutant.Checks("K4", "P2"),
		Change: func(s *Server) {
			replay := s.steps.replay
			s.steps.replay = func(rec record) answer {
				if rec.Status != http.StatusCreated {
					return replay(rec)
				}
				body, _ := json.Marshal(map[string]string{"id": rec.ResourceID})
				return answer{status: http.StatusOK, body: body, location: rec.Location, replayed: true}
			}
		},
	},
	{
		Name: "record-after-answer",
		Bug:  "answers first and completes the key's record afterwards, in the background (a hook on the send): a restart right after an answer leaves the key in flight, and the retry is refused, then executed again",
		// Live requests see the answer from memory, so only a restart
		// aimed right after an answer shows the bug.
		Catches: mutant.Checks("S5a", "P1"),
		Change:  recordAfterAnswer(recordDelay),
	},
	{
		Name: "record-after-answer-quick",
		Bug:  "answers first and writes the key's record about 100 µs after the send (as quick as a Redis on loopback): a restart right after an answer still loses it",
		// The window is narrow: S5a's rounds each aim a restart at it
		// (docs/RESTARTS.md gives the timing).
		Catches: mutant.Checks("S5a", "P1"),
		Change:  recordAfterAnswer(quickRecordDelay),
	},
})

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// editSchema replaces one part of the reference's DDL; a part that is not
// there is a broken mutant, caught when any test opens it.
func editSchema(ddl, part, with string) string {
	if !strings.Contains(ddl, part) {
		panic(fmt.Sprintf("fakes: the schema has no %q to replace", part))
	}
	return strings.Replace(ddl, part, with, 1)
}
