package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unicode/utf8"
)

// WriteJSON writes the report as indented JSON (schema idemspec/report/v1,
// documented field by field in docs/REPORT-SCHEMA.md).
func WriteJSON(w io.Writer, r Report) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	r.Summary.Text = r.Headline()
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(escapeC1(b.Bytes()))
	return err
}

// escapeC1 writes DEL and the C1 controls, which encoding/json leaves
// raw, as \u escapes: the report reads back the same, and a terminal
// that cats report.json sees no control it would act on (U+009B is a
// CSI). Outside strings JSON is ASCII without DEL, so every one of them
// is inside a string.
func escapeC1(b []byte) []byte {
	if !bytes.ContainsFunc(b, func(r rune) bool { return r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
		return b
	}
	out := make([]byte, 0, len(b)+64)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r >= 0x80 && r < 0xa0) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// MaxReportSize caps a report read back (re-rendered, compared,
// merged): decoding one costs about 7 times its size (a 300 MB
// report.json took 2.2 GB to merge), and idemspec's own reports are
// far smaller since a reading keeps a bounded sample of ids.
const MaxReportSize = 64 << 20

// ReadJSON reads a report written by WriteJSON, from a regular file of
// at most MaxReportSize bytes (/dev/zero would be read until memory ran
// out, a FIFO nobody writes to waited on for ever). Every error names
// the file, a syntax error its line and column, and a field idemspec
// could not have written its path (checks[3].verdict).
func ReadJSON(path string) (Report, error) {
	var r Report
	b, err := readReport(path)
	if err != nil {
		return r, err
	}
	// Read the schema first: a report of another version deserves that
	// answer, not a type error from a field that changed.
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return r, fmt.Errorf("%s: not an idemspec report: a report is a JSON object", path)
		}
		return r, fmt.Errorf("%s%s: not an idemspec report: %w", path, position(b, err), err)
	}
	if head.Schema != Schema && head.Schema != SchemaV1 {
		return r, fmt.Errorf("%s: schema %q, want %q (is it an idemspec report?)", path, head.Schema, Schema)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s%s: %w", path, position(b, err), err)
	}
	if err := r.valid(); err != nil {
		return Report{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// readReport reads a regular file of at most MaxReportSize bytes. It
// opens without blocking, so a FIFO is refused rather than waited on.
func readReport(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s, not a file: a report is a report.json idemspec wrote", path, fileKind(info.Mode()))
	}
	tooBig := fmt.Errorf("%s: larger than %d MiB, the most idemspec reads of a report", path, MaxReportSize>>20)
	if info.Size() > MaxReportSize {
		return nil, tooBig
	}
	// The file may grow after Stat: read no more than a byte past the cap.
	b, err := io.ReadAll(io.LimitReader(f, MaxReportSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > MaxReportSize {
		return nil, tooBig
	}
	return b, nil
}

// fileKind names what a path that is not a regular file is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// position turns a JSON error's offset (just past the byte it choked
// on) into ":line:column" of that byte.
func position(b []byte, err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var off int64
	switch {
	case errors.As(err, &syntax):
		off = syntax.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	default:
		return ""
	}
	off = min(max(off-1, 0), int64(len(b)))
	before := b[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf(":%d:%d", line, col)
}
