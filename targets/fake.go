package targets

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/idemspec/idemspec/fakes"
)

// FakePrefix names the built-in targets: fake:reference, fake:<mutant>.
const FakePrefix = "fake:"

// Load builds a target from a reference: "fake:NAME[?delay=D&in_progress_timeout=D&profile=P&instances=N&list_scope=tenant|all&page_size=N&page_style=S&key_in=header|body|query&action=events|event-count&drain=false]"
// starts a built-in fake in this process; anything else is a target file.
func Load(ref string) (*Target, error) {
	if strings.HasPrefix(ref, FakePrefix) {
		return StartFake(ref)
	}
	return LoadFile(ref)
}

// StartFake starts a built-in fake on a loopback port and describes it.
// With profile=P the fake answers by that profile's convention and the
// target declares it, so every profile is proven against a real server.
func StartFake(ref string) (*Target, error) {
	spec, query, _ := strings.Cut(strings.TrimPrefix(ref, FakePrefix), "?")
	opts := fakes.Options{Mutant: spec}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	profile := profiles[DefaultProfile]
	instances := 1
	action := ""
	for name, vals := range q {
		if name == "action" {
			if vals[0] != "events" && vals[0] != "event-count" {
				return nil, fmt.Errorf("%s: action: %q is not events or event-count (the fakes' action on a parent, counted in its list of events or its event_count field)", ref, vals[0])
			}
			action = vals[0]
			continue
		}
		if name == "instances" {
			if instances, err = strconv.Atoi(vals[0]); err != nil || instances < 1 || instances > 8 {
				return nil, fmt.Errorf("%s: instances: %q is not a count from 1 to 8", ref, vals[0])
			}
			continue
		}
		if name == "list_scope" {
			switch vals[0] {
			case "tenant":
			case "all":
				opts.ListAll = true
			default:
				return nil, fmt.Errorf("%s: list_scope: %q is not tenant or all", ref, vals[0])
			}
			continue
		}
		if name == "drain" {
			drain, err := strconv.ParseBool(vals[0])
			if err != nil {
				return nil, fmt.Errorf("%s: drain: %q is not true or false (false: a stop finishes nothing in flight)", ref, vals[0])
			}
			opts.NoDrain = !drain
			continue
		}
		if name == "key_in" {
			opts.KeyIn = vals[0]
			continue
		}
		if name == "page_size" || name == "page_style" {
			if err := fakePageOption(&opts, name, vals[0]); err != nil {
				return nil, fmt.Errorf("%s: %w", ref, err)
			}
			continue
		}
		if name == "profile" {
			if profile, err = LookupProfile(vals[0]); err != nil {
				return nil, fmt.Errorf("%s: %w", ref, err)
			}
			opts.Convention = conventionOf(profile)
			continue
		}
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
			return nil, fmt.Errorf("%s: unknown option %q (known: delay, in_progress_timeout, profile, instances, list_scope, page_size, page_style, key_in, action, drain)", ref, name)
		}
	}
	in, err := fakes.Start(opts, "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	t := FakeTarget(in.URL, ref)
	t.Oracle.(*ListOracle).Pages = fakePages(opts)
	FakeKeyIn(t, opts.KeyIn)
	if action != "" {
		FakeAction(t, opts.KeyIn, action == "event-count")
	}
	t.Profile = profile
	t.Key.Required = profile.KeyRequired
	t.InProgressTimeout = in.InProgressTimeout()
	t.Lifecycle = in
	if err := startFakeInstances(t, opts, in, instances); err != nil {
		t.Close()
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	return t, nil
}

// conventionOf is how a fake answers when it follows profile p. The ietf
// profile is the reference's own convention (fakes.IETF), which also
// marks replays although the draft names no header.
func conventionOf(p Profile) *fakes.Convention {
	if p.Name == DefaultProfile {
		return nil
	}
	return &fakes.Convention{
		Mismatch: p.Mismatch, InFlight: p.InFlight, MissingKey: p.MissingKey,
		KeyOptional: !p.KeyRequired, ReplayHeader: p.ReplayHeader,
		StoreFailures: p.FailedAttempt == FailureReplayed,
	}
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
		Key:               Key{In: KeyInHeader, Name: fakes.DefaultKeyHeader, Format: FormatUUID, Declared: true, Required: true},
		Headers:           http.Header{},
		LookupPath:        "/idempotency-keys/{{.Key}}",
		LookupIDField:     "resource_id",
		Reconcile:         ReconcileLookup,
		Profile:           profiles[DefaultProfile],
		FailTrigger:       &FailTrigger{Header: fakes.FailHeader, Value: "503"},
		InProgressTimeout: fakes.DefaultInProgressTimeout,
		// The fakes scope keys by bearer token: two tokens are two tenants.
		Tenants: []Tenant{
			{Name: "tenant-a", Headers: http.Header{"Authorization": {"Bearer idemspec-tenant-a"}}},
			{Name: "tenant-b", Headers: http.Header{"Authorization": {"Bearer idemspec-tenant-b"}}},
		},
	}
	t.Oracle = &ListOracle{
		target:  t,
		path:    template.Must(template.New("oracle.list.path").Parse(`/resources?marker={{.Marker}}`)),
		Items:   "items",
		IDField: "id",
	}
	t.Direct = t.newDirectClient()
	return t
}
