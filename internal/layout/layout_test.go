package layout_test

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
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
var helpers = []string{"internal/uuid", "internal/exactjson", "internal/outfile", "internal/sqlitedb", "internal/console"}

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

// TestTargetsKnowNoEngine: targets describes what is tested (the file
// format, the oracles, how to reach a target) and is read by the harness
// and the fakes; it depends on no harness package (not even the retrying
// client's helpers) and on no fake: a fake:NAME is resolved by package
// fakename, so reading a target file pulls in neither SQLite nor the MCP SDK.
func TestTargetsKnowNoEngine(t *testing.T) {
	for _, pkg := range []string{"targets", "targets/mcp"} {
		for _, dep := range deps(t, pkg) {
			own, ok := strings.CutPrefix(dep, module)
			if !ok {
				continue
			}
			for _, f := range []string{"harness", "fakes", "scenarios"} {
				if own == f || strings.HasPrefix(own, f+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
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

// resolvers are the packages that may name the fakes: package fakename,
// where a fake: name resolves and client mode's reference upstreams
// start, and the binary, which links it, `idemspec serve` and `idemspec
// agent` (the reference programs). The example programs load a target
// through fakename too. Everything else holds a targets.Target or an
// upstream interface, never a fakes type.
var resolvers = []string{"internal/fakename", "cmd/idemspec", "examples/"}

// TestOnlyTheResolverNamesTheFakes: no production package but the
// resolvers depends on a fakes package, so the product runs against a
// real API without the reference server, its mutants or their SQLite.
func TestOnlyTheResolverNamesTheFakes(t *testing.T) {
	// One go list: each package with code, then everything it depends on.
	out, err := exec.Command("go", "list", "-f", `{{if .GoFiles}}{{.ImportPath}} {{join .Deps " "}}{{end}}`, "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg, _ := strings.CutPrefix(fields[0], module)
		if isFakes(pkg) || slices.ContainsFunc(resolvers, func(r string) bool { return pkg == r || strings.HasSuffix(r, "/") && strings.HasPrefix(pkg, r) }) {
			continue
		}
		checked++
		for _, d := range fields[1:] {
			if own, ok := strings.CutPrefix(d, module); ok && isFakes(own) {
				t.Errorf("%s depends on %s: only %v may name the fakes", pkg, d, resolvers)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d packages: go list found too few", checked)
	}
}

func isFakes(pkg string) bool { return pkg == "fakes" || strings.HasPrefix(pkg, "fakes/") }

// TestTheBinaryNamesTheFakesInFewFiles: inside the binary, only the
// commands that are the fakes (`idemspec serve`, `idemspec agent`)
// import a fakes package; a run, client mode, the commands that list the
// fakes and every report reach them through package fakename alone.
func TestTheBinaryNamesTheFakesInFewFiles(t *testing.T) {
	allowed := []string{"serve.go", "serve_mcp.go", "agent.go", "agent_mcp.go"}
	files, err := filepath.Glob("../../cmd/idemspec/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in cmd/idemspec: %v", err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || slices.Contains(allowed, filepath.Base(path)) {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if own, ok := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), module); ok && isFakes(own) {
				t.Errorf("cmd/idemspec/%s imports %s: reach the fakes through internal/fakename", filepath.Base(path), own)
			}
		}
	}
}
