package targets_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/internal/proc/proctest"
	"github.com/idemspec/idemspec/targets"
)

// Every command a target file names is stopped at its timeout, whatever
// it does, and leaves nothing behind: one that ignores SIGTERM, and one
// that double-forks out of its group and session.
func TestCommandsAreBoundedAndLeaveNothing(t *testing.T) {
	health := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer health.Close()
	kinds := []struct {
		name string
		// file is the target file's command section for a shell line.
		file func(line string) string
		do   func(context.Context, *targets.Target) error
	}{
		{"oracle.command", func(line string) string {
			return fmt.Sprintf("base_url: %s\ncreate: {path: /r, body: '{\"m\":\"{{.Marker}}\",\"v\":{{.Variant}}}', id_field: id}\noracle:\n  command: {run: %q, timeout: 300ms}\n", health.URL, line)
		}, func(ctx context.Context, t *targets.Target) error {
			_, err := t.Oracle.Observe(ctx, "m")
			return err
		}},
		{"cleanup.command", func(line string) string {
			return fmt.Sprintf("base_url: %s%scleanup: {command: %q, timeout: 300ms}\n", health.URL, sections, line)
		}, func(ctx context.Context, t *targets.Target) error {
			_, err := t.RunCleanup(ctx, "run", []string{"m"}, nil)
			return err
		}},
		{"restart.command", func(line string) string {
			return fmt.Sprintf("base_url: %s%srestart: {command: %q, timeout: 300ms}\n", health.URL, sections, line)
		}, func(ctx context.Context, t *targets.Target) error {
			return t.Lifecycle.(targets.Restarter).Restart(ctx)
		}},
	}
	for _, k := range kinds {
		for _, h := range proctest.Hostiles() {
			t.Run(k.name+"/"+h.Name, func(t *testing.T) {
				t.Parallel()
				// After the hostile part the shell overruns, deaf to SIGTERM.
				tg, err := targets.Parse("t.yaml", file(k.file(h.Line+"trap '' TERM; sleep 999")))
				if err != nil {
					t.Fatal(err)
				}
				defer tg.Close()
				start := time.Now()
				err = k.do(context.Background(), tg)
				if took := time.Since(start); !proctest.Stopped(took) {
					t.Errorf("took %v: the command was not stopped at its 300ms timeout", took)
				}
				if err == nil || !strings.Contains(err.Error(), k.name+": did not finish within 300ms") {
					t.Errorf("error %v, want %s: did not finish within 300ms", err, k.name)
				}
				if left := proctest.GoneSoon(h.Sleep); len(left) > 0 {
					t.Errorf("pids %v still run %q", left, h.Sleep)
				}
			})
		}
	}
}

// A command that succeeds at once but double-forked a child leaves
// nothing behind either (a restart hook excepted: what it started is the
// target it restarted).
func TestFinishedCommandsLeaveNothing(t *testing.T) {
	h := proctest.Hostiles()[1]
	tg, err := targets.Parse("t.yaml", file(oracleBase+fmt.Sprintf("  command: {run: %q}\n", h.Line+"echo 2")))
	if err != nil {
		t.Fatal(err)
	}
	obs, err := tg.Oracle.Observe(context.Background(), "m")
	if err != nil || obs.Count != 2 {
		t.Errorf("observed %+v, %v: want 2", obs, err)
	}
	if left := proctest.GoneSoon(h.Sleep); len(left) > 0 {
		t.Errorf("pids %v still run %q", left, h.Sleep)
	}
}

// A managed process that ignores SIGTERM and double-forked a child is
// stopped whole: the child that left its group and session too.
func TestProcessStopReapsDescendantsThatLeftTheGroup(t *testing.T) {
	for _, h := range proctest.Hostiles() {
		t.Run(h.Name, func(t *testing.T) {
			dir := t.TempDir()
			tg, _ := processTarget(t, h.Line+"trap '' TERM; while :; do sleep 1; done", "")
			startServed(t, tg, dir)
			start := time.Now()
			if err := tg.Close(); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); !proctest.Stopped(took) {
				t.Errorf("Stop took %v: the process was not stopped", took)
			}
			if left := proctest.GoneSoon(h.Sleep); len(left) > 0 {
				t.Errorf("pids %v still run %q after Stop", left, h.Sleep)
			}
		})
	}
}
