package targets_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

func TestSecretHeader(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "X-Api-Key": true,
		"X-Auth-Token": true, "X-Client-Secret": true, "X-Session-Id": true, "x-signature": true,
		"Accept": false, "X-Tenant": false, "User-Agent": false, "X-Request-Id": false,
	} {
		if got := targets.SecretHeader(name); got != want {
			t.Errorf("SecretHeader(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestLiteralCredentialHeadersAreSecrets(t *testing.T) {
	tg, err := targets.Parse("t.yaml", file(base+`headers:
  Authorization: Bearer literal-token-123
  X-Api-Key: key-456789
  X-Session: "1"
  X-Tenant: acme
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Bearer literal-token-123", "literal-token-123", "key-456789"} {
		if !slices.Contains(tg.Secrets, s) {
			t.Errorf("Secrets %q lack %q", tg.Secrets, s)
		}
	}
	for _, s := range []string{"1", "acme", "Bearer"} {
		if slices.Contains(tg.Secrets, s) {
			t.Errorf("Secrets %q hold %q: a short value or a plain header would blank innocent text", tg.Secrets, s)
		}
	}
	if got := tg.Redact("echo literal-token-123 and key-456789"); got != "echo [redacted] and [redacted]" {
		t.Errorf("Redact = %q", got)
	}
}

func TestRedactWriterCatchesASecretSplitAcrossWrites(t *testing.T) {
	tg := &targets.Target{Secrets: []string{"s3cret-token", "other-secret"}}
	var out bytes.Buffer
	w := tg.RedactWriter(&out)
	for _, chunk := range []string{"line one\n", "Authorization: Bearer s3c", "ret-tok", "en\n", "a lone s3", " is fine\n", "ends with s3cr"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "s3cret-token") {
			t.Fatalf("secret written: %q", out.String())
		}
	}
	if !strings.HasSuffix(out.String(), "a lone s3 is fine\nends with ") {
		t.Errorf("text that cannot be a secret was held back: %q", out.String())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "line one\nAuthorization: Bearer [redacted]\na lone s3 is fine\nends with s3cr"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestRedactWriterPassesLinesAtOnce(t *testing.T) {
	tg := &targets.Target{Secrets: []string{"s3cret-token"}}
	var out bytes.Buffer
	w := tg.RedactWriter(&out)
	w.Write([]byte("PASS  S1 should ...\n"))
	if out.String() != "PASS  S1 should ...\n" {
		t.Errorf("a progress line was held back: %q", out.String())
	}
}
