package sqlitedb

import (
	"context"
	"database/sql/driver"
	"errors"
	"sync"
)

// The driver compiles the SQL of every db.QueryContext and
// db.ExecContext anew, and the fakes run a handful of statements
// thousands of times a run: compiling them was an eighth of a property
// search's CPU. A connection here keeps each statement it compiled
// (those with arguments: a schema's DDL runs once, and may hold several
// statements) and runs it again; SQLite resets a statement after each
// run, so a kept one answers exactly as a fresh one would.

// connector opens the driver's connections and wraps each in a stmtConn.
type connector struct {
	d   driver.Driver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.d.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &stmtConn{Conn: conn, kept: map[string]*keptStmt{}}, nil
}

func (c connector) Driver() driver.Driver { return c.d }

// keptStmt is a compiled statement and whether rows of it are still
// open: a transaction may query again before it closes them, and that
// query gets a statement of its own.
type keptStmt struct {
	driver.Stmt
	busy bool
}

// stmtConn is one driver connection with the statements it compiled.
// database/sql uses a connection from one goroutine at a time; the
// mutex covers rows closed from another.
type stmtConn struct {
	driver.Conn
	mu   sync.Mutex
	kept map[string]*keptStmt
}

// take returns the kept statement for query, compiling it the first
// time, or, while the kept one is busy, a statement used once; done
// frees the one or closes the other.
func (c *stmtConn) take(ctx context.Context, query string) (s driver.Stmt, done func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, kept := c.kept[query]
	if kept && !k.busy {
		k.busy = true
		return k.Stmt, c.free(k), nil
	}
	if s, err = c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query); err != nil {
		return nil, nil, err
	}
	if kept {
		return s, func() { s.Close() }, nil
	}
	k = &keptStmt{Stmt: s, busy: true}
	c.kept[query] = k
	return s, c.free(k), nil
}

// free makes k ready for the next query of its text.
func (c *stmtConn) free(k *keptStmt) func() {
	return func() {
		c.mu.Lock()
		k.busy = false
		c.mu.Unlock()
	}
}

func (c *stmtConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) == 0 {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	s, done, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	defer done()
	return s.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *stmtConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) == 0 {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	s, done, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := s.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		done()
		return nil, err
	}
	return &stmtRows{Rows: rows, done: done}, nil
}

func (c *stmtConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *stmtConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *stmtConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *stmtConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *stmtConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// Close finalizes the kept statements, then closes the connection.
func (c *stmtConn) Close() error {
	c.mu.Lock()
	var errs []error
	for q, k := range c.kept {
		errs = append(errs, k.Close())
		delete(c.kept, q)
	}
	c.mu.Unlock()
	return errors.Join(append(errs, c.Conn.Close())...)
}

// stmtRows frees its statement for the next query when closed.
type stmtRows struct {
	driver.Rows
	once sync.Once
	done func()
}

func (r *stmtRows) Close() error {
	err := r.Rows.Close()
	r.once.Do(r.done)
	return err
}
