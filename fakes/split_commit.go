package fakes

import (
	"context"
	"database/sql"
)

// splitCommit is the split-commit mutant's execute: the resource is
// committed on its own, the work goes on, and the key record is completed
// in a second transaction. A crash between the two leaves a resource
// behind an in-flight claim, and the retry that takes the claim over
// creates another.
func (s *Server) splitCommit(ctx context.Context, c claim) answer {
	a, err := s.commitResource(ctx, c.tenant, c.parent, c.body)
	if err != nil {
		return s.finish(ctx, c, a, err)
	}
	s.work(c.key)
	return s.committed(a, s.write(ctx, func(tx *sql.Tx) error {
		return complete(ctx, tx, c, a)
	}))
}

// commitResource creates the resource in a transaction of its own,
// without touching the key record (the mutants that split the two).
func (s *Server) commitResource(ctx context.Context, tenant, parent string, body []byte) (created, error) {
	var a created
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = insertResource(ctx, tx, tenant, parent, body)
		return err
	})
	return a, err
}
