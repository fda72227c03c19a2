package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/internal/fakename"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/targets"
)

// maxWait bounds --wait: a service that has not answered in this long is
// not starting, it is down.
const maxWait = 10 * time.Minute

// Preflight timing: each try of the target's first read is bounded, and
// tries under --wait are spaced so a starting service is not hammered.
const (
	preflightTimeout = 5 * time.Second
	waitInterval     = 500 * time.Millisecond
)

// preflight makes sure the target answers before the first check: the
// oracle's read, tried until it answers or wait has passed (a CI service
// container may still be starting), then one create of the harness's own.
func preflight(ctx context.Context, env *harness.Env, wait time.Duration, stdout io.Writer) error {
	deadline := time.Now().Add(wait)
	for try := 1; ; try++ {
		pctx, cancel := context.WithTimeout(ctx, preflightTimeout)
		err := env.Preflight(pctx)
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return errors.New("interrupted while waiting for the target")
		}
		left := time.Until(deadline)
		if left <= 0 || !notAnswering(err) {
			if wait > 0 {
				return fmt.Errorf("%w (still, after waiting %s; %d tries)", err, wait, try)
			}
			return err
		}
		if try == 1 {
			fmt.Fprintf(stdout, "idemspec: the target does not answer yet; waiting up to %s\n", wait)
		}
		select {
		case <-ctx.Done():
			return errors.New("interrupted while waiting for the target")
		case <-time.After(min(waitInterval, left)):
		}
	}
	pctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	return env.PreflightCreate(pctx)
}

// notAnswering says whether the target's first read failed as a service
// that is not up yet fails: no connection, no answer, or a 5xx. Any other
// answer is the target's last word, and waiting would not change it.
func notAnswering(err error) bool {
	var status targets.StatusError
	if errors.As(err, &status) {
		return status.Transient()
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// notRun ends a run that stopped before its first check. Unless it was a
// dry run, and when the target is known (or its file at least names it),
// the four reports say why, one ERROR per selected check, so CI has a
// junit.xml to show; the exit code is 2 either way.
func (f *runFlags) notRun(l *lifecycle, t *targets.Target, runID string, cause error, stdout, stderr io.Writer) int {
	meta := reports.Meta{Version: buildVersion(), RunID: runID, LabelFilter: f.labelFilter, Strict: f.strict}
	switch {
	case t != nil:
		meta.Target, meta.Shard = reportTarget(t), f.slice(t)
		for _, o := range t.Operations {
			meta.Operations = append(meta.Operations, o.Operation)
		}
	case !fakename.Is(f.target):
		if s, ok := targets.SketchFile(f.target); ok {
			meta.Target = reports.Target{Name: s.Name, Source: f.target, BaseURL: s.BaseURL}
		}
	}
	if f.dryRun {
		meta.Target = reports.Target{} // a dry run writes nothing
	}
	return l.notRun(meta, false, f.reportDir, cause, stdout, stderr)
}

// reportTarget is how the reports describe t: with the digest of its
// file, by which a merge tells shards of one target file.
func reportTarget(t *targets.Target) reports.Target {
	r := reports.Target{
		Name: t.Name, Source: t.Source, BaseURL: t.BaseURL.String(),
		Profile: t.Profile.Name, Oracle: t.Oracle.Kind(), OracleEvidence: targets.EvidenceOf(t),
	}
	if !fakename.Is(t.Source) {
		if b, err := os.ReadFile(t.Source); err == nil {
			r.Digest = fmt.Sprintf("%x", sha256.Sum256(b))
		}
	}
	return r
}

// slice is the run's shard of t's suite (nil: --shard was not given;
// the flag refused a malformed one as it was set).
func (f *runFlags) slice(t *targets.Target) *reports.Shard {
	s, err := reports.ParseShard(f.shard)
	if f.shard == "" || err != nil {
		return nil
	}
	var ops []string
	for _, o := range t.Each() {
		ops = append(ops, o.Operation)
	}
	s = scenarios.SliceSuite(s, ops)
	return &s
}
