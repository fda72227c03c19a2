package main

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/template"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/targets"
)

func init() {
	register(command{use: "init", summary: "write a commented target file to start from", long: initUsage, define: initCommand})
}

const initUsage = `Write a commented target file to start from.

  idemspec init [--out FILE|-] [--force] [--url URL] [--path PATH] [--key-header NAME]
      a commented file for one create endpoint, every field explained
  idemspec init --openapi DOC [--operation ID ...] [--all] [--key-header NAME] [--url URL] [--out FILE|DIR|-] [--force]
      a file drafted from an OpenAPI document: one operation's create:
      (by default the API's main create, ranked: the file says why),
      or several (--operation repeated, --all) under operations:, sharing
      base_url and headers; an action under a path parameter gets a
      setup: request of the POST that makes its parent, when the document
      has one; what the document leaves open is a # TODO: that idemspec
      validate lists. --out DIR (an existing directory)
      writes DIR/<operationId>.yaml for one operation and
      DIR/<document>-target.yaml for several. No file is overwritten
      without --force; --out - (or none) writes to standard output.
`

// targetTemplate is the file init writes; every field is explained where
// it stands, and the result passes `idemspec validate` as written.
var targetTemplate = template.Must(template.New("target").Parse(`# idemspec target file: what to test and how to judge it.
# Check it with: idemspec validate {{.File}}
# Run it with:   idemspec run --target {{.File}} --dry-run   (then without --dry-run)
name: {{.Name}}

# Where the API is. Secrets come from the environment: ${NAME}.
base_url: {{.URL}}
# idemspec refuses a non-loopback base_url unless this says true (or
# --allow-remote is given): it sends bursts of duplicates and injects faults.
# allow_remote: true

# The create call under test. The body is a Go template; {{"{{.Marker}}"}} must
# appear (the oracle counts this run's resources by it) and {{"{{.Variant}}"}}
# makes a different payload under the same key.
create:
  method: POST
  path: {{.Path}}
  body: '{"marker":"{{"{{.Marker}}"}}","amount":{{"{{.Variant}}"}}}'
  content_type: application/json
  id_field: id                  # dotted path of the resource id in the answer

key:
  header: {{.KeyHeader}}
  format: uuid                  # or: pattern, with pattern: '[A-Za-z0-9]{24}'

# Sent with every request. Header values may use ${ENV}.
# headers:
#   Authorization: "Bearer ${API_TOKEN}"

# The oracle: how idemspec counts the resources carrying a marker.
oracle:
  list:
    path: {{.Path}}?marker={{"{{.Marker}}"}}
    items: items                # dotted path of the array ("" for a bare array)
    # marker_field: marker      # when the list endpoint does not filter

# profile: ietf                 # which status codes the API uses (idemspec list)
# in_progress_timeout: 30s      # how long a key may stay "in progress"

# Remove what the run created, at the end (also after Ctrl-C):
# cleanup:
#   delete:
#     path: {{.Path}}/{{"{{.ID}}"}}
#   # or: command: ./scripts/cleanup.sh   (gets IDEMSPEC_RUN_ID, IDEMSPEC_MARKERS)
`))

func initCommand(fs *pflag.FlagSet) body {
	var out, rawURL, path, keyHeader string
	var o openAPIFlags
	fs.StringVar(&out, "out", "", "write the file here (refuses to overwrite without --force); default or -: standard output. With --openapi, an existing directory: the file is named in it (above)")
	fs.BoolVar(&o.force, "force", false, "let --out replace an existing file")
	fs.StringVar(&rawURL, "url", "http://127.0.0.1:8080", "the API's base URL (with --openapi: default, the document's first server)")
	fs.StringVar(&path, "path", "/resources", "the create endpoint's path")
	fs.StringVar(&keyHeader, "key-header", "Idempotency-Key", "the idempotency key header (with --openapi: the header of operations that declare no key)")
	fs.StringVar(&o.document, "openapi", "", "draft the file from this OpenAPI 3.0 or 3.1 document (JSON or YAML)")
	fs.StringArrayVar(&o.operations, "operation", nil, "with --openapi: the operationId to draft (repeat for several, in one file under operations:)")
	fs.BoolVar(&o.all, "all", false, "with --openapi: draft every POST that creates or acts, keyed or not (token, search and session calls left out), in one file under operations:")
	return func(_ []string, stdout, stderr io.Writer) int {
		if o.document != "" {
			if fs.Changed("path") {
				return fail(stderr, "--path picks nothing from an OpenAPI document: name the operation with --operation")
			}
			o.out, o.url, o.keyHeader = out, changed(fs, "url", rawURL), changed(fs, "key-header", keyHeader)
			return initFromOpenAPI(o, stdout, stderr)
		}
		if len(o.operations) > 0 || o.all {
			return fail(stderr, "--operation and --all choose operations of an --openapi document")
		}
		return writeTarget(out, rawURL, path, keyHeader, o.force, stdout, stderr)
	}
}

// changed is a flag's value when the command line or the environment
// set it, "" when it holds its default.
func changed(fs *pflag.FlagSet, name, value string) string {
	if fs.Changed(name) {
		return value
	}
	return ""
}

// writeTarget writes the commented target file init prints.
func writeTarget(out, rawURL, path, keyHeader string, force bool, stdout, stderr io.Writer) int {
	if out == "-" {
		out = ""
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail(stderr, fmt.Sprintf("--url %q is not an http:// or https:// URL", rawURL))
	}
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \t\n'\"") {
		return fail(stderr, fmt.Sprintf("--path %q must start with / and hold no spaces or quotes", path))
	}
	if !targets.ValidHeaderName(keyHeader) {
		return fail(stderr, fmt.Sprintf("--key-header %q is not a header name", keyHeader))
	}
	data := struct{ File, Name, URL, Path, KeyHeader string }{
		File: or(out, "target.yaml"), Name: u.Hostname(), URL: rawURL, Path: path, KeyHeader: keyHeader,
	}
	var text bytes.Buffer
	if err := targetTemplate.Execute(&text, data); err != nil {
		return fail(stderr, err)
	}
	if out == "" {
		stdout.Write(text.Bytes())
		return exitOK
	}
	if err := writeNew(out, text.Bytes(), force); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s; check it with: idemspec validate %s\n", out, out)
	return exitOK
}
