package targets

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"text/template"
	"time"

	"github.com/idemspec/idemspec/fakes"
)

// FakePrefix names the built-in targets: fake:reference, fake:<mutant>.
const FakePrefix = "fake:"

// Load builds a target from a reference: "fake:NAME[?delay=D&in_progress_timeout=D]"
// starts a built-in fake in this process; anything else is a target file.
func Load(ref string) (*Target, error) {
	if strings.HasPrefix(ref, FakePrefix) {
		return StartFake(ref)
	}
	return LoadFile(ref)
}

// StartFake starts a built-in fake on a loopback port and describes it.
func StartFake(ref string) (*Target, error) {
	spec, query, _ := strings.Cut(strings.TrimPrefix(ref, FakePrefix), "?")
	opts := fakes.Options{Mutant: spec}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	for name, vals := range q {
		d, err := time.ParseDuration(vals[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %q is not a duration", ref, name, vals[0])
		}
		switch name {
		case "delay":
			opts.Delay = d
		case "in_progress_timeout":
			opts.InProgressTimeout = d
		default:
			return nil, fmt.Errorf("%s: unknown option %q (known: delay, in_progress_timeout)", ref, name)
		}
	}
	in, err := fakes.Start(opts, "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	t := FakeTarget(in.URL, ref)
	t.InProgressTimeout = in.InProgressTimeout()
	t.Lifecycle = in
	return t, nil
}

// FakeTarget describes the API every fake serves, at baseURL. It is also
// the shape of the example target file for `idemspec serve`.
func FakeTarget(baseURL, name string) *Target {
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
		Key:               Key{Header: fakes.DefaultKeyHeader, Format: "uuid"},
		Headers:           http.Header{},
		LookupPath:        "/idempotency-keys/{{.Key}}",
		LookupIDField:     "resource_id",
		Reconcile:         ReconcileLookup,
		Profile:           profiles["ietf"],
		InProgressTimeout: fakes.DefaultInProgressTimeout,
		Direct:            newDirectClient(),
	}
	t.Oracle = &ListOracle{
		target:  t,
		path:    template.Must(template.New("oracle").Parse(`/resources?marker={{.Marker}}`)),
		Items:   "items",
		IDField: "id",
	}
	return t
}
