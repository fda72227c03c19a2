package targets_test

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// keyFile is a target file with the given key: section and create body.
func keyFile(key, body string) []byte {
	return file(`
base_url: http://127.0.0.1:1
create: {path: '/r?v=2', body: '` + body + `', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
key: ` + key + `
`)
}

const bodyWithKey = `{"m":"{{.Marker}}","v":{{.Variant}},"meta":{"idempotency_key":"{{.Key}}","n":1}}`

func TestKeyPlaces(t *testing.T) {
	cases := []struct {
		name, key, body string
		want            targets.Key
	}{
		{"default header", `{}`, `{"m":"{{.Marker}}","v":{{.Variant}}}`, targets.Key{In: "header", Name: "Idempotency-Key"}},
		{"older key.header", `{header: PayPal-Request-Id}`, `{"m":"{{.Marker}}","v":{{.Variant}}}`, targets.Key{In: "header", Name: "PayPal-Request-Id"}},
		{"named header", `{in: header, name: PayPal-Request-Id}`, `{"m":"{{.Marker}}","v":{{.Variant}}}`, targets.Key{In: "header", Name: "PayPal-Request-Id"}},
		{"query", `{in: query, name: idempotency_key}`, `{"m":"{{.Marker}}","v":{{.Variant}}}`, targets.Key{In: "query", Name: "idempotency_key"}},
		{"body, path found", `{in: body}`, bodyWithKey, targets.Key{In: "body", Name: "meta.idempotency_key"}},
		{"body, path named", `{in: body, name: meta.idempotency_key}`, bodyWithKey, targets.Key{In: "body", Name: "meta.idempotency_key"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := targets.Parse("t.yaml", keyFile(tc.key, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tg.Key.In != tc.want.In || tg.Key.Name != tc.want.Name {
				t.Errorf("key in %q name %q, want %q %q", tg.Key.In, tg.Key.Name, tc.want.In, tc.want.Name)
			}
		})
	}
}

func TestKeyPlaceMistakes(t *testing.T) {
	const plain = `{"m":"{{.Marker}}","v":{{.Variant}}}`
	cases := []struct{ name, key, body, want string }{
		{"unknown place", `{in: cookie, name: k}`, plain, `t.yaml:4: key.in: unknown place "cookie" (known: header, body, query)`},
		{"body without {{.Key}}", `{in: body}`, plain, "t.yaml:2: create.body: must contain {{.Key}} where the key goes: key.in is body"},
		{"{{.Key}} with a header", `{in: header}`, bodyWithKey, "t.yaml:2: create.body: holds {{.Key}}, but key.in is header"},
		{"{{.Key}} with the default place", `{}`, bodyWithKey, "t.yaml:2: create.body: holds {{.Key}}, but key.in is header"},
		{"query without a name", `{in: query}`, plain, "t.yaml:4: key.name: missing: in: query needs the parameter's name"},
		{"query name to escape", `{in: query, name: "a b"}`, plain, `t.yaml:4: key.name: "a b" is not a plain query parameter name`},
		{"header name not a token", `{in: header, name: "a b"}`, plain, `t.yaml:4: key.name: "a b" is not a header name`},
		{"older header not a token", `{header: "a b"}`, plain, `t.yaml:4: key.header: "a b" is not a header name`},
		{"header with body", `{in: body, header: X-Key}`, bodyWithKey, "t.yaml:4: key.header: only with in: header (in is body)"},
		{"header and name disagree", `{header: X-A, name: X-B}`, plain, `t.yaml:4: key.header: "X-A" and key.name "X-B" disagree`},
		{"body name elsewhere", `{in: body, name: idempotency_key}`, bodyWithKey, `t.yaml:4: key.name: "idempotency_key", but create.body puts {{.Key}} at "meta.idempotency_key"`},
		{"key part of a string", `{in: body}`, `{"m":"{{.Marker}}","v":{{.Variant}},"k":"x-{{.Key}}"}`, `t.yaml:2: create.body: with key.in: body, {{.Key}} must be a whole JSON string`},
		{"key twice", `{in: body}`, `{"m":"{{.Marker}}","v":{{.Variant}},"k":"{{.Key}}","j":"{{.Key}}"}`, "t.yaml:2: create.body: with key.in: body, {{.Key}} stands 2 times"},
		{"key in an array", `{in: body}`, `{"m":"{{.Marker}}","v":{{.Variant}},"k":["{{.Key}}"]}`, "t.yaml:2: create.body: with key.in: body, {{.Key}} stands in an array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := targets.Parse("t.yaml", keyFile(tc.key, tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant %q", err, tc.want)
			}
		})
	}
}

// sent is what a create request carries, as the target would read it.
type sent struct {
	header []string
	query  []string
	body   string
}

func sentBy(t *testing.T, tg *targets.Target, keys []string) sent {
	t.Helper()
	body, err := tg.Body(targets.Payload{Marker: "m1", Variant: "7"})
	if err != nil {
		t.Fatal(err)
	}
	req, err := tg.NewCreateWith(context.Background(), keys, body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(req.Body)
	return sent{header: req.Header.Values("Idempotency-Key"), query: req.URL.Query()["idempotency_key"], body: string(b)}
}

func TestKeyGoesWhereDeclared(t *testing.T) {
	odd := `a"b\é`
	for _, tc := range []struct {
		name, key, body string
		keys            []string
		want            sent
	}{
		{"header", `{}`, `{"m":"{{.Marker}}","v":{{.Variant}}}`, []string{"k1"},
			sent{header: []string{"k1"}, body: `{"m":"m1","v":7}`}},
		{"header, none", `{}`, `{"m":"{{.Marker}}","v":{{.Variant}}}`, nil,
			sent{body: `{"m":"m1","v":7}`}},
		{"header, duplicated", `{}`, `{"m":"{{.Marker}}","v":{{.Variant}}}`, []string{"k1", "k2"},
			sent{header: []string{"k1", "k2"}, body: `{"m":"m1","v":7}`}},
		{"query", `{in: query, name: idempotency_key}`, `{"m":"{{.Marker}}","v":{{.Variant}}}`, []string{odd},
			sent{query: []string{odd}, body: `{"m":"m1","v":7}`}},
		{"query, none", `{in: query, name: idempotency_key}`, `{"m":"{{.Marker}}","v":{{.Variant}}}`, nil,
			sent{body: `{"m":"m1","v":7}`}},
		{"body", `{in: body}`, bodyWithKey, []string{odd},
			sent{body: `{"m":"m1","v":7,"meta":{"idempotency_key":"a\"b\\é","n":1}}`}},
		{"body, empty", `{in: body}`, bodyWithKey, []string{""},
			sent{body: `{"m":"m1","v":7,"meta":{"idempotency_key":"","n":1}}`}},
		{"body, none (first member)", `{in: body}`, bodyWithKey, nil,
			sent{body: `{"m":"m1","v":7,"meta":{"n":1}}`}},
		{"body, none (last member)", `{in: body}`, `{"m":"{{.Marker}}","v":{{.Variant}}, "k" : "{{.Key}}" }`, nil,
			sent{body: `{"m":"m1","v":7 }`}},
		{"body, none (only member)", `{in: body}`, `{"m":"{{.Marker}}","v":{{.Variant}},"o":{ "k":"{{.Key}}"}}`, nil,
			sent{body: `{"m":"m1","v":7,"o":{}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := targets.Parse("t.yaml", keyFile(tc.key, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			got := sentBy(t, tg, tc.keys)
			if !slices.Equal(got.header, tc.want.header) || !slices.Equal(got.query, tc.want.query) || got.body != tc.want.body {
				t.Errorf("sent %+v\nwant %+v", got, tc.want)
			}
			if !json.Valid([]byte(got.body)) {
				t.Errorf("body %s is not JSON", got.body)
			}
		})
	}
}

// A request built for a key reads back as that key and the payload it
// was built from, wherever the key goes: what client mode records.
func TestKeyOfReadsTheDeclaredPlace(t *testing.T) {
	for _, key := range []string{`{}`, `{in: query, name: idempotency_key}`, `{in: body}`} {
		body := `{"m":"{{.Marker}}","v":{{.Variant}}}`
		if key == `{in: body}` {
			body = bodyWithKey
		}
		tg, err := targets.Parse("t.yaml", keyFile(key, body))
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := tg.Body(targets.Payload{Marker: "m1", Variant: "7"})
		req, _ := tg.NewCreate(context.Background(), `k"1`, payload)
		b, _ := io.ReadAll(req.Body)
		got, gotPayload, found := tg.KeyOf(req, b)
		if !found || got != `k"1` || string(gotPayload) != string(payload) {
			t.Errorf("%s: KeyOf = %q, %s, %v; want k\"1, %s", key, got, gotPayload, found, payload)
		}
		req, _ = tg.NewCreate(context.Background(), "", payload)
		b, _ = io.ReadAll(req.Body)
		if got, _, found := tg.KeyOf(req, b); found {
			t.Errorf("%s: KeyOf found %q in a request without a key", key, got)
		}
	}
}
