package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/idemspec/idemspec/internal/console"
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
	force      bool   // --out may replace an existing file
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
	data, err := readDocument(o.document)
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
	for _, w := range d.Warnings {
		fmt.Fprintln(stderr, "idemspec: warning: "+console.Line(w))
	}
	if o.out == "" || o.out == "-" {
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
	if err := writeNew(file, d.Text, o.force); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s (%s)%s\n", file, console.Line(drafted(d.Plans)), todoCount(len(d.TODOs)))
	fmt.Fprintf(stdout, "check it with: idemspec validate %s (it names each TODO and what is still missing)\n", file)
	return exitOK
}

// readDocument reads a document of at most openapi.MaxDocument bytes,
// and never more than a byte past it: a larger one is refused, at no
// more cost, with its size.
func readDocument(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		if err := openapi.CheckSize(info.Size()); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, openapi.MaxDocument+1))
	if err == nil {
		err = openapi.CheckSize(int64(len(data)))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return data, nil
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

// fileName makes an operationId or a document's name safe as a file
// name in DIR: letters, digits, dots, dashes and underscores, never
// starting with a dot or a dash, and "operation" when nothing is left
// (an operationId of "..").
func fileName(id string) string {
	return or(strings.Trim(unsafeName.ReplaceAllString(id, "-"), ".-"), "operation")
}

// writeNew writes a file that must not exist yet, unless force says it
// may be replaced.
func writeNew(file string, data []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(file, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists already, and init does not overwrite a file: give --force to replace it, or another --out", file)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
