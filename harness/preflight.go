package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemspec/idemspec/harness/history"
)

// PreflightCreate sends one create of the harness's own, with a fresh
// key and payload, before any check. A target that refuses it (a 4xx:
// a wrong create.path or method, a body the API rejects, missing
// credentials) would fail every check for a reason that is not
// idempotency, so the run stops with one plain error instead. The
// resource it creates carries a run marker, so the cleanup removes it.
func (e *Env) PreflightCreate(ctx context.Context) error {
	marker := e.NewMarker("preflight")
	body, err := e.Body(marker, "1")
	if err != nil {
		return err
	}
	x := e.Send(ctx, &history.History{}, Attempt{Step: "preflight create", Lane: e.Clean, Key: e.NewKey(), Body: body, Variant: "1"})
	switch {
	case x.Outcome != history.OK:
		return fmt.Errorf("the target did not answer the harness's first create (%s %s): %s", e.Target.Create.Method, e.Target.Create.Path, x.Error)
	case x.Status >= 400 && x.Status < 500:
		return fmt.Errorf("the target refused the create itself: check create.path/body (%s %s answered %d%s)",
			e.Target.Create.Method, e.Target.Create.Path, x.Status, quoteStart(x.Body))
	case x.Status >= 200 && x.Status < 300 && e.Target.ResourceID([]byte(x.Body)) == "":
		// Every check would read no id and blame the API (S1 FAILed):
		// the file names a field the answers do not have.
		return fmt.Errorf("create.id_field %q is not in the target's answer to the harness's first create, a %d: check create.id_field (%s %s answered%s)",
			e.Target.Create.IDField, x.Status, e.Target.Create.Method, e.Target.Create.Path, or(quoteStart(x.Body), " with no body"))
	}
	return nil
}

// quoteStart quotes the start of an answer for an error message.
func quoteStart(body string) string {
	body = strings.TrimSpace(body)
	if body == "" {
		return ""
	}
	if len(body) > 200 {
		body = body[:200] + "..."
	}
	return fmt.Sprintf(": %q", body)
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
