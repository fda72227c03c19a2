package property

import (
	"testing"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/internal/fakename"
)

// envOf starts the built-in fake name (a mutant, or "reference") and a
// harness in front of it, both closed when the test ends.
func envOf(tb testing.TB, name string) *harness.Env {
	tb.Helper()
	target, err := fakename.Load(fakename.Prefix + name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { target.Close() })
	env, err := harness.New(target, harness.DefaultSettings())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { env.Close() })
	return env
}

// EnvOf is envOf for the package's outside tests.
var EnvOf = envOf
