package fakes

import (
	"fmt"
	"net/http"
	"strconv"
	"text/template"

	"github.com/idemspec/idemspec/targets"
)

// DescribeKeyIn describes a fake that reads its key from in (KeyInHeader,
// KeyInBody or KeyInQuery): the key's place in t, and for a body key,
// the create body with the key's field. The fakes name a body key and a
// key parameter as Square names its body key.
func DescribeKeyIn(t *targets.Target, in string) { targets.ReferenceKeyIn(t, in) }

// describeAction describes the fakes' action on a parent instead of their
// create: each marker's setup creates a resource, and the operation
// appends an event to it (POST /resources/{id}/events), counted in that
// resource's list of events, or with counter, in the resource's
// event_count field (a field oracle). The parent's create carries its own
// key in the fake's place for keys (in, KeyIn*), as the fake requires one.
func describeAction(t *targets.Target, in string, counter bool) {
	parent := targets.SetupRequest{Name: "resource", Method: http.MethodPost, ContentType: "application/json", Headers: map[string]*template.Template{}}
	path, body := "/resources", `{"marker":"{{.Marker}}","amount":0}`
	switch in {
	case KeyInBody:
		body = `{"marker":"{{.Marker}}","amount":0,"` + KeyField + `":"{{.Key}}"}`
	case KeyInQuery:
		path += "?" + KeyField + "={{.Key}}"
	default:
		parent.Headers[DefaultKeyHeader] = template.Must(template.New("header").Parse("{{.Key}}"))
	}
	parent.Path = template.Must(template.New("setup[0].path").Parse(path))
	parent.Body = template.Must(template.New("setup[0].body").Parse(body))
	t.SetSetup([]targets.SetupRequest{parent})
	t.Create.Path = "/resources/{{.Setup.resource.id}}/events"
	t.Create.PathTemplate = template.Must(template.New("create.path").Parse(t.Create.Path))
	if counter {
		t.Oracle = targets.NewFieldOracle(t, `/resources/{{.Setup.resource.id}}`, "event_count")
		return
	}
	t.Oracle = targets.NewListOracle(t, `/resources/{{.Setup.resource.id}}/events?marker={{.Marker}}`, "items", "id")
}

// pageOption reads a fake's page_size or page_style option.
func pageOption(opts *Options, name, value string) error {
	if name == "page_style" {
		opts.PageStyle = value
		return nil
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > MaxPageSize {
		return fmt.Errorf("page_size: %q is not a count from 1 to %d", value, MaxPageSize)
	}
	opts.PageSize = n
	return nil
}

// oraclePages is how the oracle reads a fake's list in its page style
// (nil when the fake answers every item at once). The styles use the
// target file's ways to the next page in turn, so the reference proves
// each of them in the detection matrix.
func oraclePages(opts Options) *targets.Pages {
	if opts.PageSize <= 0 {
		return nil
	}
	p := &targets.Pages{Next: opts.PageStyle, FirstPage: 1, Max: targets.DefaultMaxPages}
	switch opts.PageStyle {
	case PageCursor:
		p.Field, p.Param = "next_cursor", "cursor"
	case PagePage:
		p.Param, p.More = "page", "has_more"
	case PageOffset:
		p.Param = "offset"
	default:
		p.Next = targets.PagesLink
	}
	return p
}
