package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"modernc.org/sqlite" // pure-Go SQLite driver: no cgo on CI machines or for library users
)

// Options tune Open beyond its defaults.
type Options struct {
	// MaxOpenConns, when positive, caps the pool before the schema is
	// created: a TEMP table lives in the one connection that made it.
	MaxOpenConns int
	// Pragmas are added to the defaults, e.g. "temp_store(memory)".
	Pragmas []string
}

// Open opens (creating if needed) the SQLite file at path and runs ddl.
// Writes take the lock up front (BEGIN IMMEDIATE) so two writers never
// deadlock on a lock upgrade; WAL with synchronous=FULL makes a commit
// durable before it returns; a busy file makes a writer wait, not fail.
func Open(path, ddl string, o Options) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("database directory: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "busy_timeout(10000)")
	for _, p := range o.Pragmas {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	// Each connection keeps the statements it compiled (stmts.go).
	db := sql.OpenDB(connector{d: &sqlite.Driver{}, dsn: "file:" + path + "?" + q.Encode()})
	if o.MaxOpenConns > 0 {
		db.SetMaxOpenConns(o.MaxOpenConns)
	}
	if _, err := db.ExecContext(context.Background(), ddl); err != nil {
		db.Close()
		return nil, fmt.Errorf("create schema in %s: %w", path, err)
	}
	return db, nil
}
