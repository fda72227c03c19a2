package fakes

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"
)

var (
	// errKilled refuses a write from a handler of a killed server.
	errKilled = errors.New("the server was killed")
	// errStopped refuses a background write of a stopping server.
	errStopped = errors.New("the server is stopping")
	// errLostClaim rolls back work whose claim another request took over.
	errLostClaim = errors.New("the claim on the key was taken over")
)

// crashHold bounds how long a handler stopped at an armed crash point
// waits for the kill before it carries on.
const crashHold = 10 * time.Second

// write runs fn in one transaction, all or nothing, unless the server
// was killed, or is stopping and no request is in flight (the write is
// a background task's, which the stop does not wait for). The kill cannot land inside a transaction (a SIGKILL there
// would roll it back, which is the same as landing just before it).
func (s *Server) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.life.RLock()
	defer s.life.RUnlock()
	if s.killed {
		return errKilled
	}
	if s.stopping.Load() && s.busy.Load() == 0 {
		return errStopped
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// oneRow turns "the update matched no row" into errLostClaim.
func oneRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errLostClaim
	}
	return nil
}

// kill is the in-process SIGKILL: from now on no handler of this server
// writes to the database. The caller then closes the listener and every
// connection, and only then calls release, so that handlers held at a
// crash point wake to find nobody to answer.
func (s *Server) kill() {
	s.life.Lock()
	defer s.life.Unlock()
	s.killed = true
}

// release wakes the handlers held at a crash point of a killed server.
func (s *Server) release() {
	s.life.Lock()
	defer s.life.Unlock()
	select {
	case <-s.dead:
	default:
		close(s.dead)
	}
}

// Killed reports whether the server was killed.
func (s *Server) Killed() bool {
	s.life.RLock()
	defer s.life.RUnlock()
	return s.killed
}

// CrashPoint arms a crash point for key: the next handler that works on
// key signals on the returned channel once it is inside its work (after
// its claim, before its answer is stored) and holds there until the
// server is killed, so a crash lands exactly there, however busy the
// machine is. It is the fakes' failpoint for the crash-mid-request check.
func (s *Server) CrashPoint(key string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	point, ok := s.crashPoints[key]
	if !ok {
		point = make(chan struct{})
		s.crashPoints[key] = point
	}
	return point
}

// work is the handler's work time (Delay), or an armed crash point.
func (s *Server) work(key string) {
	if s.opts.WorkLog != nil {
		fmt.Fprintf(s.opts.WorkLog, "work key=%q\n", key)
	}
	s.mu.Lock()
	point, armed := s.crashPoints[key]
	delete(s.crashPoints, key)
	s.mu.Unlock()
	if !armed {
		Work(s.opts.Delay)
		return
	}
	close(point)
	select {
	case <-s.dead:
	case <-time.After(crashHold):
		Work(s.opts.Delay)
	}
}

// counted counts the handlers running, for a stop's rule on writes.
func (s *Server) counted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.busy.Add(1)
		defer s.busy.Add(-1)
		h.ServeHTTP(w, r)
	})
}
