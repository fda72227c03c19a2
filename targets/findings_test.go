package targets_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// where is a finding as a test names it: its line, field and kind.
type where struct {
	line  int
	field string
	kind  targets.FindingKind
}

func wheres(found []targets.Finding) []where {
	var out []where
	for _, f := range found {
		out = append(out, where{f.Line, f.Field, f.Kind})
	}
	return out
}

// fileError is the refusal of a file, which must be a *FileError.
func fileError(t *testing.T, err error) *targets.FileError {
	t.Helper()
	var fe *targets.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want a *targets.FileError", err, err)
	}
	return fe
}

// A file with errors on many lines is refused with every one of them, in
// line order, beside its TODOs: decode errors (an unknown field with its
// suggestion, a wrong type), bad values and template errors alike.
func TestParseListsEveryFindingInLineOrder(t *testing.T) {
	_, err := targets.Parse("t.yaml", file(`
# TODO: base_url: the staging address
base_url: http://127.0.0.1:8080
create:
  method: "PO ST"
  path: /things
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_feld: id
oracle:
  list:
    path: /things?marker={{.Nope}}
volatile_fields: {a: 1}
in_progress_timeout: soon
# TODO: profile: which one?
profile: nope
reconcile: ask
`))
	fe := fileError(t, err)
	want := []where{
		{1, "", targets.ToDo},
		{4, "create.id_field", targets.Problem}, // a missing field is at its mapping's first line
		{4, "create.method", targets.Problem},
		{7, "create.id_feld", targets.Problem},
		{10, "oracle.list.path", targets.Problem},
		{11, "volatile_fields.a", targets.Problem},
		{12, "in_progress_timeout", targets.Problem},
		{13, "", targets.ToDo},
		{14, "profile", targets.Problem},
		{15, "reconcile", targets.Problem},
	}
	if got := wheres(fe.Findings); !slices.Equal(got, want) {
		t.Errorf("findings at\n%v\nwant\n%v\n%s", got, want, err)
	}
	// The error is the errors alone, each file:line: field: message, in
	// the words they had when loading stopped at the first.
	for _, w := range []string{
		"t.yaml:4: create.id_field: missing required field",
		`t.yaml:4: create.method: "PO ST" is not an HTTP method`,
		`t.yaml:7: create.id_feld: unknown field (did you mean "id_field"?)`,
		"t.yaml:10: oracle.list.path: {{.Nope}} is not known here",
		"t.yaml:11: volatile_fields.a: cannot unmarshal",
		`t.yaml:12: in_progress_timeout: "soon" is not a positive duration such as 30s`,
		`t.yaml:14: profile: unknown profile "nope"`,
		`t.yaml:15: reconcile: unknown "ask"`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%s", w, err)
		}
	}
	if strings.Contains(err.Error(), "TODO") || strings.Count(err.Error(), "\n") != 7 {
		t.Errorf("the error is not the 8 errors, one a line:\n%s", err)
	}
	if n := len(fe.Unwrap()); n != 8 {
		t.Errorf("Unwrap gives %d errors, want 8", n)
	}
}

// An error in a field hides what only follows from it: a missing body
// is not said to lack {{.Marker}} too, nor a missing oracle to be no
// oracle a client can call; a field's second problem waits for the
// first to be fixed.
func TestParseLeavesOutWhatFollowsFromAnError(t *testing.T) {
	_, err := targets.Parse("t.yaml", file(`
base_url: http://127.0.0.1:8080
create:
  path: /things
  id_field: id
key: {in: body}
reconcile: oracle
`))
	fe := fileError(t, err)
	want := []where{
		{1, "oracle", targets.Problem},
		{3, "create.body", targets.Problem},
	}
	if got := wheres(fe.Findings); !slices.Equal(got, want) {
		t.Errorf("findings at %v, want %v:\n%s", got, want, err)
	}
}

// validate reads a file without its secrets: with AllowUnset, each unset
// variable is a finding naming it, its line and its field, and the file
// loads; without (run), each is an error.
func TestParseUnsetVariables(t *testing.T) {
	unsetenv(t, "IDEMSPEC_TEST_UNSET_URL")
	unsetenv(t, "IDEMSPEC_TEST_UNSET_TOKEN")
	data := file(`
base_url: ${IDEMSPEC_TEST_UNSET_URL}` + things + `headers:
  Authorization: Bearer ${IDEMSPEC_TEST_UNSET_TOKEN}
  X-Team: ${IDEMSPEC_TEST_UNSET_URL}-team
tenants:
  - {name: a, headers: {Authorization: "Bearer ${IDEMSPEC_TEST_UNSET_TOKEN}"}}
  - {name: b, headers: {Authorization: "Bearer ${IDEMSPEC_TEST_UNSET_TOKEN}"}}
`)
	tg, err := targets.ParseWith("t.yaml", data, targets.LoadOptions{AllowUnset: true})
	if err != nil {
		t.Fatalf("with AllowUnset: %v", err)
	}
	if !slices.Equal(tg.Unset, []string{"IDEMSPEC_TEST_UNSET_URL", "IDEMSPEC_TEST_UNSET_TOKEN"}) {
		t.Errorf("Unset = %q", tg.Unset)
	}
	want := []where{
		{1, "base_url", targets.Unset},
		{10, "headers.Authorization", targets.Unset},
		{11, "headers.X-Team", targets.Unset},
		{13, "tenants[0].headers.Authorization", targets.Unset},
		{14, "tenants[1].headers.Authorization", targets.Unset},
	}
	if got := wheres(tg.Findings); !slices.Equal(got, want) {
		t.Errorf("findings at %v, want %v", got, want)
	}
	if len(tg.Warnings) != 0 {
		t.Errorf("Warnings %q: an unset variable is not a warning of run's", tg.Warnings)
	}
	if got := tg.Address(); got != "${IDEMSPEC_TEST_UNSET_URL}" {
		t.Errorf("Address() = %q, want base_url as written", got)
	}

	_, err = targets.Parse("t.yaml", data)
	fe := fileError(t, err)
	for i := range want {
		want[i].kind = targets.Problem
	}
	if got := wheres(fe.Findings); !slices.Equal(got, want) {
		t.Errorf("without AllowUnset: findings at %v, want %v", got, want)
	}
	if !strings.Contains(err.Error(), `t.yaml:10: headers.Authorization: environment variable "IDEMSPEC_TEST_UNSET_TOKEN" is not set`) {
		t.Errorf("error %q", err)
	}
	// A variable that is set but empty is set.
	t.Setenv("IDEMSPEC_TEST_UNSET_URL", "http://127.0.0.1:1")
	t.Setenv("IDEMSPEC_TEST_UNSET_TOKEN", "")
	if tg, err := targets.Parse("t.yaml", data); err != nil || len(tg.Unset) != 0 {
		t.Errorf("with every variable set: %v, unset %q", err, tg.Unset)
	}
}

// Each operation's errors name it, and a file-level error shared by the
// operations is said once.
func TestParseListsTheErrorsOfEveryOperation(t *testing.T) {
	_, err := targets.Parse("t.yaml", file(`
base_url: http://127.0.0.1:8080
profile: nope
operations:
  - name: one
    create: {path: /a, body: '{"m":"{{.Marker}}"}', id_field: id}
    oracle: {list: {path: '/a?m={{.Marker}}'}}
  - name: Two
    create: {path: /b, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
    oracle: {list: {path: '/b'}}
`))
	fe := fileError(t, err)
	want := []where{
		{2, "profile", targets.Problem},
		{5, "operations[0].create.body", targets.Problem},
		{7, "operations[1].name", targets.Problem},
		{9, "operations[1].oracle.list.path", targets.Problem},
	}
	if got := wheres(fe.Findings); !slices.Equal(got, want) {
		t.Errorf("findings at %v, want %v:\n%s", got, want, err)
	}
}

// However broken, a file is refused with findings, never a panic: each
// line of a full file left out in turn, or its value replaced by one of
// another type. Every finding names the file, and every error a line.
func TestParseSurvivesEachLineBroken(t *testing.T) {
	full := string(file(`
name: payments
base_url: http://127.0.0.1:8080/v1/
setup:
  - name: order
    path: /orders
    body: '{"note":"{{.Marker}}"}'
create:
  path: /orders/{{.Setup.order.id}}/payments
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: data.id
key: {in: header, name: X-Key, format: pattern, pattern: '[a-z]{24}'}
headers:
  Accept: application/json
oracle:
  list:
    path: /payments?marker={{.Marker}}
    items: data
    pages: {next: cursor, field: next_cursor, param: cursor}
lookup:
  path: /keys/{{.Key}}
reconcile: lookup
statuses: {mismatch: 409}
fail_trigger: {header: X-Fail, value: "1"}
process:
  command: server --port {{.Port}}
  health: {path: /health, timeout: 5s}
tenants:
  - {name: a, headers: {Authorization: Bearer aaaaaaaaaa}}
  - {name: b, headers: {Authorization: Bearer bbbbbbbbbb}}
cleanup: {delete: {path: '/payments/{{.ID}}'}}
`))
	if _, err := targets.Parse("t.yaml", []byte(full)); err != nil {
		t.Fatalf("the full file: %v", err)
	}
	lines := strings.Split(full, "\n")
	for i, line := range lines {
		key, _, isField := strings.Cut(line, ":")
		variants := [][]string{slices.Delete(slices.Clone(lines), i, i+1)}
		if isField {
			for _, v := range []string{" [1, 2]", " {x: 1}", " 7", " '{{'", ""} {
				broken := slices.Clone(lines)
				broken[i] = key + ":" + v
				variants = append(variants, broken)
			}
		}
		for _, v := range variants {
			data := strings.Join(v, "\n")
			t.Run(fmt.Sprintf("line %d", i+1), func(t *testing.T) {
				_, err := targets.Parse("t.yaml", []byte(data))
				if err == nil {
					return
				}
				var fe *targets.FileError
				if !errors.As(err, &fe) {
					t.Fatalf("%v (%T), want a FileError\n%s", err, err, data)
				}
				for _, f := range fe.Findings {
					if f.File != "t.yaml" || (f.Kind == targets.Problem && f.Line == 0 && !strings.HasPrefix(f.Message, "line ")) {
						t.Errorf("finding %+v names no file or line\n%s", f, data)
					}
				}
			})
		}
	}
}

// A file of many errors is refused with the first hundred and a line
// saying more follow, as fast as one of ten.
func TestParseCapsTheFindings(t *testing.T) {
	var b strings.Builder
	b.WriteString("base_url: http://127.0.0.1:1\ncreate: {path: /r, body: '{\"m\":\"{{.Marker}}\",\"v\":{{.Variant}}}', id_field: id}\noracle: {list: {path: '/r?m={{.Marker}}'}}\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "unknown_%d: 1\n", i)
	}
	_, err := targets.Parse("t.yaml", []byte(b.String()))
	fe := fileError(t, err)
	if n := len(fe.Findings); n != 101 || !strings.Contains(fe.Findings[100].Message, "the first 100 are shown") {
		t.Errorf("%d findings, want 100 and one saying more follow; the last: %+v", n, fe.Findings[n-1])
	}
}
