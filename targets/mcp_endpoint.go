package targets

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
)

// mcpSpec is what an MCP target file says of a server reached over
// streamable HTTP that an HTTP target says too: where it is (mcp.url,
// held to the same loopback rule as base_url), how idemspec runs or
// restarts it (process:, restart:), its TLS and allow_remote. The audit's
// own fields (oracle, tools, burst) are read by targets/mcp.
type mcpSpec struct {
	Name string `yaml:"name"`
	MCP  struct {
		URL     string `yaml:"url"`
		Command any    `yaml:"command"`
		Env     any    `yaml:"env"`
		Dir     any    `yaml:"dir"`
	} `yaml:"mcp"`
	Process     *processSpec `yaml:"process"`
	Restart     *restartSpec `yaml:"restart"`
	TLS         *tlsSpec     `yaml:"tls"`
	AllowRemote bool         `yaml:"allow_remote"`
	Oracle      any          `yaml:"oracle"`
	Tools       any          `yaml:"tools"`
	Burst       any          `yaml:"burst"`
}

// ParseMCP builds the target of an MCP server reached over streamable
// HTTP: its base URL is mcp.url, so the proxy lanes, the loopback rule
// (CheckRemote) and a managed process work as for any HTTP target. It
// has no create call and no oracle: the tool audit calls tools.
func ParseMCP(name string, data []byte) (*Target, error) {
	var s mcpSpec
	d, err := decodeDocument(name, data, &s)
	if err != nil {
		return nil, err
	}
	t := &Target{Name: s.Name, Source: name}
	expand := d.expander(t)
	raw, err := expand("mcp.url", s.MCP.URL)
	if err != nil {
		return nil, err
	}
	port, err := d.processPort(s.Process)
	if err != nil {
		return nil, err
	}
	if t.BaseURL, err = d.mcpURL(raw, port, t); err != nil {
		return nil, err
	}
	if t.Name == "" {
		t.Name = t.BaseURL.Host
	}
	if err := d.tlsConfig(s.TLS, t); err != nil {
		return nil, err
	}
	if s.Process != nil && s.Process.CrashAt != "" {
		// Unread, it would let the author think M3 waits for that line,
		// while its crash comes at a delay and may miss the tool's work.
		return nil, d.errorf("process.crash_at", "an MCP server is crashed a delay after the call was delivered (process.crash_window), not at a line it writes: remove crash_at")
	}
	if err := d.lifecycle(fileSpec{Process: s.Process, Restart: s.Restart}, t, port, expand); err != nil {
		return nil, err
	}
	t.AllowRemote = s.AllowRemote
	if err := d.found.err(); err != nil {
		return nil, err // what a validator kept rather than returned
	}
	t.Direct = t.NewDirectClient()
	return t, nil
}

// mcpURL reads mcp.url: an http:// or https:// URL, {{.Port}} being the
// port picked for a process: section.
func (d *document) mcpURL(raw string, port int, t *Target) (*url.URL, error) {
	const field = "mcp.url"
	if strings.Contains(raw, "{{") {
		tmpl, err := parseTemplate(field, raw, asWritten)
		if err != nil {
			return nil, d.errorf(field, "%v", err)
		}
		vars := map[string]any{}
		if port != 0 {
			vars["Port"] = port
		}
		if raw, err = render(tmpl, vars); err != nil {
			return nil, d.errorf(field, "%v (only {{.Port}}, with a process: section)", err)
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, d.errorf(field, "%q is not an http:// or https:// URL", t.Redact(raw))
	}
	if err := checkPort(u); err != nil {
		return nil, d.errorf(field, "%v", err)
	}
	if u.Fragment != "" {
		return nil, d.errorf(field, "a fragment (#%s) means nothing to an MCP endpoint: remove it", u.Fragment)
	}
	return u, nil
}

// MCPStdio is what the targets' rules make of a stdio MCP server's
// section: its environment with ${ENV} expanded, and a Target that holds
// only the secrets (the values taken from the environment in mcp.env
// and mcp.command) and the warnings, so that the audit redacts them as
// an HTTP run does (Target.Redact).
type MCPStdio struct {
	Env     map[string]string
	Secrets *Target
}

// ParseMCPStdio reads mcp.command and mcp.env of an MCP target file
// whose fields targets/mcp has already decoded strictly. An unset
// variable in either is an error naming the file, the line and the
// field. The command is kept as written: sh expands it, and its
// ${NAME} values are only noted as secrets.
func ParseMCPStdio(name string, data []byte) (MCPStdio, error) {
	d, err := parseDocument(name, data)
	if err != nil {
		return MCPStdio{}, err
	}
	var s struct {
		MCP struct {
			Command string            `yaml:"command"`
			Env     map[string]string `yaml:"env"`
		} `yaml:"mcp"`
	}
	if err := d.root.Decode(&s); err != nil {
		return MCPStdio{}, d.typeError(err)
	}
	t := &Target{Name: name, Source: name}
	out := MCPStdio{Env: map[string]string{}, Secrets: t}
	expand := d.expander(t)
	for _, k := range sortedNames(s.MCP.Env) {
		if out.Env[k], err = expand("mcp.env."+k, s.MCP.Env[k]); err != nil {
			return MCPStdio{}, err
		}
	}
	secrets, err := commandSecrets(s.MCP.Command)
	if err != nil {
		return MCPStdio{}, d.errorf("mcp.command", "%v", err)
	}
	d.secrets(t, "mcp.command", secrets...)
	return out, nil
}

// CommandSecrets is the Target of secrets of a command given on the
// command line (idemspec mcp --cmd): the values of its ${NAME}s.
func CommandSecrets(command string) (*Target, error) {
	secrets, err := commandSecrets(command)
	if err != nil {
		return nil, fmt.Errorf("--cmd: %w", err)
	}
	t := &Target{Name: "--cmd", Source: "--cmd"}
	for _, s := range secrets {
		if len(s) >= MinSecretLen {
			t.Secrets = append(t.Secrets, s)
		}
	}
	return t, nil
}

// shellVar is a ${NAME} or ${NAME:-default} of a shell command; other
// forms (${#NAME}, ${NAME%x}) are the shell's business.
var shellVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}`)

// commandSecrets are the values from the environment a command's
// ${NAME}s expand to; an unset one without a default is an error, as
// everywhere in a target file.
func commandSecrets(command string) ([]string, error) {
	var out []string
	for _, m := range shellVar.FindAllStringSubmatch(command, -1) {
		val, ok := os.LookupEnv(m[1])
		switch {
		case m[2] != "" && val == "":
		case !ok:
			return nil, fmt.Errorf("environment variable %q is not set", m[1])
		default:
			out = append(out, val)
		}
	}
	return out, nil
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
