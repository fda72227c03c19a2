package retry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/idemspec/idemspec/harness/retry/state"
	"github.com/idemspec/idemspec/internal/sqlitedb"
)

// SQLiteJournal keeps operations in a SQLite file, so a restarted
// process resumes the same operation with the same key. A write is
// durable before the call returns, and two processes sharing the file
// wait for each other instead of failing.
type SQLiteJournal struct {
	db   *sql.DB
	path string
}

const journalSchema = `
CREATE TABLE IF NOT EXISTS operations (
	id          TEXT    PRIMARY KEY,
	key         TEXT    NOT NULL,
	payload     BLOB    NOT NULL,
	state       TEXT    NOT NULL,
	attempts    INTEGER NOT NULL,
	resource_id TEXT    NOT NULL DEFAULT '',
	updated_at  INTEGER NOT NULL
);`

// OpenJournal opens (creating if needed) the journal at path.
func OpenJournal(path string) (*SQLiteJournal, error) {
	db, err := sqlitedb.Open(path, journalSchema, sqlitedb.Options{})
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return &SQLiteJournal{db: db, path: path}, nil
}

// Close closes the journal file.
func (j *SQLiteJournal) Close() error { return j.db.Close() }

func (j *SQLiteJournal) Create(ctx context.Context, op Operation) (Operation, error) {
	if _, err := j.db.ExecContext(ctx,
		`INSERT INTO operations (id, key, payload, state, attempts, resource_id, updated_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		op.ID, op.Key, op.Payload, string(op.State), op.Attempts, op.ResourceID, op.UpdatedAt.UnixNano()); err != nil {
		return Operation{}, fmt.Errorf("journal %s: create operation %q: %w", j.path, op.ID, err)
	}
	return j.Load(ctx, op.ID)
}

func (j *SQLiteJournal) Load(ctx context.Context, id string) (Operation, error) {
	op := Operation{ID: id}
	var stored string
	var at int64
	err := j.db.QueryRowContext(ctx,
		`SELECT key, payload, state, attempts, resource_id, updated_at FROM operations WHERE id = ?`, id).
		Scan(&op.Key, &op.Payload, &stored, &op.Attempts, &op.ResourceID, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return Operation{}, fmt.Errorf("journal %s: operation %q: %w", j.path, id, ErrNoOperation)
	}
	if err != nil {
		return Operation{}, fmt.Errorf("journal %s: load operation %q: %w", j.path, id, err)
	}
	op.State, op.UpdatedAt = state.State(stored), time.Unix(0, at)
	return op, nil
}

func (j *SQLiteJournal) Update(ctx context.Context, op Operation) error {
	res, err := j.db.ExecContext(ctx,
		`UPDATE operations SET state = ?, attempts = ?, resource_id = ?, updated_at = ? WHERE id = ?`,
		string(op.State), op.Attempts, op.ResourceID, op.UpdatedAt.UnixNano(), op.ID)
	if err != nil {
		return fmt.Errorf("journal %s: update operation %q: %w", j.path, op.ID, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("journal %s: operation %q: %w", j.path, op.ID, ErrNoOperation)
	}
	return nil
}
