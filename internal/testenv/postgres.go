package testenv

import (
	"os"
	"testing"
)

// Postgres is the DSN of the PostgreSQL server .ci/run starts on
// loopback (IDEMSPEC_POSTGRES_DSN). Without one the test skips outside CI
// and says how to get one; in CI (CI=true) a missing server is a
// failure, never a silent skip.
func Postgres(t testing.TB) string {
	t.Helper()
	if dsn := os.Getenv("IDEMSPEC_POSTGRES_DSN"); dsn != "" {
		return dsn
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("IDEMSPEC_POSTGRES_DSN is not set and CI=true: .ci/run must install and start PostgreSQL")
	}
	t.Skip("no Postgres: set IDEMSPEC_POSTGRES_DSN (postgres://user@127.0.0.1:PORT/db?sslmode=disable); .ci/run starts one")
	return ""
}
