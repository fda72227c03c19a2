package main

import (
	"errors"
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
	out        string // a file, or a directory for several operations
	url        string // "": the document's first server
	keyHeader  string // "": operations that declare no key get a TODO
}

// initFromOpenAPI drafts a target file per chosen operation: to stdout
// or --out FILE for one, DIR/<operationId>.yaml for several.
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
	drafts, err := doc.Drafts(openapi.Options{Operations: o.operations, All: o.all, KeyHeader: o.keyHeader, BaseURL: o.url})
	if err != nil {
		return fail(stderr, err)
	}
	dir := ""
	if info, err := os.Stat(o.out); o.out != "" && (len(drafts) > 1 || err == nil && info.IsDir()) {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return fail(stderr, err)
		}
		dir = o.out
	} else if len(drafts) > 1 {
		return fail(stderr, fmt.Sprintf("%d operations chosen: give --out DIR to write one file each", len(drafts)))
	}
	var errs []error
	for _, d := range drafts {
		file := o.out
		if dir != "" {
			file = filepath.Join(dir, fileName(d.Plan.ID)+".yaml")
		}
		if file == "" {
			stdout.Write(d.Text)
			continue
		}
		if err := writeNew(file, d.Text); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(stdout, "wrote %s (%s %s)%s\n", file, d.Plan.Method, d.Plan.Path, todoCount(len(d.TODOs)))
	}
	if err := errors.Join(errs...); err != nil {
		return fail(stderr, err)
	}
	if o.out != "" {
		fmt.Fprintln(stdout, "check each with: idemspec validate FILE (it names each TODO and what is still missing)")
	}
	return exitOK
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

// fileName makes an operationId safe as a file name.
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
