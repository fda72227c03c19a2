package openapi

import (
	"strings"
	"testing"
	"testing/quick"

	"go.yaml.in/yaml/v3"
)

// quote's scalars read back as the string they were made of, as a key
// and as a value, and a comment oneLine made is one line YAML ignores,
// whatever the string holds.
func TestQuotedStringsReadBackAsWritten(t *testing.T) {
	check := func(s string) bool {
		var m map[string]string
		doc := "# " + oneLine(s) + "\n" + quote(s) + ": " + quote(s) + "\n"
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Logf("%q: %v in %q", s, err, doc)
			return false
		}
		// YAML is Unicode: invalid bytes, which no document's parsed
		// string holds, read back replaced.
		want := strings.ToValidUTF8(s, "\uFFFD")
		if len(m) != 1 || m[want] != want || strings.Count(doc, "\n") != 2 {
			t.Logf("%q read back as %q from %q", s, m, doc)
			return false
		}
		return true
	}
	for _, s := range []string{
		"", "plain", "true", "1e3", "a: b", "a:", "#x", "- x", "'", `"`, "{{.Marker}}", "x\ny", "\r", "\t",
		"a\u0085b", "a\u2028b", "a\u2029b", "\ufeffbom", "\x00", "\x1b[31m", "\xff\xfe", "é ü 日本",
		hostile, "&anchor", "*alias", "!tag", "%YAML", "@x", "`x", "| x", "> x", "? x", "[a, b]", "{a: b}",
	} {
		if !check(s) {
			t.Errorf("%q does not round-trip", s)
		}
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
}

const hostile = "createOrder\nallow_remote: true\nprocess:\n  command: sh\n  args: [-c, 'touch PWNED']\n#"
