package scenarios_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/internal/console"
	"github.com/idemspec/idemspec/internal/fakename"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/scenarios/property"
)

// TestScenarios runs the embedded suite against the reference fake (or
// the target IDEMSPEC_TARGET names), the same specs the idemspec binary
// runs against any target.
func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	ref := os.Getenv("IDEMSPEC_TARGET")
	if ref == "" {
		ref = "fake:reference"
	}
	target, err := fakename.Load(ref)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	if err := target.Start(context.Background(), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	env, err := harness.New(target, harness.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	// -ginkgo.seed is the run's one seed: Ginkgo orders the specs by it,
	// and the checks draw from it.
	suiteConfig, reporterConfig := GinkgoConfiguration()
	scenarios.Use(env, scenarios.Options{Observer: console.New(os.Stdout, console.Options{}), Seed: uint64(suiteConfig.RandomSeed), Property: property.Config{
		// Lighter than the defaults: `make test` runs this under the race
		// detector, which slows the fake's SQLite tenfold. The CLI tests
		// run the property at its defaults against every fake.
		Sequences: 10, Steps: 15,
		Replay: func(seed int64, _ property.Config, _ string) string {
			return fmt.Sprintf("IDEMSPEC_TARGET=%s go test ./scenarios -run TestScenarios -ginkgo.label-filter=property -ginkgo.seed=%d", ref, seed)
		},
	}})
	RunSpecs(t, "idemspec scenarios", suiteConfig, reporterConfig)
}
