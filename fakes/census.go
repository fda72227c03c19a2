package fakes

import (
	"context"
	"database/sql"

	"github.com/idemspec/idemspec/harness/upstream"
)

// Owned is one resource as the server's database holds it.
type Owned = upstream.Owned

// Census lists every resource carrying marker, of every tenant,
// top-level ones and events alike, from the database itself. Client
// mode owns the server it runs, so it counts what a client's job made
// from the ground truth, whichever token the client sent and whichever
// step made it.
func (in *Instance) Census(ctx context.Context, marker string) ([]Owned, error) {
	s := in.current()
	if s == nil {
		return nil, nil
	}
	return census(ctx, s.db, marker)
}

func census(ctx context.Context, db *sql.DB, marker string) ([]Owned, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, tenant, parent FROM resources WHERE marker = ? ORDER BY created_at, id`, marker)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Owned
	for rows.Next() {
		var o Owned
		if err := rows.Scan(&o.ID, &o.Tenant, &o.Parent); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
