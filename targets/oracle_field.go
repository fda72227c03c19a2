package targets

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"text/template"

	"github.com/idemspec/idemspec/internal/exactjson"
)

// fieldSpec is oracle.field, as written.
type fieldSpec struct {
	Path  string `yaml:"path" required:"true"`
	Field string `yaml:"field" required:"true"`
}

// FieldOracle reads a counter the API keeps: one field of one answer
// whose value is how many times the action took effect (a parent's
// event_count, a payment's capture count). It is how an action whose
// effect is a changed field, not a new row, is counted. The path names
// one marker's object, through {{.Marker}} or the marker's setup.
type FieldOracle struct {
	target *Target
	path   *template.Template
	// Field is the JSON path of the counter.
	Field string
}

func (o *FieldOracle) Kind() string { return "field" }

// Evidence says what a reading from this oracle proves.
func (o *FieldOracle) Evidence() string {
	return "as strong as the API's counter: a count it keeps (no ids, so no check can tell which effect is which)"
}

// Observe reads the counter for marker.
func (o *FieldOracle) Observe(ctx context.Context, marker string) (Observation, error) {
	setup, err := o.target.SetupFor(ctx, marker)
	if err != nil {
		return Observation{}, err
	}
	path, err := execute(o.path, readingData(marker, setup))
	if err != nil {
		return Observation{}, err
	}
	status, body, err := o.target.get(ctx, path)
	if err != nil {
		return Observation{}, fmt.Errorf("oracle field %s: %w", path, err)
	}
	if status != http.StatusOK {
		return Observation{}, fmt.Errorf("oracle field %s answered %d: %s", path, status, o.target.Redact(snippet(body)))
	}
	v, err := exactjson.Decode(body)
	if err != nil {
		return Observation{}, fmt.Errorf("oracle field %s: not JSON: %v", path, err)
	}
	n, ok := dig(v, o.Field).(json.Number)
	count, err := n.Int64()
	if !ok || err != nil || count < 0 {
		return Observation{}, fmt.Errorf("oracle field %s: %s is %s, want a count (a non-negative integer)", path, o.Field, o.target.Redact(snippet([]byte(fmt.Sprint(dig(v, o.Field))))))
	}
	return Observation{Count: int(count)}, nil
}

// fieldOracle builds oracle.field.
func (d *document) fieldOracle(s *fieldSpec, t *Target) (*FieldOracle, error) {
	o := &FieldOracle{target: t, Field: s.Field}
	if _, err := d.jsonPathField("oracle.field.field", s.Field); err != nil {
		return nil, err
	}
	tmpl, rendered, err := d.markerPath("oracle.field.path", s.Path, t, false)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(rendered, probeMarker) && !strings.Contains(rendered, probeSetup) {
		return nil, d.errorf("oracle.field.path", "must name one marker's object, through {{.Marker}} or {{.Setup.NAME.FIELD}}: a counter shared by every check counts them all")
	}
	o.path = tmpl
	return o, nil
}
