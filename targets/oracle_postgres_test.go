package targets_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/idemspec/idemspec/internal/testenv"
	"github.com/idemspec/idemspec/targets"
)

func TestSQLOracleOnPostgres(t *testing.T) {
	dsn := testenv.Postgres(t)
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
