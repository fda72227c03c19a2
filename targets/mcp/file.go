package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/idemspec/idemspec/targets"
)

// File is a target file that describes an MCP server:
//
//	name: notes
//	mcp:
//	  command: idemspec serve --mcp --state notes.json
//	oracle: {tool: list_notes}
//	tools:
//	  put_note: {args: '{"name": "{{.Marker}}", "text": "x"}'}
type File struct {
	Name   string                  `yaml:"name"`
	MCP    Endpoint                `yaml:"mcp"`
	Oracle Oracle                  `yaml:"oracle"`
	Tools  map[string]ToolSettings `yaml:"tools"`
	Burst  int                     `yaml:"burst"`

	// Process, Restart, TLS and AllowRemote are read, for a server at a
	// URL, as in an HTTP target file (targets.ParseMCP): HTTP is the
	// server as a target the lanes stand in front of.
	Process     any             `yaml:"process"`
	Restart     any             `yaml:"restart"`
	TLS         any             `yaml:"tls"`
	AllowRemote bool            `yaml:"allow_remote"`
	HTTP        *targets.Target `yaml:"-"`
	// secrets holds, for a stdio server, the values from the environment
	// in mcp.command and mcp.env (HTTP holds a URL server's).
	secrets *targets.Target
	// path and keyLines place the file's tools.NAME.key fields, for an
	// error about one only the server's schema can show.
	path     string
	keyLines map[string]int
}

// Endpoint is how the server is reached: a command that speaks stdio,
// or the URL of a streamable HTTP endpoint.
type Endpoint struct {
	Command string            `yaml:"command"`
	Env     map[string]string `yaml:"env"`
	Dir     string            `yaml:"dir"`
	URL     string            `yaml:"url"`
}

// Load reads an MCP target file; an error names the file, the line and
// the field.
func Load(path string) (File, error) {
	b, err := targets.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return File{}, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := f.check(); err != nil {
		return File{}, fmt.Errorf("%s: %w", path, err)
	}
	f.path, f.keyLines = path, keyLines(b)
	if f.MCP.URL != "" {
		if f.HTTP, err = targets.ParseMCP(path, b); err != nil {
			return File{}, err
		}
	} else if f.Process != nil || f.Restart != nil || f.TLS != nil {
		return File{}, fmt.Errorf("%s: process:, restart: and tls: concern a server at mcp: url:; a stdio server (mcp: command:) is run by idemspec itself", path)
	} else {
		stdio, err := targets.ParseMCPStdio(path, b)
		if err != nil {
			return File{}, err
		}
		f.MCP.Env, f.secrets = stdio.Env, stdio.Secrets
	}
	return f, nil
}

// ForCommand is the file of a stdio server given as a command (the --cmd
// flag); the values of its ${NAME}s are secrets.
func ForCommand(command string) (File, error) {
	secrets, err := targets.CommandSecrets(command)
	if err != nil {
		return File{}, err
	}
	return File{MCP: Endpoint{Command: command}, secrets: secrets}, nil
}

// Redact replaces the file's secrets in s, in every form a report may
// carry them (targets.Target.Redact).
func (f File) Redact(s string) string {
	switch {
	case f.HTTP != nil:
		return f.HTTP.Redact(s)
	case f.secrets != nil:
		return f.secrets.Redact(s)
	}
	return s
}

// RedactWriter redacts the file's secrets from a stream; Flush it when
// the stream ends.
func (f File) RedactWriter(w io.Writer) *targets.RedactWriter {
	t := f.HTTP
	if t == nil {
		t = f.secrets
	}
	if t == nil {
		t = &targets.Target{}
	}
	return t.RedactWriter(w)
}

// Warnings are what loading the file found worth saying (a secret too
// short to redact).
func (f File) Warnings() []string {
	switch {
	case f.HTTP != nil:
		return f.HTTP.Warnings
	case f.secrets != nil:
		return f.secrets.Warnings
	}
	return nil
}

// Secrets are the values of the file's ${NAME}s (mcp.command, mcp.env,
// and for a server at a URL its headers), for a run that redacts them
// beside secrets of its own.
func (f File) Secrets() []string {
	switch {
	case f.HTTP != nil:
		return f.HTTP.Secrets
	case f.secrets != nil:
		return f.secrets.Secrets
	}
	return nil
}

// ForURL is the file of a server already running at url (the --url
// flag): the same rules as mcp: url: in a target file.
func ForURL(url string) (File, error) {
	f := File{MCP: Endpoint{URL: url}}
	b, err := yaml.Marshal(map[string]any{"mcp": map[string]string{"url": url}})
	if err != nil {
		return File{}, err
	}
	f.HTTP, err = targets.ParseMCP("--url", b)
	return f, err
}

func (f File) check() error {
	switch {
	case f.MCP.Command == "" && f.MCP.URL == "":
		return errors.New("mcp: give command (a server that speaks stdio) or url (streamable HTTP)")
	case f.MCP.Command != "" && f.MCP.URL != "":
		return errors.New("mcp: give command or url, not both")
	case f.Burst < 0:
		return errors.New("burst: must be positive")
	}
	return nil
}

// keyLines maps each tool to the line of its key: field.
func keyLines(b []byte) map[string]int {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	tools := member(doc.Content[0], "tools")
	out := map[string]int{}
	for i := 0; tools != nil && i+1 < len(tools.Content); i += 2 {
		if k := member(tools.Content[i+1], "key"); k != nil {
			out[tools.Content[i].Value] = k.Line
		}
	}
	return out
}

// member is the value of a mapping's member name, or nil.
func member(n *yaml.Node, name string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == name {
			return n.Content[i+1]
		}
	}
	return nil
}

// KeyError is an error about tools.TOOL.key, placed in the file.
func (f File) KeyError(tool, msg string) error {
	where := f.path
	if where == "" {
		where = "the target file"
	}
	if line := f.keyLines[tool]; line > 0 {
		where += fmt.Sprintf(":%d", line)
	}
	return fmt.Errorf("%s: tools.%s.key: %s", where, tool, msg)
}

// EnvList is the endpoint's environment as KEY=VALUE pairs, its
// ${ENV}s expanded when the file was loaded.
func (e Endpoint) EnvList() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		out = append(out, k+"="+e.Env[k])
	}
	return out
}
