package main_test

import (
	"bufio"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/internal/testenv"
)

var databases atomic.Int64

// freshDatabase creates an empty database for one test and drops it after.
func freshDatabase(t *testing.T, dsn string) string {
	t.Helper()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	// Tests make theirs side by side, and two test runs may share the
	// server: the clock, the process and a count keep names apart.
	name := fmt.Sprintf("idemspec_%d_%d_%d", time.Now().UnixNano(), os.Getpid(), databases.Add(1))
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE " + name + " WITH (FORCE)")
		admin.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// serveOn starts `idemspec serve --store` and returns its URL.
func serveOn(t *testing.T, store, mutant string) string {
	t.Helper()
	return serve(t, "--store", store, "--mutant", mutant)
}

// serve starts `idemspec serve` with args on a free loopback port and
// returns its URL; the process is stopped (SIGINT, by its pid) when the
// test ends.
func serve(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(testenv.WaitLimit):
			cmd.Process.Kill()
		}
	})
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if m := listening.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(testenv.WaitLimit):
		t.Fatalf("idemspec serve %v did not start: %s", args, stderr.String())
	}
	return ""
}

// TestTwoPostgresInstances runs the suite against two `idemspec serve`
// instances sharing one PostgreSQL database: the reference passes every
// check it can run, and per-process-lock (right on one instance) fails
// S4, as its entry's Multi says.
func TestTwoPostgresInstances(t *testing.T) {
	long(t)
	t.Parallel()
	dsn := testenv.Postgres(t)
	for _, name := range []string{fakes.Reference, "per-process-lock"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := serverMutant(t, name)
			m.Catches = append(slices.Clone(m.Catches), mutant.Checks(m.Multi...)...)
			store := freshDatabase(t, dsn)
			first := serveOn(t, store, name)
			second := serveOn(t, store, name)
			file := writeFile(t, "pg.yaml", fmt.Sprintf(`
name: two-postgres-instances
base_url: %s
instances: [%s]
%soracle:
  list: {path: "/resources?marker={{.Marker}}", items: items}
lookup: {path: "/idempotency-keys/{{.Key}}"}
fail_trigger: {header: X-Idemspec-Fail, value: "503"}
tenants:
  - {name: a, headers: {Authorization: Bearer pg-a}}
  - {name: b, headers: {Authorization: Bearer pg-b}}
`, first, second, createAndList))
			runs := 3
			for i := 0; i < runs; i++ {
				r := run(t, "--target", file)
				expectDetection(t, m, r, fmt.Sprintf("run %d of %d", i+1, runs))
				if want := wantExit(t, m); r.code != want {
					t.Fatalf("run %d: exit %d, want %d\n%s%s", i+1, r.code, want, r.stdout, r.stderr)
				}
			}
		})
	}
}

// TestPostgresAction drives the reference's action on a parent (events
// appended to a resource that setup makes) against two `idemspec serve`
// instances sharing PostgreSQL: the events' schema and queries hold
// there as in SQLite, the reference passes, and ignore-payload fails every
// check its entry lists.
func TestPostgresAction(t *testing.T) {
	long(t)
	t.Parallel()
	dsn := testenv.Postgres(t)
	for _, name := range []string{fakes.Reference, "ignore-payload"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := serverMutant(t, name)
			store := freshDatabase(t, dsn)
			first, second := serveOn(t, store, name), serveOn(t, store, name)
			file := writeFile(t, "pg-action.yaml", fmt.Sprintf(`
name: postgres-action
base_url: %s
instances: [%s]
setup:
  - {name: parent, path: /resources, body: '{"marker":"{{.Marker}}","amount":0}', headers: {Idempotency-Key: "{{.Key}}"}}
create: {path: "/resources/{{.Setup.parent.id}}/events", body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}', id_field: id}
oracle:
  list: {path: "/resources/{{.Setup.parent.id}}/events?marker={{.Marker}}", items: items}
lookup: {path: "/idempotency-keys/{{.Key}}"}
fail_trigger: {header: X-Idemspec-Fail, value: "503"}
tenants:
  - {name: a, headers: {Authorization: Bearer pg-a}}
  - {name: b, headers: {Authorization: Bearer pg-b}}
`, first, second))
			r := run(t, "--target", file, "--label-filter", "!property")
			expectDetection(t, withoutProperties(m), r, "the action on PostgreSQL")
			if want := wantExit(t, withoutProperties(m)); r.code != want {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, want, r.stdout, r.stderr)
			}
		})
	}
}
