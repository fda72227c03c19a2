package layout_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/idemspec/idemspec/"

// pure are the packages that import nothing of the engine; each may use
// the others and the small internal helpers below, nothing else of the
// project.
var pure = []string{"harness/history", "harness/check", "harness/model", "harness/retry", "harness/retry/state", "reports"}

// helpers are internal packages with one small job and no dependency on
// the engine (they are held to the same rule).
var helpers = []string{"internal/uuid", "internal/outfile", "internal/sqlitedb", "internal/console"}

// engineLibs are the libraries the engine is built on: a pure package
// that pulls one in has reached the engine another way.
var engineLibs = []string{"github.com/Shopify/toxiproxy", "github.com/onsi/ginkgo", "github.com/onsi/gomega"}

// heavy is what the report writers must not drag in either: a report is
// re-rendered by `idemspec report` and read by other tools.
var heavy = []string{"pgregory.net/rapid", "github.com/jackc/pgx", "modernc.org/sqlite"}

func TestPurePackagesReachNoEngine(t *testing.T) {
	for _, pkg := range append(slices.Clone(pure), helpers...) {
		t.Run(pkg, func(t *testing.T) {
			forbidden := engineLibs
			if pkg == "reports" {
				forbidden = append(slices.Clone(engineLibs), heavy...)
			}
			for _, dep := range deps(t, pkg) {
				if own, ok := strings.CutPrefix(dep, module); ok {
					if !slices.Contains(pure, own) && !slices.Contains(helpers, own) {
						t.Errorf("%s depends on %s, which is not a pure package", pkg, dep)
					}
					continue
				}
				for _, f := range forbidden {
					if dep == f || strings.HasPrefix(dep, f+"/") {
						t.Errorf("%s depends on %s", pkg, dep)
					}
				}
			}
		})
	}
}

// deps lists every package pkg depends on, but itself.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "../../"+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return slices.DeleteFunc(strings.Fields(string(out)), func(d string) bool { return d == module+pkg })
}

// TestTargetsKnowNoHarness: targets describes what is tested and is read
// by the harness; it never imports a harness package (not even the
// retrying client's helpers). The built-in fakes it starts may use the
// reference retrying client: that is the fakes' business.
func TestTargetsKnowNoHarness(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "../../targets").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if imp == module+"harness" || strings.HasPrefix(imp, module+"harness/") {
			t.Errorf("targets imports %s", imp)
		}
	}
}

// TestPropertySearchKnowsNoGinkgo: the property search drives the target
// through the engine and knows neither the test framework that runs it
// as P1's and P2's specs nor the package that defines them.
func TestPropertySearchKnowsNoGinkgo(t *testing.T) {
	for _, dep := range deps(t, "scenarios/property") {
		if strings.HasPrefix(dep, "github.com/onsi/") || dep == module+"scenarios" {
			t.Errorf("scenarios/property depends on %s", dep)
		}
	}
}
