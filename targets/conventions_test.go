package targets_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/targets"
)

// things is the create and the oracle of a minimal valid target file,
// all of it but its base_url.
const things = `
create:
  path: /things
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
oracle:
  list:
    path: /things?marker={{.Marker}}
`

// base is a minimal valid target file; tests append sections to it.
const base = `
base_url: http://localhost:8080` + things

func TestProfiles(t *testing.T) {
	tests := []struct {
		name                        string
		mismatch, inFlight, missing int
		required                    bool
		replayHeader, failedAttempt string
	}{
		{"ietf", 422, 409, 400, true, "", targets.FailureReplayed},
		{"stripe", 400, 409, 400, false, "Idempotent-Replayed", targets.FailureReplayed},
		{"brandur", 409, 409, 400, true, "", targets.FailureRetried},
		{"powertools", 500, 500, 500, false, "", targets.FailureRetried},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := targets.Parse("t.yaml", file(base+"profile: "+tc.name+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			p := tg.Profile
			if p.Name != tc.name || p.Mismatch != tc.mismatch || p.InFlight != tc.inFlight || p.MissingKey != tc.missing ||
				p.KeyRequired != tc.required || p.ReplayHeader != tc.replayHeader || p.FailedAttempt != tc.failedAttempt {
				t.Errorf("profile %+v", p)
			}
			if tg.Key.Required != tc.required {
				t.Errorf("Key.Required = %t, want the profile's %t", tg.Key.Required, tc.required)
			}
		})
	}
	if got := strings.Join(targets.ProfileNames(), ","); got != "brandur,ietf,powertools,stripe" {
		t.Errorf("ProfileNames = %s", got)
	}
}

func TestParseConventionOverrides(t *testing.T) {
	tg, err := targets.Parse("t.yaml", file(base+`
profile: stripe
statuses:
  mismatch: 409
  missing_key: 428
key:
  header: X-Request-Id
  pattern: 'req_[a-z0-9]{20}'
  required: true
fail_trigger:
  header: X-Test-Fail
  value: "503"
`))
	if err != nil {
		t.Fatal(err)
	}
	p := tg.Profile
	if p.Name != "stripe" || p.Mismatch != 409 || p.InFlight != 409 || p.MissingKey != 428 {
		t.Errorf("profile %+v: want stripe with mismatch 409 and missing_key 428 overridden, in_flight kept", p)
	}
	if tg.Key != (targets.Key{In: targets.KeyInHeader, Name: "X-Request-Id", Format: targets.FormatPattern, Pattern: "req_[a-z0-9]{20}", Declared: true, Required: true}) {
		t.Errorf("Key = %+v", tg.Key)
	}
	if tg.FailTrigger == nil || *tg.FailTrigger != (targets.FailTrigger{Header: "X-Test-Fail", Value: "503"}) {
		t.Errorf("FailTrigger = %+v", tg.FailTrigger)
	}
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		k := tg.Key.NewKey()
		if !tg.Key.Matches(k) || !strings.HasPrefix(k, "req_") || len(k) != 24 {
			t.Fatalf("generated key %q does not match the pattern", k)
		}
		if seen[k] {
			t.Fatalf("key %q generated twice", k)
		}
		seen[k] = true
	}
}

func TestKeyFormats(t *testing.T) {
	tests := []struct {
		pattern string
		good    []string
		bad     []string
	}{
		{"", []string{"8e03978e-40d5-43e8-bc93-6894a57f9324"}, []string{"", "8e03978e-40d5-43e8-bc93-6894a57f932", "8e03978e 40d5-43e8-bc93-6894a57f9324"}},
		{"[A-Za-z0-9]{20,40}", []string{strings.Repeat("a", 20), strings.Repeat("Z", 40)}, []string{strings.Repeat("a", 19), strings.Repeat("a", 41), strings.Repeat("a", 19) + "-"}},
		{"(ord|pay)_[0-9a-f]{16}(-[0-9]+)?", []string{"ord_0123456789abcdef", "pay_0123456789abcdef-42"}, []string{"inv_0123456789abcdef"}},
		{"^k[[:alnum:]]+x{2}$", []string{"kAbcdefghijklmnopqrstuvwxyz1xx"}, []string{"kxx", "Kabcxx"}},
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			k := targets.Key{Format: targets.FormatUUID, Declared: true}
			if tc.pattern != "" {
				k = targets.Key{Format: targets.FormatPattern, Pattern: tc.pattern, Declared: true}
			}
			for _, s := range tc.good {
				if !k.Matches(s) {
					t.Errorf("%q should match", s)
				}
			}
			for _, s := range tc.bad {
				if k.Matches(s) {
					t.Errorf("%q should not match", s)
				}
			}
			for i := 0; i < 100; i++ {
				if s := k.NewKey(); !k.Matches(s) {
					t.Fatalf("generated %q does not match", s)
				}
			}
		})
	}
}

func TestParseConventionErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"status out of range", "statuses:\n  mismatch: 200\n", `t.yaml:10: statuses.mismatch: 200 is not an error status (400-599)`},
		{"status not a number", "statuses:\n  in_flight: conflict\n", `t.yaml:10: statuses.in_flight: cannot unmarshal`},
		{"unknown status", "statuses:\n  in_fligt: 409\n", `t.yaml:10: statuses.in_fligt: unknown field (did you mean "in_flight"?)`},
		{"pattern with uuid", "key:\n  format: uuid\n  pattern: '[a-z]{30}'\n", `t.yaml:11: key.pattern: only with format: pattern`},
		{"pattern format without pattern", "key:\n  format: pattern\n", `t.yaml:9: key.pattern: missing`},
		{"bad pattern", "key:\n  pattern: '[a-z'\n", `t.yaml:10: key.pattern: not a valid regular expression`},
		{"low-entropy pattern", "key:\n  pattern: '[0-9]{6}'\n", `t.yaml:10: key.pattern: keys matching "[0-9]{6}" carry only 20 bits of randomness`},
		{"pattern that can be empty", "key:\n  pattern: '[a-z]*'\n", `carry only 0 bits`},
		{"required not a bool", "key:\n  required: maybe\n", `t.yaml:10: key.required: cannot unmarshal`},
		{"bad key header", "key:\n  header: 'Idempotency Key'\n", `t.yaml:10: key.header: "Idempotency Key" is not a header name`},
		{"fail trigger without value", "fail_trigger:\n  header: X-Fail\n", `t.yaml:10: fail_trigger.value: missing required field`},
		{"bad fail trigger header", "fail_trigger:\n  header: 'X Fail'\n  value: '1'\n", `t.yaml:10: fail_trigger.header: "X Fail" is not a header name`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := targets.Parse("t.yaml", file(base+tc.data))
			if err == nil {
				t.Fatalf("parsed %+v, want an error", tg)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestStartFakeProfile(t *testing.T) {
	tg, err := fakes.StartTarget("fake:reference?profile=brandur")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if tg.Profile.Name != "brandur" || tg.Profile.Mismatch != 409 || !tg.Key.Required {
		t.Errorf("profile %+v, key %+v", tg.Profile, tg.Key)
	}
	if tg.FailTrigger == nil {
		t.Error("a fake declares its fail trigger")
	}
	if _, err := fakes.StartTarget("fake:reference?profile=paypal"); err == nil || !strings.Contains(err.Error(), `unknown profile "paypal"`) {
		t.Errorf("unknown profile: err %v", err)
	}
}

// TestDeclaredKeyFormat: a file that declares no format leaves every key
// in the target's format (uuid is idemspec's default for the keys it
// makes, not the API's); a declared format or max_length is judged.
func TestDeclaredKeyFormat(t *testing.T) {
	tests := []struct {
		name, key string
		in, out   []string // keys the declaration takes, and refuses
		err       string
	}{
		{name: "nothing declared", in: []string{"not a uuid", "é", strings.Repeat("k", 1024)}},
		{name: "uuid declared", key: "key:\n  format: uuid\n", in: []string{"8e03978e-40d5-43e8-bc93-6894a57f9324"}, out: []string{"not a uuid"}},
		{name: "a length only", key: "key:\n  max_length: 40\n", in: []string{"any key at all", "é"}, out: []string{strings.Repeat("k", 41)}},
		{name: "a length below the keys idemspec makes", key: "key:\n  max_length: 20\n", err: "key.max_length: 20 is shorter than the keys idemspec makes"},
		{name: "no length", key: "key:\n  max_length: 0\n", err: "key.max_length: 0 is not a length"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := targets.Parse("t.yaml", file(base+tc.key))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tg.Key.Matches(tg.Key.NewKey()) {
				t.Errorf("the keys idemspec makes are outside the declared format")
			}
			for _, k := range tc.in {
				if !tg.Key.Matches(k) {
					t.Errorf("%q is refused, want taken", k)
				}
			}
			for _, k := range tc.out {
				if tg.Key.Matches(k) {
					t.Errorf("%q is taken, want refused", k)
				}
			}
		})
	}
}
