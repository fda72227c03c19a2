package targets

import (
	"strings"

	"github.com/idemspec/idemspec/internal/exactjson"
)

// MarkerOf reads the marker a create's JSON body carries where the
// file's create.body puts {{.Marker}}: how the oracle counts the
// resources of a program that chose its own payload (a program that
// puts an order number where idemspec puts its marker has its orders
// counted by it). found is false when the body template holds the
// marker in no JSON string, or the body has nothing there.
func (t *Target) MarkerOf(body []byte) (marker string, found bool) {
	if t.Create.Body == nil {
		return "", false
	}
	probe, err := render(t.Create.Body, bodyData{Payload{Marker: probeMarker, Variant: "1"}, keySlot, t.Create.setupProbe})
	if err != nil {
		return "", false
	}
	tmpl, err := exactjson.Decode([]byte(probe))
	if err != nil {
		return "", false
	}
	path, prefix, suffix, ok := markerPath(tmpl, "")
	if !ok {
		return "", false
	}
	v, err := exactjson.Decode(body)
	if err != nil {
		return "", false
	}
	s, ok := dig(v, path).(string)
	if !ok || !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, suffix) || len(s) <= len(prefix)+len(suffix) {
		return "", false
	}
	return s[len(prefix) : len(s)-len(suffix)], true
}

// markerPath finds the first object field whose string holds the probe
// marker: its dotted path, and what the template writes around it.
func markerPath(v any, path string) (string, string, string, bool) {
	switch v := v.(type) {
	case map[string]any:
		for name, sub := range v {
			if p, pre, suf, ok := markerPath(sub, strings.TrimPrefix(path+"."+name, ".")); ok {
				return p, pre, suf, true
			}
		}
	case string:
		if before, after, ok := strings.Cut(v, probeMarker); ok && path != "" {
			return path, before, after, true
		}
	}
	return "", "", "", false
}
