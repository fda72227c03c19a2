package fakes

import (
	"context"
	"database/sql"
	"time"
)

// The record-after-answer mutant: some middlewares send the answer first
// and store the key's record afterwards, asynchronously, through a hook
// on the send function. While the process lives, the stored answer is
// served from memory, so a retry sees nothing wrong; a stop right after
// the answer loses the write, and the key stays "in flight" in the
// database for the whole in-progress timeout.

// recordDelay is how long after the answer the record is written. A
// graceful stop does not wait for it.
const recordDelay = 150 * time.Millisecond

// answerThenRecord does the work and commits the resource, answers, and
// completes the key record recordDelay later in the background.
func (s *Server) answerThenRecord(ctx context.Context, tenant, key string, lockedAt int64, body []byte) answer {
	s.work(key)
	a, err := s.commitResource(ctx, tenant, body)
	if err != nil {
		return s.finish(ctx, tenant, key, lockedAt, a, err)
	}
	rec, _ := s.loadRecord(ctx, tenant, key)
	rec.State, rec.ResourceID, rec.Status, rec.Body, rec.Location = stateComplete, a.id, a.status, a.body, a.location
	id := [2]string{tenant, key}
	s.mu.Lock()
	s.behind[id] = rec
	s.mu.Unlock()
	go func() {
		// A stopped server's database is closed, a killed one refuses
		// writes: either way the record is lost.
		time.Sleep(recordDelay)
		s.write(context.Background(), func(tx *sql.Tx) error {
			return complete(context.Background(), tx, tenant, key, lockedAt, a)
		})
		s.mu.Lock()
		delete(s.behind, id)
		s.mu.Unlock()
	}()
	return a.answer
}

// loadRecord reads the key's record: the one in memory that the
// record-after-answer mutant has not stored yet, or the database's.
func (s *Server) loadRecord(ctx context.Context, tenant, key string) (record, error) {
	s.mu.Lock()
	rec, ok := s.behind[[2]string{tenant, key}]
	s.mu.Unlock()
	if ok {
		return rec, nil
	}
	return loadRecord(ctx, s.db, tenant, key)
}
