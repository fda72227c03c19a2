package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/internal/exactjson"
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
	ja, erra := exactjson.Decode([]byte(a.Body))
	jb, errb := exactjson.Decode([]byte(b.Body))
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
