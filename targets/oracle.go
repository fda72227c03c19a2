package targets

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"text/template"

	"github.com/idemspec/idemspec/internal/exactjson"
)

// Observation is what an oracle saw: how many resources carry a marker,
// and their ids when the oracle lists them (nil when it only counts).
type Observation struct {
	Count int
	// IDs are the ids listed, the first MaxObservedIDs of them: a list
	// of 900k ids in every reading held 3.7 GB and wrote a 380 MB
	// report. Omitted says how many more were listed.
	IDs     []string
	Omitted int
}

// MaxObservedIDs bounds the ids one observation keeps: above twice the
// largest burst (harness.MaxBurst), so a marker's duplicates are all
// kept (and removed by cleanup), while a list that answers every
// resource it has costs a bounded sample.
const MaxObservedIDs = 4096

// addID keeps id, or counts it as omitted past the bound.
func (o *Observation) addID(id string) {
	if len(o.IDs) < MaxObservedIDs {
		o.IDs = append(o.IDs, id)
		return
	}
	o.Omitted++
}

// Oracle counts the resources carrying a marker. It is the judge's own
// view of the target's state, independent of what the answers claimed.
type Oracle interface {
	Kind() string
	Observe(ctx context.Context, marker string) (Observation, error)
}

// ListOracle reads a list endpoint and counts the items carrying the marker.
type ListOracle struct {
	target *Target
	path   *template.Template
	// Items is the dotted path of the array in the answer ("" for a bare array).
	Items string
	// IDField is the dotted path of an item's id.
	IDField string
	// MarkerField, when set, counts only items whose field equals the
	// marker (for list endpoints that do not filter).
	MarkerField string
	// Pages, when set, says how to read a list that spans several
	// answers; nil reads one (and an answer that links a next page is
	// then an error, not a short count).
	Pages *Pages
}

func (o *ListOracle) Kind() string { return "list" }

// Observe lists the resources carrying marker, on every page.
func (o *ListOracle) Observe(ctx context.Context, marker string) (Observation, error) {
	path, err := o.render(ctx, marker)
	if err != nil {
		return Observation{}, err
	}
	u, err := o.target.pathURL(path)
	if err != nil {
		return Observation{}, fmt.Errorf("oracle.list.path: %w", err)
	}
	return o.readPages(ctx, u, marker)
}

// Request builds the list request for marker, for a client that
// reconciles through the oracle (see ClientOracle).
func (o *ListOracle) Request(ctx context.Context, marker string) (*http.Request, error) {
	path, err := o.render(ctx, marker)
	if err != nil {
		return nil, err
	}
	u, err := o.target.pathURL(path)
	if err != nil {
		return nil, fmt.Errorf("oracle.list.path: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("oracle.list.path: %w", err)
	}
	o.target.addHeaders(req)
	return req, nil
}

func (o *ListOracle) render(ctx context.Context, marker string) (string, error) {
	setup, err := o.target.SetupFor(ctx, marker)
	if err != nil {
		return "", err
	}
	return execute(o.path, readingData(marker, setup))
}

// Read counts the items carrying marker in one list answer.
func (o *ListOracle) Read(status int, body []byte, marker string) (Observation, error) {
	return o.read(status, &listPage{body: body}, marker)
}

// read counts the items carrying marker on a page, and keeps the
// decoded answer and its items on it for finding the next page.
func (o *ListOracle) read(status int, page *listPage, marker string) (Observation, error) {
	if status != http.StatusOK {
		return Observation{}, StatusError(status)
	}
	var err error
	if page.doc, err = exactjson.Decode(page.body); err != nil {
		return Observation{}, fmt.Errorf("answer is not JSON: %w", err)
	}
	items, markerAt, idAt, err := o.paths()
	if err != nil {
		return Observation{}, err
	}
	var ok bool
	if page.items, ok = items.array(page.doc); !ok {
		return Observation{}, fmt.Errorf("no array at %q", o.Items)
	}
	obs := Observation{IDs: []string{}}
	for _, it := range page.items {
		if o.MarkerField != "" {
			m, err := markerAt.value(it)
			if err != nil {
				return Observation{}, fmt.Errorf("marker_field: %w", err)
			}
			if fmt.Sprint(m) != marker {
				continue
			}
		}
		obs.Count++
		id, err := idAt.value(it)
		if err != nil {
			return Observation{}, fmt.Errorf("id_field: %w", err)
		}
		if id != nil {
			obs.addID(fmt.Sprint(id))
		}
	}
	return obs, nil
}

// paths parses the oracle's paths (checked when the file loaded).
func (o *ListOracle) paths() (items, marker, id jsonPath, err error) {
	for _, p := range []struct {
		into *jsonPath
		text string
	}{{&items, o.Items}, {&marker, o.MarkerField}, {&id, o.IDField}} {
		if *p.into, err = parsePath(p.text); err != nil {
			return
		}
	}
	return
}

// Evidence says what a reading from this oracle proves.
func (o *ListOracle) Evidence() string {
	return "strong: lists every resource carrying the marker, with ids, from the API's own list endpoint"
}

// EvidenceOf says what t's counts rest on, for the report's header: its
// oracle's evidence, after what else they rest on (CountedBy).
func EvidenceOf(t *Target) string {
	e := Evidence(t.Oracle)
	if t.CountedBy == "" {
		return e
	}
	if e == "" {
		return t.CountedBy
	}
	return t.CountedBy + "; where the oracle is read, " + e
}

// Evidence says how strong an oracle's readings are, for the report.
func Evidence(o Oracle) string {
	if e, ok := o.(interface{ Evidence() string }); ok {
		return e.Evidence()
	}
	return ""
}

// oracle builds the one oracle the file describes.
func (d *document) oracle(s oracleSpec, idField string, t *Target, expand expander) (Oracle, error) {
	n := 0
	for _, set := range []bool{s.List != nil, s.Lookup != nil, s.SQL != nil, s.Command != nil, s.Field != nil, s.Wire != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, d.errorf("oracle", "give exactly one of list, lookup, sql, command, field, wire (found %d)", n)
	}
	switch {
	case s.Wire != nil:
		return &WireOracle{}, nil
	case s.List != nil:
		return d.listOracle(s.List, idField, t)
	case s.Field != nil:
		return d.fieldOracle(s.Field, t)
	case s.Lookup != nil:
		o := &LookupOracle{target: t, MarkerField: s.Lookup.MarkerField}
		if _, err := d.jsonPathField("oracle.lookup.marker_field", o.MarkerField); err != nil {
			return nil, err
		}
		var err error
		if o.path, _, err = d.markerPath("oracle.lookup.path", s.Lookup.Path, t, true); err != nil {
			return nil, err
		}
		return o, nil
	case s.SQL != nil:
		if _, ok := sqlDrivers[s.SQL.Driver]; !ok {
			return nil, d.errorf("oracle.sql.driver", "%q is not a known driver (sqlite, postgres)", s.SQL.Driver)
		}
		dsn, err := expand("oracle.sql.dsn", s.SQL.DSN)
		if err != nil {
			return nil, err
		}
		// A DSN written in the file holds credentials too.
		d.secrets(t, "oracle.sql.dsn", dsnSecrets(dsn)...)
		o := &SQLOracle{Driver: s.SQL.Driver, Query: s.SQL.Query, dsn: dsn}
		if s.SQL.Driver == "postgres" {
			if o.postgres, o.hosts, err = t.postgresConfig(dsn); err != nil {
				return nil, d.errorf("oracle.sql.dsn", "not a postgres DSN: %s", t.Redact(err.Error()))
			}
		}
		return o, nil
	default:
		run, err := expand("oracle.command.run", s.Command.Run)
		if err != nil {
			return nil, err
		}
		timeout, err := d.duration("oracle.command.timeout", s.Command.Timeout, DefaultCommandTimeout)
		if err != nil {
			return nil, err
		}
		return &CommandOracle{Run: run, Timeout: timeout, target: t}, nil
	}
}

// listOracle builds oracle.list. A path without {{.Marker}} is allowed
// when marker_field picks the run's items out of a list that does not
// filter (such a list is long: see pages).
func (d *document) listOracle(l *listSpec, idField string, t *Target) (*ListOracle, error) {
	o := &ListOracle{target: t, Items: l.Items, IDField: or(l.IDField, idField), MarkerField: l.MarkerField}
	var mustHold []string
	if l.MarkerField == "" {
		mustHold = []string{probeMarker}
	}
	var err error
	if o.path, _, err = d.markerPath("oracle.list.path", l.Path, t, false, mustHold...); err != nil {
		return nil, err
	}
	idAt := "oracle.list.id_field"
	if l.IDField == "" {
		idAt = "create.id_field" // the default
	}
	for field, path := range map[string]string{"oracle.list.items": l.Items, "oracle.list.marker_field": l.MarkerField, idAt: o.IDField} {
		if _, err := d.jsonPathField(field, path); err != nil {
			return nil, err
		}
	}
	if o.Pages, err = d.pages(l.Pages); err != nil {
		return nil, err
	}
	return o, nil
}

// dsnSecrets picks the password out of a URL-style DSN.
func dsnSecrets(dsn string) []string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return nil
	}
	if p, ok := u.User.Password(); ok && p != "" {
		return []string{p}
	}
	return nil
}
