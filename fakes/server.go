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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configures a fake server.
type Options struct {
	// Mutant names the bug to add; "" or "reference" is the correct server.
	Mutant string
	// DBPath is the SQLite file; empty means a fresh file in a temp dir
	// that Close removes.
	DBPath string
	// Delay is the handler's work time between claiming a key and
	// committing the resource. It is the window in which concurrent
	// duplicates meet an in-flight record (or, in a mutant, race).
	Delay time.Duration
	// InProgressTimeout is how long an in-flight record blocks its key
	// before a retry may take it over (a crashed request never finishes).
	InProgressTimeout time.Duration
	// KeyHeader is the request header carrying the key.
	KeyHeader string
	// Convention sets the codes and behaviours conventions disagree on;
	// nil is IETF, the reference's.
	Convention *Convention
	// Log, when set, gets one line per request (not from a killed server).
	Log io.Writer
	// ListAll makes the list endpoint ignore the caller's credentials and
	// list every tenant's resources, as admin and service views often do.
	// Keys stay scoped by tenant: this is a correct server.
	ListAll bool
}

// Defaults for Options fields left zero.
const (
	DefaultDelay             = 20 * time.Millisecond
	DefaultInProgressTimeout = 2 * time.Second
	DefaultKeyHeader         = "Idempotency-Key"
	// ArrivalHeader carries the time (Unix nanoseconds) at which the
	// server had the whole request, so the harness can measure how
	// tightly a burst really arrived.
	ArrivalHeader = "X-Idemspec-Arrival"
	// ReplayHeader marks a replayed response.
	ReplayHeader = "Idempotent-Replayed"
	maxKeyLength = 255
	maxBodyBytes = 1 << 20
)

// Server is the reference idempotent server, or a mutant of it.
type Server struct {
	opts   Options
	mutant Mutant
	conv   Convention
	steps  steps // the reference's, or a mutant's
	db     *sql.DB
	tmpDir string

	mu          sync.Mutex
	seen        []Arrival // every create request received, in arrival order
	requests    []Arrival // every create and look-up, in arrival order
	failNext    int       // FailNext: creates still to answer failWith
	failWith    int
	crashPoints map[string]chan struct{} // armed by CrashPoint, by key

	// life makes a kill honest: every write holds it for reading, kill
	// takes it for writing, so once kill returns no handler of this
	// server (still sleeping in its work, say) can change the database,
	// as a SIGKILLed process cannot.
	life   sync.RWMutex
	killed bool
	dead   chan struct{} // closed by kill
}

// Arrival is one create request as the server saw it.
type Arrival struct {
	At     time.Time
	Key    string
	Tenant string
	Hash   string
	Status int
	// Path is the request's path: the create path, or a look-up's
	// (which is how a client's reconciliation shows in the log).
	Path string
}

// Open creates the server and its database.
func Open(opts Options) (*Server, error) {
	m, err := LookupMutant(OfServer, opts.Mutant)
	if err != nil {
		return nil, err
	}
	if opts.Delay == 0 {
		opts.Delay = DefaultDelay
	}
	if opts.InProgressTimeout == 0 {
		opts.InProgressTimeout = DefaultInProgressTimeout
	}
	if opts.KeyHeader == "" {
		opts.KeyHeader = DefaultKeyHeader
	}
	s := &Server{opts: opts, mutant: m, conv: IETF, crashPoints: map[string]chan struct{}{}, dead: make(chan struct{})}
	if opts.Convention != nil {
		s.conv = *opts.Convention
	}
	s.steps = s.referenceSteps()
	if m.server != nil {
		m.server(s)
	}
	if opts.DBPath == "" {
		s.tmpDir, err = os.MkdirTemp("", "idemspec-fake-")
		if err != nil {
			return nil, err
		}
		opts.DBPath = filepath.Join(s.tmpDir, "fake.db")
		s.opts.DBPath = opts.DBPath
	}
	s.db, err = openDB(opts.DBPath, s.steps.schema)
	if err != nil {
		s.removeTemp()
		return nil, err
	}
	return s, nil
}

// Close closes the database and removes a temporary one.
func (s *Server) Close() error {
	err := s.db.Close()
	s.removeTemp()
	return err
}

func (s *Server) removeTemp() {
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
	}
}

// Mutant says which server this is.
func (s *Server) Mutant() Mutant { return s.mutant }

// Arrivals returns every create request received so far.
func (s *Server) Arrivals() []Arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Arrival(nil), s.seen...)
}

// Requests returns every create and look-up received so far, in arrival
// order: a client's whole conversation with the server.
func (s *Server) Requests() []Arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Arrival(nil), s.requests...)
}

// FailNext makes the next n creates answer status at once, without doing
// any work, as a gateway in front of the server would. Client mode uses
// it to give a client a refusal (4xx) or an outage (5xx) it must handle;
// the reference server never sets it by itself.
func (s *Server) FailNext(n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext, s.failWith = n, status
}

func (s *Server) takeFailure() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failNext <= 0 {
		return 0, false
	}
	s.failNext--
	return s.failWith, true
}

// Handler routes the server's endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /resources", s.create)
	mux.HandleFunc("GET /resources", s.list)
	mux.HandleFunc("GET /resources/{id}", s.get)
	mux.HandleFunc("DELETE /resources/{id}", s.remove)
	mux.HandleFunc("GET /idempotency-keys/{key}", s.lookup)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "server": s.mutant.Name})
	})
	if s.opts.Log == nil {
		return mux
	}
	return s.logged(mux)
}

// answer is a response the create endpoint gives, stored for replay.
type answer struct {
	status   int
	body     []byte
	location string
	replayed bool
	retry    bool // add Retry-After (in flight)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	arrived := time.Now()
	w.Header().Set(ArrivalHeader, strconv.FormatInt(arrived.UnixNano(), 10))
	if err != nil {
		s.reply(w, r, arrived, request{}, problem(http.StatusBadRequest, "could not read body"))
		return
	}
	q := request{tenant: s.steps.tenant(r), key: s.steps.key(r), keys: s.steps.keyHeaders(r), hash: digest(body), body: body}
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
		return problem(s.conv.MissingKey, "missing "+s.opts.KeyHeader+" header")
	case q.keys > 1:
		return problem(http.StatusBadRequest, "more than one "+s.opts.KeyHeader+" header")
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
	if k == "" || len(k) > maxKeyLength {
		return problem(http.StatusBadRequest, invalidKey), true
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return problem(http.StatusBadRequest, invalidKey), true
		}
	}
	return answer{}, false
}

const invalidKey = "the key must be 1 to 255 visible ASCII characters"

func (s *Server) reply(w http.ResponseWriter, r *http.Request, at time.Time, q request, a answer) {
	s.mu.Lock()
	arrival := Arrival{At: at, Key: q.key, Tenant: q.tenant, Hash: q.hash, Status: a.status, Path: r.URL.Path}
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
	w.WriteHeader(a.status)
	w.Write(a.body)
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
	c := claim{tenant: q.tenant, key: q.key, lockedAt: now, body: q.body}
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
		if a, err = insertResource(ctx, tx, c.tenant, c.body); err != nil {
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
		a, err = insertResource(ctx, tx, q.tenant, q.body)
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
func insertResource(ctx context.Context, tx execer, tenant string, body []byte) (created, error) {
	var payload map[string]any
	if err := json.Unmarshal(body, &payload); err != nil || payload == nil {
		return created{answer: problem(http.StatusBadRequest, "the body must be a JSON object")}, nil
	}
	marker, _ := payload["marker"].(string)
	id := newID()
	now := time.Now().UTC()
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO resources (id, tenant, marker, payload, created_at) VALUES (?, ?, ?, ?, ?)`,
		id, tenant, marker, body, now.UnixNano()); err != nil {
		return created{}, err
	}
	if err := injectedFailure(ctx); err != nil {
		return created{}, err
	}
	out, err := json.Marshal(resourceJSON(resourceRow{ID: id, Tenant: tenant, Marker: marker, Payload: body, CreatedAt: now}))
	if err != nil {
		return created{}, err
	}
	return created{id: id, answer: answer{status: http.StatusCreated, body: out, location: "/resources/" + id}}, nil
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	tenant := s.steps.tenant(r)
	if s.opts.ListAll {
		tenant = ""
	}
	rows, err := listResources(r.Context(), s.db, tenant, r.URL.Query().Get("marker"))
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	items := make([]map[string]any, 0, len(rows))
	for _, row := range rows {
		items = append(items, resourceJSON(row))
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	var row resourceRow
	var at int64
	err := s.db.QueryRowContext(r.Context(),
		`SELECT id, tenant, marker, payload, created_at FROM resources WHERE id = ? AND tenant = ?`,
		r.PathValue("id"), s.steps.tenant(r)).Scan(&row.ID, &row.Tenant, &row.Marker, &row.Payload, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such resource"})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	default:
		row.CreatedAt = time.Unix(0, at).UTC()
		writeJSON(w, http.StatusOK, resourceJSON(row))
	}
}

// remove deletes one of the caller's resources (what a target file's
// cleanup step calls); its key record stays, as a real API's would.
func (s *Server) remove(w http.ResponseWriter, r *http.Request) {
	res, err := s.db.ExecContext(r.Context(), `DELETE FROM resources WHERE id = ? AND tenant = ?`, r.PathValue("id"), s.steps.tenant(r))
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such resource"})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// lookup tells a reconciling client whether a key is known, and its resource.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	tenant := s.steps.tenant(r)
	rec, err := s.steps.record(r.Context(), tenant, r.PathValue("key"))
	status := http.StatusOK
	switch {
	case errors.Is(err, errNoRecord):
		status = http.StatusNotFound
	case err != nil:
		status = http.StatusInternalServerError
	}
	s.mu.Lock()
	s.requests = append(s.requests, Arrival{At: at, Key: r.PathValue("key"), Tenant: tenant, Status: status, Path: r.URL.Path})
	s.mu.Unlock()
	switch {
	case errors.Is(err, errNoRecord):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "unknown key"})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	default:
		writeJSON(w, http.StatusOK, map[string]any{
			"key": r.PathValue("key"), "state": rec.State, "resource_id": rec.ResourceID, "status": rec.Status,
		})
	}
}

func resourceJSON(r resourceRow) map[string]any {
	return map[string]any{
		"id":         r.ID,
		"marker":     r.Marker,
		"payload":    json.RawMessage(r.Payload),
		"created_at": r.CreatedAt.Format(time.RFC3339Nano),
	}
}

// tenantOf scopes keys, records and resources: the bearer token, or
// public without one.
func tenantOf(r *http.Request) string {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && tok != "" {
		return tok
	}
	return public
}

// public is the tenant of a request without credentials.
const public = "public"

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

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// InProgressTimeout is how long an abandoned in-flight claim blocks its key.
func (s *Server) InProgressTimeout() time.Duration { return s.opts.InProgressTimeout }
