package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// WriteJSON writes the report as indented JSON (schema idemspec/report/v1,
// documented field by field in docs/REPORT-SCHEMA.md).
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	r.Summary.Text = r.Headline()
	return enc.Encode(r)
}

// ReadJSON reads a report written by WriteJSON. Every error names the
// file, and a syntax error its line and column.
func ReadJSON(path string) (Report, error) {
	var r Report
	b, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("report: %w", err)
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
	if head.Schema != Schema {
		return r, fmt.Errorf("%s: schema %q, want %q (is it an idemspec report?)", path, head.Schema, Schema)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s%s: %w", path, position(b, err), err)
	}
	return r, nil
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
