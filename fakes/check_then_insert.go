package fakes

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// The check-then-insert mutants dedupe by look-up: a read decides, and
// the insert that follows has no unique constraint to lose against, so
// concurrent requests with one key race through the gap between the two.

// checkThenInsert replaces the reference's claim (and the primary key
// that arbitrates it) with a look-up followed by an insert.
func checkThenInsert(s *Server) {
	s.steps.schema = withoutKeyConstraint(s.steps.schema)
	s.steps.once = s.lookThenInsert
}

// perProcessLock is check-then-insert made safe for one process only: an
// in-process mutex serializes the look-up and the insert, so one instance
// is right, and two sharing a database race.
func perProcessLock(s *Server) {
	s.steps.schema = withoutKeyConstraint(s.steps.schema)
	var lock sync.Mutex
	s.steps.once = func(ctx context.Context, q request) answer {
		lock.Lock()
		defer lock.Unlock()
		return s.lookThenInsert(ctx, q)
	}
}

func withoutKeyConstraint(ddl string) string {
	return editSchema(ddl, ",\n\tPRIMARY KEY (tenant, key)", "")
}

// lookThenInsert answers from the key's record if there is one, and
// otherwise does the work and inserts the resource and a completed record.
func (s *Server) lookThenInsert(ctx context.Context, q request) answer {
	rec, err := s.steps.record(ctx, q.tenant, q.key)
	if err == nil {
		if a, done := s.answerExisting(rec, q.hash); done {
			return a
		}
	} else if !errors.Is(err, errNoRecord) {
		return serverError(err)
	}
	s.work(q.key)
	var a created
	err = s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if a, err = insertResource(ctx, tx, q.tenant, q.parent, q.body); err != nil {
			return err
		}
		now := time.Now().UnixNano()
		_, err = tx.ExecContext(ctx,
			`INSERT INTO idempotency_keys (tenant, key, request_hash, state, locked_at, resource_id, status, body, location, created_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			q.tenant, q.key, q.hash, stateComplete, now, a.id, a.status, a.body, a.location, now)
		return err
	})
	return s.committed(a, err)
}
