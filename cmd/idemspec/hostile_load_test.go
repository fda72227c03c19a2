package main_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A template that loops is refused by validate and run --dry-run, naming
// file, line and field, at once: run, {{range 100000000000}} would spin
// both until they were killed (a template runs outside --timeout and the
// signal handlers' reach: 734 s, measured, before a SIGKILL).
func TestLoopingTemplateIsRefusedAtOnce(t *testing.T) {
	f := filepath.Join(t.TempDir(), "loop.yaml")
	os.WriteFile(f, []byte(`base_url: http://127.0.0.1:1
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}{{range 100000000000}}{{end}}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`), 0o644)
	want := f + ":2: create.body: {{range 100000000000}}{{end}} is not part of a target file's templates"
	for _, args := range [][]string{{"validate", f}, {"run", "--dry-run", "--timeout", "10s", "--target", f}} {
		r := idemspec(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %s\nwant exit 2 and %q", args, r.code, r.stderr, want)
		}
	}
}

// Loading honours --timeout, SIGTERM and SIGINT: a --target that is a
// pipe nobody writes to holds the load, and each of them ends it with
// exit 2 and a sentence that says so.
func TestLoadingHonoursTimeoutAndSignals(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return p
	}
	r := idemspec(t, "run", "--dry-run", "--timeout", "1s", "--target", fifo("timeout.yaml"))
	if r.code != 2 || !strings.Contains(r.stderr, "took longer than --timeout 1s: nothing was sent") {
		t.Errorf("--timeout: exit %d, stderr %s", r.code, r.stderr)
	}
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		p := fifo(sig.String() + ".yaml")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, "run", "--report-dir", dir, "--target", p)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Opening the pipe to write succeeds once idemspec opened it to
		// read: it is loading, and reads nothing while w stays open.
		var w *os.File
		for w == nil && ctx.Err() == nil {
			f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err == nil {
				w = f
			} else if !errors.Is(err, syscall.ENXIO) {
				t.Fatal(err)
			} else {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if w == nil {
			t.Fatalf("%v: idemspec never opened the target", sig)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		w.Close()
		if ctx.Err() != nil {
			t.Fatalf("%v: idemspec kept loading", sig)
		}
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "interrupted while loading "+p) {
			t.Errorf("%v: %v, stderr %s", sig, err, stderr.String())
		}
	}
}

// --rate must be a number of requests per second: NaN passed the check
// for negatives and switched pacing off.
func TestRateMustBeANumber(t *testing.T) {
	for rate, want := range map[string]string{
		"NaN":  "--rate NaN: must be a number of requests per second",
		"Inf":  "--rate +Inf: must be a number of requests per second",
		"-Inf": "must not be negative",
		"-1":   "must not be negative",
	} {
		r := idemspec(t, "run", "--dry-run", "--target", "fake:reference", "--rate="+rate)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("--rate %s: exit %d, stderr %s", rate, r.code, r.stderr)
		}
	}
}
