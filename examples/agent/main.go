package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
	"github.com/idemspec/idemspec/internal/fakename"
	"github.com/idemspec/idemspec/targets"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	target, journal, op, marker, variant string
	policy                               retry.Policy
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o := options{policy: retry.DefaultPolicy()}
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.target, "target", "", "target file (or fake:NAME for a built-in fake, for a demo)")
	fs.StringVar(&o.journal, "journal", "agent-journal.db", "the SQLite journal that survives restarts")
	fs.StringVar(&o.op, "op", "", "the operation's id: the same id resumes the same operation")
	fs.StringVar(&o.marker, "marker", "", "the {{.Marker}} of the create body (default: the operation's id)")
	fs.StringVar(&o.variant, "variant", "1", "the {{.Variant}} of the create body")
	fs.IntVar(&o.policy.MaxAttempts, "attempts", o.policy.MaxAttempts, "most create requests in this run")
	fs.DurationVar(&o.policy.AttemptTimeout, "timeout", o.policy.AttemptTimeout, "bound on one request")
	fs.DurationVar(&o.policy.Deadline, "deadline", o.policy.Deadline, "bound on this run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.target == "" || o.op == "" {
		fmt.Fprintln(stderr, "agent: --target and --op are required")
		return 2
	}
	if o.marker == "" {
		o.marker = o.op
	}
	res, err := create(ctx, o, stderr)
	if err != nil && res.Key == "" {
		fmt.Fprintln(stderr, "agent:", err)
		return 2
	}
	out := json.NewEncoder(stdout)
	out.SetIndent("", "  ")
	out.Encode(res)
	if err != nil {
		fmt.Fprintln(stderr, "agent:", err)
	}
	if res.State != state.Succeeded {
		return 1
	}
	return 0
}

// create runs the operation to an end state.
func create(ctx context.Context, o options, stderr io.Writer) (retry.Result, error) {
	t, err := fakename.Load(o.target)
	if err != nil {
		return retry.Result{}, err
	}
	defer t.Close()
	body, err := t.Body(targets.Payload{Marker: o.marker, Variant: o.variant})
	if err != nil {
		return retry.Result{}, err
	}
	j, err := retry.OpenJournal(o.journal)
	if err != nil {
		return retry.Result{}, err
	}
	defer j.Close()
	// No client timeout: the retrying client bounds every request, and
	// never a redirect: a create answered 3xx is for the client to judge.
	doer := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer doer.CloseIdleConnections()
	client, err := harness.ReferenceClient(harness.ClientSetup{
		Target: t, Create: doer, Reconcile: doer, Journal: j, Policy: o.policy, Marker: o.marker,
	})
	if err != nil {
		return retry.Result{}, err
	}
	if t.Reconcile == targets.ReconcileNone {
		fmt.Fprintf(stderr, "agent: warning: %s declares no way to reconcile; an unknown outcome can only be resubmitted with the same key\n", t.Name)
	}
	res, err := client.Submit(ctx, o.op, body)
	if errors.Is(err, context.Canceled) {
		// Interrupted: the journal says where the operation stands.
		return res, fmt.Errorf("interrupted after %v: run again with --op %s to resume", time.Since(res.Started).Round(time.Millisecond), o.op)
	}
	return res, err
}
