package targets_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/idemspec/idemspec/targets"
)

// postgresDSN is the Postgres server .ci/run starts on loopback. Outside
// CI without one the test skips and says how to get one; in CI
// (CI=true) a missing server is a failure, never a silent skip.
func postgresDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("IDEMSPEC_POSTGRES_DSN")
	if dsn != "" {
		return dsn
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("IDEMSPEC_POSTGRES_DSN is not set and CI=true: .ci/run must install and start PostgreSQL")
	}
	t.Skip("no Postgres: set IDEMSPEC_POSTGRES_DSN (postgres://user@127.0.0.1:PORT/db?sslmode=disable); .ci/run starts one")
	return ""
}

func TestSQLOracleOnPostgres(t *testing.T) {
	dsn := postgresDSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	table := fmt.Sprintf("idemspec_oracle_%d", time.Now().UnixNano())
	if _, err := db.ExecContext(ctx, fmt.Sprintf(`CREATE TABLE %s (id BIGINT, marker TEXT); INSERT INTO %[1]s VALUES (41, 'm1'), (42, 'm1'), (43, 'm2')`, table)); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DROP TABLE " + table)
	t.Setenv("IDEMSPEC_TEST_PG", dsn)
	tg, err := targets.Parse("t.yaml", file(oracleBase+fmt.Sprintf("  sql: {driver: postgres, dsn: '${IDEMSPEC_TEST_PG}', query: 'SELECT id FROM %s WHERE marker = $1 ORDER BY id'}\n", table)))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	obs, err := tg.Oracle.Observe(ctx, "m1")
	if err != nil || obs.Count != 2 || !slices.Equal(obs.IDs, []string{"41", "42"}) {
		t.Errorf("observed %+v, %v: want rows 41 and 42", obs, err)
	}
}
