package targets

import (
	"regexp"
	"strings"
	"text/template"
)

// pathTemplate parses a path field of the target file (a template over
// data's fields) and checks it at load: it must parse, name only fields
// data has, render to a path on base_url (never a URL or //host), and
// contain each of mustHold's probes once rendered. data holds probe
// values; fields names the fields it knows, for the error.
func (d *document) pathTemplate(field, text string, data any, fields string, mustHold ...string) (*template.Template, string, error) {
	tmpl, rendered, err := d.renderTemplate(field, text, inPath, data, fields)
	if err != nil {
		return nil, "", err
	}
	if err := checkPath(rendered); err != nil {
		return nil, "", d.errorf(field, "%v", err)
	}
	for _, probe := range mustHold {
		if !strings.Contains(rendered, probe) {
			return nil, "", d.errorf(field, "must contain %s", probeFields[probe])
		}
	}
	return tmpl, rendered, nil
}

// probes idemspec renders templates with at load, and what each stands for.
const (
	probeMarker  = "idemspec-marker-probe"
	probeVariant = "idemspec-variant-probe"
	probeID      = "idemspec-id-probe"
	probeKey     = "idemspec-key-probe"
)

var probeFields = map[string]string{
	probeMarker: "{{.Marker}}: the oracle counts this run's resources by it",
	probeID:     "{{.ID}}: one request reads or deletes one resource",
	probeKey:    "{{.Key}}: a look-up reads one key's record",
}

// renderTemplate parses text and renders it with data, turning text/
// template's errors into ones that name the field and what it knows.
// Values are escaped for where they stand (see parseTemplate).
func (d *document) renderTemplate(field, text string, esc escaping, data any, fields string) (*template.Template, string, error) {
	tmpl, err := parseTemplate(field, text, esc)
	if err != nil {
		return nil, "", d.errorf(field, "%v", err)
	}
	out, err := render(tmpl, data)
	if err != nil {
		if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
			return nil, "", d.errorf(field, "{{.%s}} is not known here (known: %s)", m[1]+m[2], or(fields, "none: the field is sent as written"))
		}
		return nil, "", d.errorf(field, "%s", templateReason(err))
	}
	return tmpl, out, nil
}

var unknownField = regexp.MustCompile(`can't evaluate field (\w+)|map has no entry for key "?(\w+)"?`)

// templateReason drops text/template's "template: NAME:LINE:COL: " prefix.
func templateReason(err error) string {
	s, ok := strings.CutPrefix(err.Error(), "template: ")
	if i := strings.LastIndex(s, ": "); ok && i >= 0 {
		return s[i+2:]
	}
	return s
}

// noFields is the data of a path that takes no template fields.
type noFields struct{}
