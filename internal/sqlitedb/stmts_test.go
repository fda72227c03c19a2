package sqlitedb

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "t.db"), `CREATE TABLE r (id TEXT PRIMARY KEY, n INTEGER); CREATE TABLE s (x TEXT)`, Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A kept statement answers as a fresh one: new arguments each run, a
// constraint's error and the run after it, and a query of the same text
// while rows of it are still open in a transaction.
func TestKeptStatementsAnswerAsFreshOnes(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	const insert = `INSERT INTO r (id, n) VALUES (?, ?)`
	for i, id := range []string{"a", "b", "c"} {
		if _, err := db.ExecContext(ctx, insert, id, i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, insert, "a", 9); err == nil || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("a second id a: %v, want the unique constraint's error", err)
	}
	if _, err := db.ExecContext(ctx, insert, "d", 3); err != nil {
		t.Fatalf("the run after an error: %v", err)
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const above = `SELECT id FROM r WHERE n >= ? ORDER BY id`
	outer, err := tx.QueryContext(ctx, above, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for outer.Next() {
		var id string
		if err := outer.Scan(&id); err != nil {
			t.Fatal(err)
		}
		// The same text again while the outer rows are open.
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM r WHERE n >= ? ORDER BY id`, 0).Scan(&n); err != nil {
			t.Fatal(err)
		}
		var inner []string
		rows, err := tx.QueryContext(ctx, above, 2)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			inner = append(inner, s)
		}
		rows.Close()
		if strings.Join(inner, ",") != "c,d" || n != 4 {
			t.Fatalf("inside the outer rows: %v and %d, want c,d and 4", inner, n)
		}
		got = append(got, id)
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "b,c,d" {
		t.Fatalf("outer rows %v, want b,c,d", got)
	}
	// Kept, the statement runs again once its rows are closed.
	var first string
	if err := tx.QueryRowContext(ctx, above, 3).Scan(&first); err != nil || first != "d" {
		t.Fatalf("after the rows closed: %q %v, want d", first, err)
	}
}

// A statement with no arguments runs through the driver as given, so a
// schema's several statements all run.
func TestStatementsWithoutArgumentsRunWhole(t *testing.T) {
	db := open(t)
	if _, err := db.Exec(`INSERT INTO s VALUES ('x'); INSERT INTO s VALUES ('y')`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM s`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d rows (%v), want 2", n, err)
	}
}

// Each query text is compiled once per connection, however often it runs.
func TestAStatementIsCompiledOnce(t *testing.T) {
	db := open(t)
	for i := 0; i < 20; i++ {
		if _, err := db.Exec(`INSERT INTO s VALUES (?)`, i); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(*stmtConn)
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.kept) != 1 {
			t.Errorf("%d statements kept, want 1", len(c.kept))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
