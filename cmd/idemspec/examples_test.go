package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// Every example target file validates as written, with no credentials
// in the environment (each has a placeholder default), and says where
// its key goes.
func TestExampleTargetsValidate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "targets", "*.yaml"))
	if err != nil || len(files) < 4 {
		t.Fatalf("example target files: %v, %v", files, err)
	}
	want := map[string]string{
		"stripe.yaml": "key in header Idempotency-Key",
		"square.yaml": "key in body field idempotency_key",
		"paypal.yaml": "key in header PayPal-Request-Id",
		// validate says what an action sends before its creates
		"action-with-setup.yaml": "    setup order: POST /resources, once per marker\n",
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := idemspecEnv(t, []string{"STRIPE_SECRET_KEY=", "SQUARE_ACCESS_TOKEN=", "PAYPAL_ACCESS_TOKEN="}, "validate", f)
			if r.code != 0 || !strings.Contains(r.stdout, want[filepath.Base(f)]) {
				t.Errorf("exit %d, want 0 and %q\n%s%s", r.code, want[filepath.Base(f)], r.stdout, r.stderr)
			}
		})
	}
}
