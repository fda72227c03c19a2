package targets_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/idemspec/idemspec/targets"
)

const oracleBase = `
base_url: http://127.0.0.1:1
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle:
`

func TestSQLOracleCountsRows(t *testing.T) {
	db := filepath.Join(t.TempDir(), "o.db")
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(`CREATE TABLE r (id INTEGER, marker TEXT); INSERT INTO r VALUES (7, 'm1'), (8, 'm1'), (9, 'm2')`); err != nil {
		t.Fatal(err)
	}
	t.Setenv("IDEMSPEC_TEST_DSN", "file:"+db)
	tg, err := targets.Parse("t.yaml", file(oracleBase+"  sql: {driver: sqlite, dsn: '${IDEMSPEC_TEST_DSN}', query: 'SELECT id FROM r WHERE marker = ?'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	obs, err := tg.Oracle.Observe(context.Background(), "m1")
	if err != nil || obs.Count != 2 || !slices.Equal(obs.IDs, []string{"7", "8"}) {
		t.Errorf("observed %+v, %v: want 2 rows, ids 7 and 8", obs, err)
	}
	if tg.Oracle.Kind() != "sql" || !strings.Contains(targets.Evidence(tg.Oracle), "strongest") {
		t.Errorf("kind %q, evidence %q", tg.Oracle.Kind(), targets.Evidence(tg.Oracle))
	}
	if !slices.Contains(tg.Secrets, "file:"+db) {
		t.Error("a DSN from the environment is not a secret")
	}
}

func TestCommandOracle(t *testing.T) {
	tg, err := targets.Parse("t.yaml", file(oracleBase+`  command: {run: 'test "$1" = "$IDEMSPEC_MARKER" && echo 3'}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if obs, err := tg.Oracle.Observe(context.Background(), "m"); err != nil || obs.Count != 3 || obs.IDs != nil {
		t.Errorf("observed %+v, %v: want a count of 3 without ids", obs, err)
	}
	bad, err := targets.Parse("t.yaml", file(oracleBase+"  command: {run: 'echo many'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Oracle.Observe(context.Background(), "m"); err == nil || !strings.Contains(err.Error(), `printed "many": want a count`) {
		t.Errorf("error %v: want one naming what the command printed", err)
	}
}

func TestOracleSpecErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"  sql: {driver: mysql, dsn: x, query: q}\n", `t.yaml:4: oracle.sql.driver: "mysql" is not a known driver`},
		{"  lookup: {path: /r/1}\n", "t.yaml:4: oracle.lookup.path: must contain {{.ID}}"},
		{"  list: {path: '/r?m={{.Marker}}'}\n  command: {run: x}\n", "t.yaml:3: oracle: give exactly one of list, lookup, sql, command, field, wire (found 2)"},
		{"  command: {run: x}\ncleanup: {delete: {path: '/r/{{.ID}}'}}\n", "t.yaml:5: cleanup.delete: needs an oracle that names ids"},
		{"  list: {path: '/r?m={{.Marker}}'}\ncleanup: {delete: {path: /r}}\n", "t.yaml:5: cleanup.delete.path: must contain {{.ID}}"},
		{"  list: {path: '/r?m={{.Marker}}'}\ncleanup: {command: x, delete: {path: '/r/{{.ID}}'}}\n", "t.yaml:5: cleanup: give either delete"},
	} {
		if _, err := targets.Parse("t.yaml", file(oracleBase+tc.spec)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.spec, err, tc.want)
		}
	}
}

func TestInstances(t *testing.T) {
	tg, err := targets.Parse("t.yaml", file(oracleBase+"  list: {path: '/r?m={{.Marker}}'}\ninstances: [http://127.0.0.1:2, 'http://localhost:3']\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tg.Upstreams(); !slices.Equal(got, []string{"127.0.0.1:1", "127.0.0.1:2", "localhost:3"}) {
		t.Errorf("upstreams %v", got)
	}
	if _, err := targets.Parse("t.yaml", file(oracleBase+"  list: {path: '/r?m={{.Marker}}'}\ninstances: [https://127.0.0.1:2]\n")); err == nil || !strings.Contains(err.Error(), "t.yaml:5: instances: instance 1") {
		t.Errorf("error %v: want one naming the instance with another scheme", err)
	}
}
