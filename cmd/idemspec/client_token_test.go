package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A client's token is written nowhere: neither the value of a ${VAR}
// of --cmd nor a token only seen on the wire (an Authorization the
// reference server received), though the program prints both to its
// stderr, which the reports quote. Client mode hashed the token in its
// request log but wrote it verbatim in report.json, report.html and
// report.md through that excerpt.
func TestClientTokenIsRedactedEverywhere(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, token string
		env         []string
		cmd         string
	}{
		{"env", "sk_live_fromenv_7f3a", []string{"IDEMSPEC_TEST_CLIENT_TOKEN=sk_live_fromenv_7f3a"},
			`echo "Authorization: Bearer ${IDEMSPEC_TEST_CLIENT_TOKEN}" >&2; exec ` + binary + ` agent --bearer "${IDEMSPEC_TEST_CLIENT_TOKEN}"`},
		// The program reads its token from a file: idemspec sees it only
		// in the requests.
		{"wire", "sk_live_wireonly_91c2", nil,
			`T=$(cat "$IDEMSPEC_TEST_TOKEN_FILE"); echo "Authorization: Bearer $T"; exec ` + binary + ` agent --bearer "$T"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tokenFile := filepath.Join(t.TempDir(), "token")
			if err := os.WriteFile(tokenFile, []byte(c.token), 0o600); err != nil {
				t.Fatal(err)
			}
			r := idemspecEnv(t, append(c.env, "IDEMSPEC_TEST_TOKEN_FILE="+tokenFile), "client", "--label-filter", "C1", "--report-dir", dir, "--cmd", c.cmd)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, c.token) {
				t.Errorf("the terminal shows the token:\n%s%s", r.stdout, r.stderr)
			}
			redacted := false
			for _, f := range []string{"report.json", "report.md", "report.html", "junit.xml", "ginkgo.log"} {
				body, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(body), c.token) {
					t.Errorf("%s holds the token", f)
				}
				redacted = redacted || strings.Contains(string(body), "Bearer [redacted]")
			}
			if !redacted {
				t.Error("no report quotes the program's output with the token redacted: did the excerpt go?")
			}
		})
	}
}
