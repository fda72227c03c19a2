package targets

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"text/template"

	"github.com/idemspec/idemspec/internal/exactjson"
)

type idLookupSpec struct {
	Path        string `yaml:"path" required:"true"`
	MarkerField string `yaml:"marker_field"`
}

// IDOracle is an oracle that cannot find resources by marker, only
// confirm the ids the harness saw in answers. The harness passes them.
type IDOracle interface {
	Oracle
	ObserveIDs(ctx context.Context, marker string, ids []string) (Observation, error)
}

// LookupOracle reads each id the answers named at a by-id endpoint
// (GET /resources/{{.ID}}) and counts those that exist (and, with
// MarkerField, carry the marker).
type LookupOracle struct {
	target      *Target
	path        *template.Template
	MarkerField string
}

func (o *LookupOracle) Kind() string { return "lookup" }

// Evidence says what a reading from this oracle proves.
func (o *LookupOracle) Evidence() string {
	return "weak: confirms only the ids the answers named; a duplicate whose answer was lost or never named is invisible to it"
}

// Observe cannot count by marker alone.
func (o *LookupOracle) Observe(ctx context.Context, marker string) (Observation, error) {
	return o.ObserveIDs(ctx, marker, nil)
}

// ObserveIDs looks each id up.
func (o *LookupOracle) ObserveIDs(ctx context.Context, marker string, ids []string) (Observation, error) {
	obs := Observation{IDs: []string{}}
	setup, err := o.target.SetupFor(ctx, marker)
	if err != nil {
		return Observation{}, err
	}
	for _, id := range ids {
		path, err := execute(o.path, cleanupItem{ID: id, Marker: marker, Setup: setup})
		if err != nil {
			return Observation{}, err
		}
		status, body, err := o.target.get(ctx, path)
		if err != nil {
			return Observation{}, fmt.Errorf("oracle lookup %s: %w", path, err)
		}
		switch {
		case status == http.StatusNotFound || status == http.StatusGone:
			continue
		case status != http.StatusOK:
			return Observation{}, fmt.Errorf("oracle lookup %s: status %d", path, status)
		}
		if o.MarkerField != "" {
			doc, err := exactjson.Decode(body)
			if err != nil {
				return Observation{}, errors.Join(fmt.Errorf("oracle lookup %s: answer is not JSON", path), err)
			}
			if fmt.Sprint(dig(doc, o.MarkerField)) != marker {
				continue
			}
		}
		obs.Count++
		obs.addID(id)
	}
	return obs, nil
}
