package fakes

import (
	"context"
	"database/sql"
	"net/http"
)

// steps are the decisions the server makes for a request, one field
// each. The server takes every one of them through s.steps, so a mutant
// is the reference with one field replaced or wrapped (mutants_server.go),
// as a Toxiproxy toxic is a small type the proxy knows nothing of. The
// codes the server answers with are its Convention, which a mutant may
// change the same way. The reference's own steps, in create.go, server.go
// and store.go, name no mutant.
type steps struct {
	// schema is the DDL of the key records and the resources.
	schema string
	// tenant scopes keys, records and resources.
	tenant func(r *http.Request) string
	// key is what a request's record is filed under within its tenant:
	// the first key it carries ("" without one).
	key func(r *http.Request, body []byte) string
	// keyCount counts the keys a request carries (key headers, key
	// parameters, or the body's key field): exactly one makes an
	// idempotent create.
	keyCount func(r *http.Request, body []byte) int
	// create answers a create request that the server means to serve.
	create func(ctx context.Context, q request) answer
	// refuseKey refuses a key the server does not accept (true), or lets
	// it through (false).
	refuseKey func(key string) (answer, bool)
	// once runs a keyed create at most once: claim the key, execute, store
	// the answer, and replay it to every later request with the key.
	once func(ctx context.Context, q request) answer
	// record reads a key's record; errNoRecord when the key is unknown.
	record func(ctx context.Context, tenant, key string) (record, error)
	// samePayload says whether a request is the one its key's record
	// holds.
	samePayload func(rec record, hash string) bool
	// replay is the answer a completed record gives again.
	replay func(rec record) answer
	// abandoned says whether an in-flight claim is old enough to take over.
	abandoned func(rec record) bool
	// execute does the work for a key this request owns and stores the
	// answer.
	execute func(ctx context.Context, c claim) answer
	// commit writes a claimed request's work, resource and answer, in one
	// transaction.
	commit func(ctx context.Context, work func(tx *sql.Tx) error) error
}

// request is one create request as the steps see it.
type request struct {
	tenant, key, hash string
	keys              int    // how many keys it carries
	parent            string // the resource an event is appended to; "" for a create
	body              []byte
}

// claim is a key this request owns: its record is in flight, stamped
// lockedAt.
type claim struct {
	tenant, key string
	lockedAt    int64
	parent      string
	body        []byte
}

// referenceSteps are the steps of the correct server.
func (s *Server) referenceSteps() steps {
	return steps{
		schema: schema,
		tenant: tenantOf,
		key: func(r *http.Request, body []byte) string {
			if keys := s.carriedKeys(r, body); len(keys) > 0 {
				return keys[0]
			}
			return ""
		},
		keyCount: func(r *http.Request, body []byte) int {
			if s.opts.FirstOfDuplicateKeys {
				return min(len(s.carriedKeys(r, body)), 1)
			}
			return len(s.carriedKeys(r, body))
		},
		create:    s.idempotent,
		refuseKey: refuseInvalidKey,
		once:      s.createOnce,
		record: func(ctx context.Context, tenant, key string) (record, error) {
			return loadRecord(ctx, s.db, tenant, key)
		},
		samePayload: func(rec record, hash string) bool { return rec.Hash == hash },
		replay:      replay,
		abandoned:   s.abandoned,
		execute:     s.executeClaimed,
		commit:      s.write,
	}
}
