package targets

import (
	"net/url"
	"text/template"
)

// A target may be described in code rather than by a file: the built-in
// fakes describe their API so (package fakes), and start the server it
// names. These build the parts of such a Target that a file's reader
// fills in itself.

// NewListOracle counts the resources a list answers at path, a template
// over the marker and a marker's setup answers ({{.Marker}},
// {{.Setup.NAME.FIELD}}); items and idField are dotted paths as in a
// target file's oracle.list.
func NewListOracle(t *Target, path, items, idField string) *ListOracle {
	return &ListOracle{
		target:  t,
		path:    template.Must(template.New("oracle.list.path").Parse(path)),
		Items:   items,
		IDField: idField,
	}
}

// NewFieldOracle reads the count from a field of the answer at path (a
// template as in NewListOracle).
func NewFieldOracle(t *Target, path, field string) *FieldOracle {
	return &FieldOracle{
		target: t,
		path:   template.Must(template.New("oracle.field.path").Parse(path)),
		Field:  field,
	}
}

// SetSetup makes reqs the requests sent once per marker before its first
// create (setup.go).
func (t *Target) SetSetup(reqs []SetupRequest) {
	t.Setup = reqs
	t.setups = &setups{done: map[string]*setupOnce{}}
}

// AddInstance adds a further instance of the service at u; l, when set,
// is that instance's process idemspec started, stopped by Close.
func (t *Target) AddInstance(u *url.URL, l Lifecycle) {
	t.Instances = append(t.Instances, u)
	if l != nil {
		t.others = append(t.others, l)
	}
}

// StandardProfile is the profile a target follows when it names none.
func StandardProfile() Profile { return profiles[DefaultProfile] }
