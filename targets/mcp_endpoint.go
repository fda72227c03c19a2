package targets

import (
	"net/url"
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
	if err := d.lifecycle(fileSpec{Process: s.Process, Restart: s.Restart}, t, port, expand); err != nil {
		return nil, err
	}
	t.AllowRemote = s.AllowRemote
	t.Direct = t.newDirectClient()
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
