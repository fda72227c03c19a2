package targets

import (
	"net/http"
	"text/template"

	"github.com/idemspec/idemspec/fakes"
)

// FakeAction describes the fakes' action on a parent instead of their
// create: each marker's setup creates a resource, and the operation
// appends an event to it (POST /resources/{id}/events), counted in that
// resource's list of events, or with counter, in the resource's
// event_count field (a field oracle). The parent's create carries its own
// key in the fake's place for keys (in, fakes.KeyIn*), as the fake
// requires one.
func FakeAction(t *Target, in string, counter bool) {
	parent := SetupRequest{Name: "resource", Method: http.MethodPost, ContentType: "application/json", Headers: map[string]*template.Template{}}
	path, body := "/resources", `{"marker":"{{.Marker}}","amount":0}`
	switch in {
	case fakes.KeyInBody:
		body = `{"marker":"{{.Marker}}","amount":0,"` + fakes.KeyField + `":"{{.Key}}"}`
	case fakes.KeyInQuery:
		path += "?" + fakes.KeyField + "={{.Key}}"
	default:
		parent.Headers[fakes.DefaultKeyHeader] = template.Must(template.New("header").Parse("{{.Key}}"))
	}
	parent.Path = template.Must(template.New("setup[0].path").Parse(path))
	parent.Body = template.Must(template.New("setup[0].body").Parse(body))
	t.Setup = []SetupRequest{parent}
	t.setups = &setups{done: map[string]*setupOnce{}}
	t.Create.Path = "/resources/{{.Setup.resource.id}}/events"
	t.Create.PathTemplate = template.Must(template.New("create.path").Parse(t.Create.Path))
	if counter {
		t.Oracle = &FieldOracle{target: t, path: template.Must(template.New("oracle.field.path").Parse(`/resources/{{.Setup.resource.id}}`)), Field: "event_count"}
		return
	}
	t.Oracle.(*ListOracle).path = template.Must(template.New("oracle.list.path").Parse(`/resources/{{.Setup.resource.id}}/events?marker={{.Marker}}`))
}
