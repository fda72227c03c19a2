package harness

import (
	"context"
	"time"

	"github.com/idemspec/idemspec/harness/history"
)

// directName names, in histories, requests sent straight to the target
// rather than through a proxy lane.
const directName = "direct"

// Lookup asks the target what it knows about key (its look-up path) and
// records the exchange. Look-ups go straight to the target: they are the
// judge's reads, never meant to see a fault. A request that could not be
// sent is Failed; a look-up changes nothing, so there is no maybe.
func (e *Env) Lookup(ctx context.Context, h *history.History, step, key string) history.Exchange {
	x := history.Exchange{Step: step, Key: key, Lane: directName, Start: time.Now()}
	ctx, cancel := context.WithTimeout(ctx, e.Settings.RequestTimeout)
	defer cancel()
	status, body, err := e.Target.LookupKey(ctx, key)
	x.Duration = time.Since(x.Start)
	if err != nil {
		x.Outcome, x.Error = history.Failed, err.Error()
	} else {
		x.Outcome, x.Status = history.OK, status
		if len(body) > bodyKept {
			body = body[:bodyKept]
		}
		x.Body = string(body)
	}
	e.record(h, &x)
	return x
}
