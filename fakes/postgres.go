package fakes

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/stdlib"
)

// The reference can keep its store in PostgreSQL (Options.DBPath a
// postgres:// URL): the same SQL, the same semantics (the primary key on
// tenant and key arbitrates, the first transaction wins), so several
// instances can share one database as real deployments do.

// IsPostgres reports whether a store names a PostgreSQL database.
func IsPostgres(store string) bool {
	return strings.HasPrefix(store, "postgres://") || strings.HasPrefix(store, "postgresql://")
}

var registerQmark sync.Once

// qmarkDriver is pgx with SQLite's "?" placeholders rewritten to $1, $2,
// ...: the fakes' statements are written once, for both stores. None of
// them holds a "?" inside a string literal.
type qmarkDriver struct{ driver.Driver }

func (d qmarkDriver) Open(dsn string) (driver.Conn, error) {
	c, err := d.Driver.Open(dsn)
	if err != nil {
		return nil, err
	}
	return qmarkConn{c.(*stdlib.Conn)}, nil
}

type qmarkConn struct{ *stdlib.Conn }

func (c qmarkConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c qmarkConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c qmarkConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

func rebind(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// openPostgres opens the store and creates the schema, written for
// SQLite, in PostgreSQL's types.
func openPostgres(dsn, ddl string) (*sql.DB, error) {
	registerQmark.Do(func() { sql.Register("pgx-qmark", qmarkDriver{stdlib.GetDefaultDriver()}) })
	db, err := sql.Open("pgx-qmark", dsn)
	if err != nil {
		return nil, fmt.Errorf("open the postgres store: %w", err)
	}
	// One connection, as with SQLite: a TEMP table (memory-records) lives
	// in the connection that made it.
	db.SetMaxOpenConns(1)
	ddl = strings.NewReplacer("BLOB", "BYTEA", "INTEGER", "BIGINT").Replace(ddl)
	for _, stmt := range strings.Split(ddl, ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := db.Exec(stmt); err != nil && !strings.Contains(err.Error(), "already exists") {
			db.Close()
			return nil, fmt.Errorf("create the schema in the postgres store: %w", err)
		}
	}
	return db, nil
}
