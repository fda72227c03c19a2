package fakes

import (
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/upstream"
	"github.com/idemspec/idemspec/targets"
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
	// KeyIn is where the key is read: "" or KeyInHeader (KeyHeader),
	// KeyInBody or KeyInQuery (KeyField).
	KeyIn string
	// Convention sets the codes and behaviours conventions disagree on;
	// nil is IETF, the reference's.
	Convention *Convention
	// Log, when set, gets one line per request (not from a killed server).
	Log io.Writer
	// WorkLog, when set, gets a line `work key="K"` as a request for key
	// K enters its work: the crash point a managed process shows idemspec
	// (a target file's process.crash_at).
	WorkLog io.Writer
	// ListAll makes the list endpoint ignore the caller's credentials and
	// list every tenant's resources, as admin and service views often do.
	// Keys stay scoped by tenant: this is a correct server.
	ListAll bool
	// PageSize, when set, makes the list endpoint answer that many items
	// at a time, in PageStyle (pages.go); 0 answers every item at once.
	PageSize  int
	PageStyle string
	// FirstOfDuplicateKeys takes the first of two key headers instead of
	// refusing the request, as every implementation tried does: a
	// correct server (the draft leaves it to the server; K2a notes it).
	FirstOfDuplicateKeys bool
	// NoDrain makes a graceful stop exit at once, finishing nothing in
	// flight (drain.go), as a server with no SIGTERM handler does; the
	// answer's body follows its head by BodyLag (0: DefaultBodyLag).
	NoDrain bool
	BodyLag time.Duration
	// HeldWindow makes a bug that rides a window between an answer and
	// what follows it (record-after-answer-quick's 100 µs) hold that
	// window open until the server's generation ends (a restart, a
	// crash, its close), or heldWindow. Whether a restart lands inside a
	// window that narrow depends on the machine's scheduling; held open,
	// a verdict does not, and the detection matrices use it. The narrow
	// window's own detection rate is a benchmark's to measure.
	HeldWindow bool
	// ReplayDelay holds every replayed answer that long before it is sent
	// (ended early when the client gives up): a correct server whose
	// replays are slower than the harness waits, as one that reads them
	// from a slow store is. Its checks must not FAIL for the answers
	// they did not get.
	ReplayDelay time.Duration
	// IdleTimeout, when set, closes a connection that waits longer than
	// this for its next request, and one whose request (head and body)
	// did not all arrive within it, as servers that time out idle
	// keep-alive connections do (Python's BaseHTTPRequestHandler.timeout,
	// gunicorn's keepalive, uvicorn's --timeout-keep-alive, Node's
	// keepAliveTimeout). A body cut by it is answered 400, as one cut
	// short. Zero keeps connections as long as the client does.
	IdleTimeout time.Duration
}

// Defaults for Options fields left zero.
const (
	DefaultDelay             = 20 * time.Millisecond
	DefaultInProgressTimeout = targets.ReferenceInProgressTimeout
	DefaultKeyHeader         = targets.ReferenceKeyHeader
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
	mutant mutant.Mutant
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
	holds       []*Held                  // armed by Hold, in order

	// life makes a kill honest: every write holds it for reading, kill
	// takes it for writing, so once kill returns no handler of this
	// server (still sleeping in its work, say) can change the database,
	// as a SIGKILLed process cannot.
	life   sync.RWMutex
	killed bool
	dead   chan struct{} // closed by kill
	// stopping is set by a graceful stop, the SIGTERM; busy counts the
	// handlers running. Once stopping, a write outside every handler (a
	// background task's) is refused: a stopping process gives such a
	// task no time beyond its requests in flight.
	stopping atomic.Bool
	busy     atomic.Int64
	// closed is closed when the server is closed: the generation's end.
	closed chan struct{}
}

// Arrival is one create request as the server saw it.
type Arrival = upstream.Arrival

// Open creates the server and its database.
func Open(opts Options) (*Server, error) {
	m, err := LookupMutant(OfServer, opts.Mutant)
	if err != nil {
		return nil, err
	}
	if err := checkPaging(&opts); err != nil {
		return nil, err
	}
	if err := checkKeyIn(opts.KeyIn); err != nil {
		return nil, err
	}
	if opts.Delay == 0 {
		opts.Delay = DefaultDelay
	}
	if opts.InProgressTimeout == 0 {
		opts.InProgressTimeout = DefaultInProgressTimeout
	}
	if opts.BodyLag == 0 {
		opts.BodyLag = DefaultBodyLag
	}
	if opts.KeyHeader == "" {
		opts.KeyHeader = DefaultKeyHeader
	}
	s := &Server{opts: opts, mutant: m, conv: IETF, crashPoints: map[string]chan struct{}{}, dead: make(chan struct{}), closed: make(chan struct{})}
	if opts.Convention != nil {
		s.conv = *opts.Convention
	}
	s.steps = s.referenceSteps()
	if bug, ok := m.Change.(func(*Server)); ok {
		bug(s)
	}
	if opts.DBPath == "" {
		s.tmpDir, err = os.MkdirTemp("", "idemspec-fake-")
		if err != nil {
			return nil, err
		}
		opts.DBPath = filepath.Join(s.tmpDir, "fake.db")
		s.opts.DBPath = opts.DBPath
	}
	s.db, err = openDB(opts.DBPath, s.steps.schema+uploadSchema)
	if err != nil {
		s.removeTemp()
		return nil, err
	}
	return s, nil
}

// Close closes the database and removes a temporary one.
func (s *Server) Close() error {
	err := s.db.Close()
	close(s.closed)
	s.removeTemp()
	return err
}

func (s *Server) removeTemp() {
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
	}
}

// Mutant says which server this is.
func (s *Server) Mutant() mutant.Mutant { return s.mutant }

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
	mux.HandleFunc("POST /resources/{id}/events", s.appendEvent)
	mux.HandleFunc("GET /resources/{id}/events", s.list)
	mux.HandleFunc("DELETE /resources/{id}", s.remove)
	mux.HandleFunc("PUT /uploads/{path...}", s.upload)
	mux.HandleFunc("GET /idempotency-keys/{key}", s.lookup)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "server": s.mutant.Name})
	})
	h := s.held(mux)
	if s.opts.Log == nil {
		return s.counted(h)
	}
	return s.counted(s.logged(h))
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	tenant := s.steps.tenant(r)
	if s.opts.ListAll {
		tenant = ""
	}
	// GET /resources/{id}/events lists one resource's events.
	rows, err := listResources(r.Context(), s.db, tenant, r.PathValue("id"), r.URL.Query().Get("marker"))
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	items := make([]map[string]any, 0, len(rows))
	for _, row := range rows {
		items = append(items, resourceJSON(row))
	}
	s.writeList(w, r, items)
}

// get reads one resource. As the action on it does, it finds the
// resource by its id alone (an id no one guesses), so every tenant that
// may act on it reads its own count of the action's effects.
func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	at, rec := time.Now(), &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	s.getResource(rec, r)
	// A job's final read is one of its steps.
	s.logRequest(Arrival{At: at, Tenant: s.steps.tenant(r), Status: rec.status, Method: r.Method, Path: r.URL.Path})
}

func (s *Server) getResource(w http.ResponseWriter, r *http.Request) {
	var row resourceRow
	var at int64
	err := s.db.QueryRowContext(r.Context(),
		`SELECT id, tenant, parent, marker, payload, created_at FROM resources WHERE id = ?`,
		r.PathValue("id")).Scan(&row.ID, &row.Tenant, &row.Parent, &row.Marker, &row.Payload, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such resource"})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	default:
		row.CreatedAt = time.Unix(0, at).UTC()
		j := resourceJSON(row)
		// A counter of the effects of the action on it, for an oracle
		// that reads a field: the caller's events (every tenant's with
		// ListAll, as the list of events).
		tenant := s.steps.tenant(r)
		if s.opts.ListAll {
			tenant = ""
		}
		var n int
		if err := s.db.QueryRowContext(r.Context(), `SELECT COUNT(*) FROM resources WHERE parent = ? AND (tenant = ? OR ? = '')`, row.ID, tenant, tenant).Scan(&n); err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		j["event_count"] = n
		writeJSON(w, http.StatusOK, j)
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
	s.logRequest(Arrival{At: at, Key: r.PathValue("key"), Tenant: tenant, Status: status, Method: r.Method, Path: r.URL.Path})
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
	j := map[string]any{
		"id":         r.ID,
		"marker":     r.Marker,
		"payload":    json.RawMessage(r.Payload),
		"created_at": r.CreatedAt.Format(time.RFC3339Nano),
	}
	if r.Parent != "" {
		j["resource_id"] = r.Parent
	}
	return j
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
const public = upstream.Public

// TenantCredentials are the headers that reach tenant's keys and
// resources (upstream.TenantCredentials).
func TenantCredentials(tenant string) http.Header { return upstream.TenantCredentials(tenant) }

// TenantName names a tenant in reports without its token
// (upstream.TenantName).
func TenantName(tenant string) string { return upstream.TenantName(tenant) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// InProgressTimeout is how long an abandoned in-flight claim blocks its key.
func (s *Server) InProgressTimeout() time.Duration { return s.opts.InProgressTimeout }
