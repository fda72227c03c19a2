package reports_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/reports"
)

func TestJSONRoundTrip(t *testing.T) {
	r := syntheticReport()
	p := filepath.Join(t.TempDir(), "report.json")
	if err := reports.WriteFileAtomic(p, func(w io.Writer) error { return reports.WriteJSON(w, r) }); err != nil {
		t.Fatal(err)
	}
	back, err := reports.ReadJSON(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(normalise(t, back), normalise(t, r)) {
		t.Error("a report read back differs from the one written")
	}
}

// normalise re-encodes a report, so times compare by value.
func normalise(t *testing.T, r reports.Report) string {
	var b bytes.Buffer
	if err := reports.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestReadJSONErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct{ path, want string }{
		{filepath.Join(dir, "missing.json"), "missing.json: no such file or directory"},
		{write("broken.json", "{\n  \"schema\": \"idemspec/report/v1\",\n  oops\n}"), "broken.json:3:3: not an idemspec report"},
		{write("other.json", `{"schema":"someone/else/v3"}`), `other.json: schema "someone/else/v3", want "idemspec/report/v2"`},
		{write("junit.json", `[1, 2]`), "junit.json: not an idemspec report: a report is a JSON object"},
		{write("types.json", "{\"schema\":\"idemspec/report/v1\",\n\"run\":{\"seed\":\"x\"}}"), "types.json:2:"},
	}
	for _, c := range cases {
		_, err := reports.ReadJSON(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadJSON(%s): %v, want it to contain %q", filepath.Base(c.path), err, c.want)
		}
	}
}

func TestWriteAllWritesEveryFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	paths, err := reports.WriteAll(dir, syntheticReport())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"report.json", "junit.xml", "report.md", "report.html", "report.sarif"}
	if len(paths) != len(want) {
		t.Fatalf("wrote %v", paths)
	}
	for i, p := range paths {
		if filepath.Base(p) != want[i] {
			t.Errorf("path %d is %s, want %s", i, p, want[i])
		}
		if st, err := os.Stat(p); err != nil || st.Size() < 500 {
			t.Errorf("%s: %v", p, err)
		}
	}
	again, err := reports.WriteAll(dir, syntheticReport(), "report.json")
	if err != nil || len(again) != len(want)-1 {
		t.Errorf("WriteAll except report.json wrote %v, %v", again, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(want) {
		t.Errorf("%d files in the report directory, want %d (no temporary files left)", len(entries), len(want))
	}
}

func TestWriteFileAtomicKeepsTheOldFileOnError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.json")
	if err := os.WriteFile(p, []byte("old report"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("render failed half way")
	err := reports.WriteFileAtomic(p, func(w io.Writer) error {
		io.WriteString(w, "half a new rep")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old report" {
		t.Errorf("file now holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a temporary file was left behind: %v", entries)
	}
}
