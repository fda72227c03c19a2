package fakes

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/idemspec/idemspec/targets"
)

// FailHeader makes a fake fail a create on purpose, so the harness can
// watch what a target does with a failed first attempt (K6). Its value
// is the status to fail with (500-599; other values are ignored). The
// failure strikes after the resource row was written inside the work
// transaction and before the commit, as a dependency outage would: the
// reference rolls it back, so the failed attempt takes no effect.
const FailHeader = targets.ReferenceFailHeader

type failureKey struct{}

// failure is the error an injected failure raises.
type failure struct{ status int }

func (f failure) Error() string {
	return fmt.Sprintf("injected failure (%s: %d)", FailHeader, f.status)
}

// withFailure marks ctx to fail its create with the header's status.
func withFailure(ctx context.Context, header string) context.Context {
	status, err := strconv.Atoi(header)
	if err != nil || status < 500 || status > 599 {
		return ctx
	}
	return context.WithValue(ctx, failureKey{}, failure{status: status})
}

// injectedFailure is the failure ctx asks for, or nil.
func injectedFailure(ctx context.Context) error {
	if f, ok := ctx.Value(failureKey{}).(failure); ok {
		return f
	}
	return nil
}

// finish answers a claimed request whose work was written with err. An
// injected failure ends the claim by the convention: the failure is
// stored and replayed to retries, or the claim is released so a retry
// runs afresh. Either way the key never stays stuck in flight.
func (s *Server) finish(ctx context.Context, c claim, a created, err error) answer {
	var f failure
	if !errors.As(err, &f) {
		return s.committed(a, err)
	}
	failed := serverError(f)
	err = s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if s.conv.StoreFailures {
			_, err = tx.ExecContext(ctx,
				`UPDATE idempotency_keys SET state = ?, status = ?, body = ?
				  WHERE tenant = ? AND key = ? AND state = ? AND locked_at = ?`,
				stateComplete, failed.status, failed.body, c.tenant, c.key, stateInFlight, c.lockedAt)
		} else {
			_, err = tx.ExecContext(ctx,
				`DELETE FROM idempotency_keys WHERE tenant = ? AND key = ? AND state = ? AND locked_at = ?`,
				c.tenant, c.key, stateInFlight, c.lockedAt)
		}
		return err
	})
	if err != nil {
		return serverError(err)
	}
	return failed
}
