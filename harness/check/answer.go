package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/idemspec/idemspec/harness/history"
)

// SameAnswer compares two answers by status and JSON body, ignoring the
// volatile top-level or dotted fields. It says how they differ.
func SameAnswer(a, b history.Exchange, volatile []string) (bool, string) {
	if a.Status != b.Status {
		return false, fmt.Sprintf("status %d vs %d", a.Status, b.Status)
	}
	if a.Body == b.Body {
		return true, ""
	}
	ja, erra := decodeExact(a.Body)
	jb, errb := decodeExact(b.Body)
	if erra != nil || errb != nil {
		return false, "bodies differ"
	}
	for _, f := range volatile {
		drop(ja, strings.Split(f, "."))
		drop(jb, strings.Split(f, "."))
	}
	ca, _ := json.Marshal(ja)
	cb, _ := json.Marshal(jb)
	if !bytes.Equal(ca, cb) {
		return false, fmt.Sprintf("bodies differ beyond the volatile fields %v", volatile)
	}
	return true, ""
}

// decodeExact decodes a JSON body keeping numbers as written: as float64,
// two distinct 64-bit ids (9007199254740993 and ...992) would compare equal.
func decodeExact(body string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func drop(v any, path []string) {
	m, ok := v.(map[string]any)
	if !ok || len(path) == 0 {
		return
	}
	if len(path) == 1 {
		delete(m, path[0])
		return
	}
	drop(m[path[0]], path[1:])
}
