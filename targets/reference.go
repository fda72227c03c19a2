package targets

import (
	"net/http"
	"net/url"
	"text/template"
	"time"
)

// The reference API is what idemspec's reference server serves, and
// what client mode's contract names (docs/CLIENT-CONTRACT.md): a create
// at POST /resources keyed by an Idempotency-Key header, a look-up of
// what a key made, a list of a marker's resources, two tenants by bearer
// token. Client mode describes its upstream by it (the reference server,
// the reference MCP side, the relay in front of a real MCP server), so
// none of those paths needs the fakes.
const (
	ReferenceKeyHeader = "Idempotency-Key"
	// ReferenceKeyField is the body field or query parameter the key is
	// in when it is not in a header (as Square names its body key).
	ReferenceKeyField = "idempotency_key"
	// ReferenceFailHeader has the reference fail a create on purpose,
	// with the status it carries (K6's failed first attempt).
	ReferenceFailHeader = "X-Idemspec-Fail"
	// ReferenceInProgressTimeout is how long an abandoned in-flight
	// claim blocks its key at the reference.
	ReferenceInProgressTimeout = 2 * time.Second
)

// DescribeReference describes the reference API at baseURL, as a target
// file would. It is also the shape of the example target file for
// `idemspec serve`.
func DescribeReference(baseURL, name string) *Target {
	u, err := url.Parse(baseURL)
	if err != nil {
		panic(err) // baseURL comes from a listener this process opened
	}
	t := &Target{
		Name:    name,
		Source:  name,
		BaseURL: u,
		Create: Create{
			Method:      http.MethodPost,
			Path:        "/resources",
			ContentType: "application/json",
			IDField:     "id",
			Body:        template.Must(template.New("body").Parse(`{"marker":"{{.Marker}}","amount":{{.Variant}}}`)),
		},
		Key:               Key{In: KeyInHeader, Name: ReferenceKeyHeader, Format: FormatUUID, Declared: true, Required: true},
		Headers:           http.Header{},
		LookupPath:        "/idempotency-keys/{{.Key}}",
		LookupIDField:     "resource_id",
		Reconcile:         ReconcileLookup,
		Profile:           StandardProfile(),
		FailTrigger:       &FailTrigger{Header: ReferenceFailHeader, Value: "503"},
		InProgressTimeout: ReferenceInProgressTimeout,
		// The reference scopes keys by bearer token: two tokens are two
		// tenants.
		Tenants: []Tenant{
			{Name: "tenant-a", Headers: http.Header{"Authorization": {"Bearer idemspec-tenant-a"}}},
			{Name: "tenant-b", Headers: http.Header{"Authorization": {"Bearer idemspec-tenant-b"}}},
		},
	}
	t.Oracle = NewListOracle(t, `/resources?marker={{.Marker}}`, "items", "id")
	t.Direct = t.NewDirectClient()
	return t
}

// ReferenceKeyIn moves the key of a reference description to in
// (KeyInHeader, KeyInBody or KeyInQuery): for a body key, the create
// body carries the key's field.
func ReferenceKeyIn(t *Target, in string) {
	switch in {
	case KeyInBody:
		t.Key.In, t.Key.Name = KeyInBody, ReferenceKeyField
		t.Create.Body = template.Must(template.New("body").Parse(`{"marker":"{{.Marker}}","amount":{{.Variant}},"` + ReferenceKeyField + `":"{{.Key}}"}`))
	case KeyInQuery:
		t.Key.In, t.Key.Name = KeyInQuery, ReferenceKeyField
	}
}
