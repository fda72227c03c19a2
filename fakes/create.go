package fakes

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// The create endpoint of the reference server: what correct looks like.
// Every decision goes through s.steps (steps.go), which a mutant may have
// changed; nothing here knows which.

// answer is a response the create endpoint gives, stored for replay.
type answer struct {
	status   int
	body     []byte
	location string
	replayed bool
	retry    bool // add Retry-After (in flight)
	// sent, when set, runs once the answer is on the wire (written and
	// flushed): a mutant's hook on the send.
	sent func()
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) { s.createUnder(w, r, "") }

// appendEvent is the action on a parent: it appends one event to a
// resource, idempotently by key like a create (the same steps, so every
// mutant's bug is the action's too). The parent must exist; events are
// the caller's tenant's, while the parent is found by its id alone, as
// an id no one guesses.
func (s *Server) appendEvent(w http.ResponseWriter, r *http.Request) {
	parent := r.PathValue("id")
	var one int
	err := s.db.QueryRowContext(r.Context(), `SELECT 1 FROM resources WHERE id = ? AND parent = ''`, parent).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such resource"})
		return
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	s.createUnder(w, r, parent)
}

// createUnder creates a resource, or with a parent, an event of it.
func (s *Server) createUnder(w http.ResponseWriter, r *http.Request, parent string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	arrived := time.Now()
	w.Header().Set(ArrivalHeader, strconv.FormatInt(arrived.UnixNano(), 10))
	if err != nil {
		s.reply(w, r, arrived, request{}, problem(http.StatusBadRequest, "could not read body"))
		return
	}
	q := request{tenant: s.steps.tenant(r), key: s.steps.key(r, body), keys: s.steps.keyCount(r, body), hash: fingerprint(parent, s.payloadOf(body)), parent: parent, body: body}
	var a answer
	if status, failing := s.takeFailure(); failing {
		a = problem(status, "failed on purpose (FailNext)")
	} else {
		a = s.steps.create(withFailure(r.Context(), r.Header.Get(FailHeader)), q)
	}
	s.reply(w, r, arrived, q, a)
}

// idempotent is the reference's create: a request with exactly one
// valid key runs once; without a key it is refused (or, where the key is
// optional, runs unprotected).
func (s *Server) idempotent(ctx context.Context, q request) answer {
	switch {
	case q.keys == 0 && s.conv.KeyOptional:
		return s.unprotected(ctx, q)
	case q.keys == 0:
		return problem(s.conv.MissingKey, "missing "+s.keyPlace())
	case q.keys > 1:
		return problem(http.StatusBadRequest, "more than one "+s.keyPlace())
	}
	if a, refused := s.steps.refuseKey(q.key); refused {
		return a
	}
	// The client may give up (a lost response looks like that to us);
	// the work it asked for must still finish and be recorded.
	return s.steps.once(context.WithoutCancel(ctx), q)
}

// refuseInvalidKey refuses a key that is not 1 to 255 visible ASCII
// characters.
func refuseInvalidKey(k string) (answer, bool) {
	if !validKey(k) {
		return problem(http.StatusBadRequest, "the key must be 1 to 255 visible ASCII characters"), true
	}
	return answer{}, false
}

func validKey(k string) bool {
	if k == "" || len(k) > maxKeyLength {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request, at time.Time, q request, a answer) {
	if a.replayed && s.opts.ReplayDelay > 0 {
		select {
		case <-time.After(s.opts.ReplayDelay):
		case <-r.Context().Done():
			return
		}
	}
	s.mu.Lock()
	arrival := Arrival{At: at, Key: q.key, Tenant: q.tenant, Hash: q.hash, Status: a.status, Method: r.Method, Path: r.URL.Path}
	s.seen = append(s.seen, arrival)
	s.requests = append(s.requests, arrival)
	s.mu.Unlock()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if a.location != "" {
		h.Set("Location", a.location)
	}
	if a.replayed && s.conv.ReplayHeader != "" {
		h.Set(s.conv.ReplayHeader, "true")
	}
	if a.retry {
		h.Set("Retry-After", "1")
	}
	if a.sent != nil || s.opts.NoDrain {
		// The same bytes as without the hook (a length, not chunks),
		// flushed now, so the hook runs after the send.
		h.Set("Content-Length", strconv.Itoa(len(a.body)))
	}
	w.WriteHeader(a.status)
	if s.opts.NoDrain {
		s.headFirst(w)
	}
	w.Write(a.body)
	if a.sent != nil {
		http.NewResponseController(w).Flush()
		a.sent()
	}
}

// createOnce is the heart of the reference: claim the key through the
// primary key, execute once, store the answer with the resource in one
// transaction, and replay it to every later request with the same key.
func (s *Server) createOnce(ctx context.Context, q request) answer {
	now := time.Now().UnixNano()
	claimed := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO idempotency_keys (tenant, key, request_hash, state, locked_at, created_at)
			 VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, key) DO NOTHING`,
			q.tenant, q.key, q.hash, stateInFlight, now, now)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		claimed = n == 1
		return nil
	})
	if err != nil {
		return serverError(err)
	}
	c := claim{tenant: q.tenant, key: q.key, lockedAt: now, parent: q.parent, body: q.body}
	if claimed {
		return s.steps.execute(ctx, c)
	}
	rec, err := s.steps.record(ctx, q.tenant, q.key)
	if err != nil {
		return serverError(err)
	}
	if a, done := s.answerExisting(rec, q.hash); done {
		return a
	}
	// In flight for longer than the in-progress timeout: the request that
	// claimed it died. Take the claim over, but only if nobody else did.
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE idempotency_keys SET locked_at = ?
			  WHERE tenant = ? AND key = ? AND state = ? AND locked_at = ?`,
			now, q.tenant, q.key, stateInFlight, rec.LockedAt)
		return oneRow(res, err)
	})
	switch {
	case errors.Is(err, errLostClaim):
		return s.inFlight()
	case err != nil:
		return serverError(err)
	}
	return s.steps.execute(ctx, c)
}

// answerExisting answers a request whose key already has a record, unless
// the record is an abandoned claim that the caller may take over.
func (s *Server) answerExisting(rec record, hash string) (answer, bool) {
	switch {
	case !s.steps.samePayload(rec, hash):
		return problem(s.conv.Mismatch, "this key was used with a different request payload"), true
	case rec.State == stateComplete:
		return s.steps.replay(rec), true
	case !s.steps.abandoned(rec):
		return s.inFlight(), true
	}
	return answer{}, false
}

// replay is the stored answer, marked as a replay.
func replay(rec record) answer {
	return answer{status: rec.Status, body: rec.Body, location: rec.Location, replayed: true}
}

// abandoned: the request that claimed the key has had the whole
// in-progress timeout and not finished, so it died.
func (s *Server) abandoned(rec record) bool {
	return time.Duration(time.Now().UnixNano()-rec.LockedAt) >= s.opts.InProgressTimeout
}

// executeClaimed does the work for a key this request owns and commits
// the resource together with the answer. If the claim was taken over
// meanwhile, nothing is committed.
func (s *Server) executeClaimed(ctx context.Context, c claim) answer {
	s.work(c.key)
	var a created
	err := s.steps.commit(ctx, func(tx *sql.Tx) error {
		var err error
		if a, err = insertResource(ctx, tx, c.tenant, c.parent, c.body); err != nil {
			return err
		}
		return complete(ctx, tx, c, a)
	})
	return s.finish(ctx, c, a, err)
}

// complete stores the answer in the key record, if the claim still owns
// it.
func complete(ctx context.Context, tx *sql.Tx, c claim, a created) error {
	res, err := tx.ExecContext(ctx,
		`UPDATE idempotency_keys SET state = ?, resource_id = ?, status = ?, body = ?, location = ?
		  WHERE tenant = ? AND key = ? AND state = ? AND locked_at = ?`,
		stateComplete, a.id, a.status, a.body, a.location, c.tenant, c.key, stateInFlight, c.lockedAt)
	return oneRow(res, err)
}

// committed is the answer to a request whose work was written with err.
func (s *Server) committed(a created, err error) answer {
	switch {
	case errors.Is(err, errLostClaim):
		return s.inFlight()
	case err != nil:
		return serverError(err)
	}
	return a.answer
}

// unprotected creates a resource with no idempotency at all: a create
// without a key where the convention makes the key optional.
func (s *Server) unprotected(ctx context.Context, q request) answer {
	s.work(q.key)
	var a created
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = insertResource(ctx, tx, q.tenant, q.parent, q.body)
		return err
	})
	return s.committed(a, err)
}

type created struct {
	answer
	id string
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertResource creates the resource and renders the 201 answer.
func insertResource(ctx context.Context, tx execer, tenant, parent string, body []byte) (created, error) {
	var payload map[string]any
	if err := json.Unmarshal(body, &payload); err != nil || payload == nil {
		return created{answer: problem(http.StatusBadRequest, "the body must be a JSON object")}, nil
	}
	marker, _ := payload["marker"].(string)
	id := newID()
	now := time.Now().UTC()
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO resources (id, tenant, parent, marker, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, tenant, parent, marker, body, now.UnixNano()); err != nil {
		return created{}, err
	}
	if err := injectedFailure(ctx); err != nil {
		return created{}, err
	}
	row := resourceRow{ID: id, Tenant: tenant, Parent: parent, Marker: marker, Payload: body, CreatedAt: now}
	out, err := json.Marshal(resourceJSON(row))
	if err != nil {
		return created{}, err
	}
	return created{id: id, answer: answer{status: http.StatusCreated, body: out, location: "/resources/" + id}}, nil
}

// fingerprint is what a key's record compares a request by: its
// payload, and for an event, the resource it acts on (one key reused on
// another resource is another request).
func fingerprint(parent string, payload []byte) string {
	if parent == "" {
		return digest(payload)
	}
	return digest(append([]byte(parent+"\x00"), payload...))
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return "res_" + hex.EncodeToString(b[:])
}

func problem(status int, detail string) answer {
	b, _ := json.Marshal(map[string]any{"status": status, "detail": detail})
	return answer{status: status, body: b}
}

// inFlight answers a request whose key is still in flight, with the
// convention's status and a Retry-After.
func (s *Server) inFlight() answer {
	a := problem(s.conv.InFlight, "a request with this key is still being processed")
	a.retry = true
	return a
}

// serverError answers a failure: an injected one with its own status.
func serverError(err error) answer {
	var f failure
	if errors.As(err, &f) {
		return problem(f.status, err.Error())
	}
	return problem(http.StatusInternalServerError, err.Error())
}
