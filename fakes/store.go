package fakes

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/idemspec/idemspec/internal/sqlitedb"
)

// schema is the DDL. The primary key on (tenant, key) is the arbiter of
// concurrent requests with one key: the first insert wins, and every
// other request finds the record.
const schema = `
CREATE TABLE IF NOT EXISTS idempotency_keys (
	tenant       TEXT    NOT NULL,
	key          TEXT    NOT NULL,
	request_hash TEXT    NOT NULL,
	state        TEXT    NOT NULL,
	locked_at    INTEGER NOT NULL,
	resource_id  TEXT,
	status       INTEGER,
	body         BLOB,
	location     TEXT,
	created_at   INTEGER NOT NULL,
	PRIMARY KEY (tenant, key)
);
CREATE TABLE IF NOT EXISTS resources (
	id         TEXT    PRIMARY KEY,
	tenant     TEXT    NOT NULL,
	parent     TEXT    NOT NULL DEFAULT '',
	marker     TEXT    NOT NULL,
	payload    BLOB    NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS resources_marker ON resources (marker);
`

// openDB opens (creating if needed) the SQLite file at path; a commit is
// durable before the response is written.
func openDB(path string, ddl string) (*sql.DB, error) {
	if IsPostgres(path) {
		return openPostgres(path, ddl)
	}
	// One connection serialises statements inside this process; the
	// handler's work delay runs outside any transaction, so races between
	// requests are still possible wherever the design allows them. A
	// TEMP table stays in memory.
	return sqlitedb.Open(path, ddl, sqlitedb.Options{MaxOpenConns: 1, Pragmas: []string{"temp_store(memory)"}})
}

// record is one idempotency key record.
type record struct {
	Hash       string
	State      string
	LockedAt   int64
	ResourceID string
	Status     int
	Body       []byte
	Location   string
}

const (
	stateInFlight = "in_flight"
	stateComplete = "complete"
)

var errNoRecord = errors.New("no record")

func loadRecord(ctx context.Context, q queryer, tenant, key string) (record, error) {
	var r record
	var rid, loc sql.NullString
	var status sql.NullInt64
	err := q.QueryRowContext(ctx,
		`SELECT request_hash, state, locked_at, resource_id, status, body, location
		   FROM idempotency_keys WHERE tenant = ? AND key = ? LIMIT 1`, tenant, key).
		Scan(&r.Hash, &r.State, &r.LockedAt, &rid, &status, &r.Body, &loc)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNoRecord
	}
	r.ResourceID, r.Location, r.Status = rid.String, loc.String, int(status.Int64)
	return r, err
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// resourceRow is one created resource as the list endpoint shows it.
type resourceRow struct {
	ID        string
	Tenant    string
	Parent    string // "" for a resource, its resource's id for an event
	Marker    string
	Payload   []byte
	CreatedAt time.Time
}

// listResources lists the resources of parent ("": the top-level ones;
// an id: that resource's events) carrying marker (every one when marker
// is "": a list that does not filter): the tenant's, or every tenant's
// when tenant is "" (a view not scoped by tenant).
func listResources(ctx context.Context, db *sql.DB, tenant, parent, marker string) ([]resourceRow, error) {
	rows, err := db.QueryContext(ctx,
		`SELECT id, tenant, parent, marker, payload, created_at FROM resources
		  WHERE parent = ? AND (marker = ? OR ? = '') AND (tenant = ? OR ? = '') ORDER BY created_at, id`, parent, marker, marker, tenant, tenant)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resourceRow
	for rows.Next() {
		var r resourceRow
		var at int64
		if err := rows.Scan(&r.ID, &r.Tenant, &r.Parent, &r.Marker, &r.Payload, &at); err != nil {
			return nil, err
		}
		r.CreatedAt = time.Unix(0, at).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}
