package targets

import (
	"text/template"

	"github.com/idemspec/idemspec/fakes"
)

// FakeKeyIn describes a fake that reads its key from in (fakes.KeyInHeader,
// fakes.KeyInBody or fakes.KeyInQuery): the key's place in t, and for a
// body key, the create body with the key's field. The fakes name a body
// key and a key parameter as Square names its body key.
func FakeKeyIn(t *Target, in string) {
	switch in {
	case fakes.KeyInBody:
		t.Key.In, t.Key.Name = KeyInBody, fakes.KeyField
		t.Create.Body = template.Must(template.New("body").Parse(`{"marker":"{{.Marker}}","amount":{{.Variant}},"` + fakes.KeyField + `":"{{.Key}}"}`))
	case fakes.KeyInQuery:
		t.Key.In, t.Key.Name = KeyInQuery, fakes.KeyField
	}
}
