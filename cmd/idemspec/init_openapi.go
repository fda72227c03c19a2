package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/idemspec/idemspec/targets"
	"github.com/idemspec/idemspec/targets/openapi"
)

// openAPIFlags are init's flags for drafting from an OpenAPI document.
type openAPIFlags struct {
	document   string
	operations []string
	all        bool
	out        string // a file, or an existing directory to write it in
	url        string // "": the document's first server
	keyHeader  string // "": operations that declare no key get a TODO
}

// initFromOpenAPI drafts one target file of the chosen operations, to
// stdout, --out FILE, or a file in --out DIR named after what it holds:
// DIR/<operationId>.yaml for one operation, DIR/<document>-target.yaml
// for several.
func initFromOpenAPI(o openAPIFlags, stdout, stderr io.Writer) int {
	if o.url != "" && !strings.HasPrefix(o.url, "http://") && !strings.HasPrefix(o.url, "https://") {
		return fail(stderr, fmt.Sprintf("--url %q is not an http:// or https:// URL", o.url))
	}
	if o.keyHeader != "" && !targets.ValidHeaderName(o.keyHeader) {
		return fail(stderr, fmt.Sprintf("--key-header %q is not a header name", o.keyHeader))
	}
	data, err := os.ReadFile(o.document)
	if err != nil {
		return fail(stderr, err)
	}
	doc, err := openapi.Load(o.document, data)
	if err != nil {
		return fail(stderr, err)
	}
	d, err := doc.Draft(openapi.Options{Operations: o.operations, All: o.all, KeyHeader: o.keyHeader, BaseURL: o.url, CheckKeyPattern: targets.CheckKeyPattern})
	if err != nil {
		return fail(stderr, err)
	}
	if o.out == "" {
		stdout.Write(d.Text)
		return exitOK
	}
	file := o.out
	if info, err := os.Stat(o.out); err == nil && info.IsDir() {
		// A YAML document's own name would be the document itself when
		// it lies in DIR: several operations' file says it is a target.
		name := fileName(d.Plans[0].ID)
		if len(d.Plans) > 1 {
			name = fileName(strings.TrimSuffix(filepath.Base(o.document), filepath.Ext(o.document))) + "-target"
		}
		file = filepath.Join(o.out, name+".yaml")
	}
	if err := writeNew(file, d.Text); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s (%s)%s\n", file, drafted(d.Plans), todoCount(len(d.TODOs)))
	fmt.Fprintf(stdout, "check it with: idemspec validate %s (it names each TODO and what is still missing)\n", file)
	return exitOK
}

// drafted says what a file holds: "POST /orders" for one operation,
// "2 operations: create-order POST /orders, refund ..." for several, up
// to ten of them.
func drafted(plans []*openapi.Plan) string {
	if len(plans) == 1 {
		return plans[0].Method + " " + plans[0].Path
	}
	var ops []string
	for i, p := range plans {
		if i == 10 {
			ops = append(ops, fmt.Sprintf("and %d more", len(plans)-10))
			break
		}
		ops = append(ops, p.Name+" "+p.Method+" "+p.Path)
	}
	return fmt.Sprintf("%d operations: %s", len(plans), strings.Join(ops, ", "))
}

func todoCount(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "; 1 TODO"
	}
	return fmt.Sprintf("; %d TODOs", n)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileName makes an operationId or a document's name safe as a file name.
func fileName(id string) string {
	return strings.Trim(unsafeName.ReplaceAllString(id, "-"), ".-")
}

// writeNew writes a file that must not exist yet.
func writeNew(file string, data []byte) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
