package main_test

import (
	"strings"
	"testing"
)

// validate lists every error and TODO of a file at once, each as
// file:line: field, in line order, then their count; run refuses the
// file with the same errors.
func TestValidateListsEveryFindingInLineOrder(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "bad.yaml", `# TODO: base_url: the staging address
base_url: http://127.0.0.1:1
create:
  method: "PO ST"
  path: /r
  bdy: '{"m":"{{.Marker}}","v":{{.Variant}}}'
  id_field: id
oracle: {list: {path: '/r?m={{.Nope}}'}}
in_progress_timeout: soon
`)
	want := "idemspec: warning: " + file + ":1: TODO: base_url: the staging address\n" +
		"idemspec: " + file + ":4: create.body: missing required field\n" +
		"idemspec: " + file + `:4: create.method: "PO ST" is not an HTTP method` + "\n" +
		"idemspec: " + file + `:6: create.bdy: unknown field (did you mean "body"?)` + "\n" +
		"idemspec: " + file + ":8: oracle.list.path: {{.Nope}} is not known here (known: {{.Marker}}, {{.Since}}, {{.Until}})\n" +
		"idemspec: " + file + `:9: in_progress_timeout: "soon" is not a positive duration such as 30s` + "\n" +
		"idemspec: " + file + ": 5 errors, 1 TODO\n"
	v := idemspec(t, "validate", file)
	if v.code != 2 || v.stderr != want || v.stdout != "" {
		t.Errorf("validate: exit %d, want 2 and\n%s\ngot\n%s%s", v.code, want, v.stdout, v.stderr)
	}
	r := idemspec(t, "run", "--target", file, "--dry-run")
	if r.code != 2 || r.stderr != want {
		t.Errorf("run: exit %d, want 2 and what validate said\n%s", r.code, r.stderr)
	}
}

// validate checks a file without its secrets: each unset variable is a
// note with its line and field, and the file validates; run refuses it.
func TestValidateNamesUnsetVariables(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "secrets.yaml", `base_url: ${IDEMSPEC_TEST_UNSET_URL}
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
headers:
  Authorization: Bearer ${IDEMSPEC_TEST_UNSET_TOKEN}
`)
	v := idemspec(t, "validate", file)
	notes := []string{
		"idemspec: note: " + file + `:1: base_url: environment variable "IDEMSPEC_TEST_UNSET_URL" is not set: validate went on without it, run needs it` + "\n",
		"idemspec: note: " + file + `:5: headers.Authorization: environment variable "IDEMSPEC_TEST_UNSET_TOKEN" is not set: validate went on without it, run needs it` + "\n",
	}
	if v.code != 0 || v.stderr != strings.Join(notes, "") ||
		!strings.Contains(v.stdout, ": ok: ${IDEMSPEC_TEST_UNSET_URL} at ${IDEMSPEC_TEST_UNSET_URL} (oracle list") ||
		!strings.Contains(v.stdout, "  unset: IDEMSPEC_TEST_UNSET_URL, IDEMSPEC_TEST_UNSET_TOKEN (run needs them)\n") {
		t.Errorf("validate: exit %d, want 0 with the two notes\n%s%s", v.code, v.stdout, v.stderr)
	}
	r := idemspec(t, "run", "--target", file, "--dry-run")
	if r.code != 2 || !strings.Contains(r.stderr, file+`:5: headers.Authorization: environment variable "IDEMSPEC_TEST_UNSET_TOKEN" is not set`+"\n") {
		t.Errorf("run: exit %d, want 2 naming each unset variable\n%s", r.code, r.stderr)
	}
	// With them set, the file validates with nothing to say.
	set := []string{"IDEMSPEC_TEST_UNSET_URL=http://127.0.0.1:1", "IDEMSPEC_TEST_UNSET_TOKEN=a-token-long-enough-to-redact"}
	if v := idemspecEnv(t, set, "validate", file); v.code != 0 || v.stderr != "" || strings.Contains(v.stdout, "unset") {
		t.Errorf("with the variables set: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
}
