package targets

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// processSpec is the process: section: a target idemspec runs itself.
type processSpec struct {
	Command     string     `yaml:"command" required:"true"`
	Args        []string   `yaml:"args"`
	Env         stringMap  `yaml:"env"`
	Dir         string     `yaml:"dir"`
	Health      healthSpec `yaml:"health"`
	StopTimeout string     `yaml:"stop_timeout"`
	CrashWindow string     `yaml:"crash_window"`
	CrashAt     string     `yaml:"crash_at"`
}

type healthSpec struct {
	Path    string `yaml:"path"`
	Timeout string `yaml:"timeout"`
}

// restartSpec is the restart: section: a hook that restarts a target
// idemspec does not run.
type restartSpec struct {
	Command string           `yaml:"command"`
	HTTP    *restartHTTPSpec `yaml:"http"`
	Timeout string           `yaml:"timeout"`
	Health  healthSpec       `yaml:"health"`
}

type restartHTTPSpec struct {
	Method  string    `yaml:"method"`
	URL     string    `yaml:"url" required:"true"`
	Headers stringMap `yaml:"headers"`
}

type expander func(field, v string) (string, error)

// lifecycle builds the target's Lifecycle from process: or restart:.
func (d *document) lifecycle(s fileSpec, t *Target, port int, expand expander) error {
	t.CrashWindow = DefaultCrashWindow
	switch {
	case s.Process != nil && s.Restart != nil:
		return d.errorf("restart", "a target has either process: (idemspec runs and restarts it) or restart: (a hook restarts it), not both")
	case s.Process != nil:
		p, err := d.process(s.Process, t, port, expand)
		if err != nil {
			return err
		}
		t.Lifecycle = p
		if s.Process.CrashWindow != "" {
			if t.CrashWindow, err = parseWindow(s.Process.CrashWindow); err != nil {
				return d.errorf("process.crash_window", "%v", err)
			}
		}
	case s.Restart != nil:
		h, err := d.restartHook(s.Restart, t, expand)
		if err != nil {
			return err
		}
		t.Lifecycle = h
	}
	return nil
}

func (d *document) process(s *processSpec, t *Target, port int, expand expander) (*Process, error) {
	p := &Process{target: t, Port: port, Env: map[string]string{}}
	var err error
	// ${ENV} is expanded now; templates are checked now (with stand-in
	// values) and rendered at start, when the report directory is known.
	field := func(name, v string) (string, error) {
		out, err := expand(name, v)
		if err != nil {
			return "", err
		}
		if _, err := renderVars(out, ProcessVars{Port: 1, Idemspec: "idemspec", ReportDir: "."}); err != nil {
			return "", d.errorf(name, "%v (known: {{.Port}}, {{.Idemspec}}, {{.ReportDir}})", err)
		}
		return out, nil
	}
	if p.Command, err = field("process.command", s.Command); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Command) == "" {
		return nil, d.errorf("process.command", "must name the program to run")
	}
	for i, a := range s.Args {
		v, err := field(fmt.Sprintf("process.args[%d]", i), a)
		if err != nil {
			return nil, err
		}
		p.Args = append(p.Args, v)
	}
	for _, e := range s.Env {
		if p.Env[e.Key], err = field("process.env."+e.Key, e.Value); err != nil {
			return nil, err
		}
	}
	if p.Dir, err = field("process.dir", s.Dir); err != nil {
		return nil, err
	}
	if p.Health, err = d.health("process.health", s.Health); err != nil {
		return nil, err
	}
	if p.StopTimeout, err = d.duration("process.stop_timeout", s.StopTimeout, DefaultStopTimeout); err != nil {
		return nil, err
	}
	if s.CrashAt != "" && !strings.Contains(s.CrashAt, KeyVar) {
		return nil, d.errorf("process.crash_at", "must hold %s: the line is the one the process writes for the request being crashed", KeyVar)
	}
	p.CrashAt = s.CrashAt
	return p, nil
}

func (d *document) restartHook(s *restartSpec, t *Target, expand expander) (*RestartHook, error) {
	h := &RestartHook{target: t}
	var err error
	switch {
	case (s.Command == "") == (s.HTTP == nil):
		return nil, d.errorf("restart", "give exactly one of command: (a script) or http: (an admin endpoint)")
	case s.HTTP != nil:
		h.HTTP = &HTTPHook{Method: strings.ToUpper(or(s.HTTP.Method, http.MethodPost))}
		if h.HTTP.URL, err = expand("restart.http.url", s.HTTP.URL); err != nil {
			return nil, err
		}
		if h.HTTP.absolute, err = d.pathOrURL("restart.http.url", h.HTTP.URL, t); err != nil {
			return nil, err
		}
		if h.HTTP.Header, err = d.headers("restart.http.headers", s.HTTP.Headers, t, expand); err != nil {
			return nil, err
		}
	default:
		if h.Command, err = expand("restart.command", s.Command); err != nil {
			return nil, err
		}
	}
	if h.Timeout, err = d.duration("restart.timeout", s.Timeout, DefaultHookTimeout); err != nil {
		return nil, err
	}
	if h.Health, err = d.health("restart.health", s.Health); err != nil {
		return nil, err
	}
	return h, nil
}

func (d *document) health(field string, s healthSpec) (Health, error) {
	timeout, err := d.durationUpTo(field+".timeout", s.Timeout, DefaultHealthTimeout, MaxStartup, "the most idemspec waits for a start-up")
	if err != nil || s.Path == "" {
		return Health{Timeout: timeout}, err
	}
	_, path, err := d.pathTemplate(field+".path", s.Path, noFields{}, "")
	return Health{Path: path, Timeout: timeout}, err
}

// pathOrURL reads a field that is either a path on base_url or an
// absolute http(s) URL, which is then an address the target names (under
// the same loopback rule as base_url). It returns the URL when absolute.
func (d *document) pathOrURL(field, v string, t *Target) (*url.URL, error) {
	if !urlScheme.MatchString(v) && !strings.HasPrefix(v, "//") {
		if err := checkPath(v); err != nil {
			return nil, d.errorf(field, "%v", t.Redact(err.Error()))
		}
		return nil, nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, d.errorf(field, "%q is neither a path on base_url nor an http:// or https:// URL", t.Redact(v))
	}
	if err := checkPort(u); err != nil {
		return nil, d.errorf(field, "%v", err)
	}
	d.secrets(t, field, userinfoSecrets(u)...)
	return u, nil
}

// duration parses a positive duration field that bounds a wait, or
// gives the fallback. No wait may exceed MaxWait.
func (d *document) duration(field, v string, fallback time.Duration) (time.Duration, error) {
	return d.durationUpTo(field, v, fallback, MaxWait, "the most idemspec waits for anything")
}

// durationUpTo is duration with the cap most (a start-up's is
// MaxStartup), which what says in an error.
func (d *document) durationUpTo(field, v string, fallback, most time.Duration, what string) (time.Duration, error) {
	if v == "" {
		return fallback, nil
	}
	out, err := time.ParseDuration(v)
	if err != nil || out <= 0 {
		return 0, d.errorf(field, "%q is not a positive duration such as 30s", v)
	}
	if out > most {
		return 0, d.errorf(field, "%s is longer than %s, %s", out, most, what)
	}
	return out, nil
}

// parseWindow reads "100ms-300ms" (a range) or "100ms" (a fixed delay).
func parseWindow(v string) (Window, error) {
	lo, hi, isRange := strings.Cut(v, "-")
	if !isRange {
		hi = lo
	}
	min, err1 := time.ParseDuration(strings.TrimSpace(lo))
	max, err2 := time.ParseDuration(strings.TrimSpace(hi))
	if err1 != nil || err2 != nil || min < 0 || max < min {
		return Window{}, fmt.Errorf("%q is not a window such as 50ms-200ms", v)
	}
	if max > MaxWait {
		return Window{}, fmt.Errorf("%q ends past %s, the most idemspec waits for anything", v, MaxWait)
	}
	return Window{Min: min, Max: max}, nil
}

// renderBaseURL fills {{.Port}} in base_url, which only a process target
// has: idemspec picks the port and gives it to the process too.
func (d *document) renderBaseURL(raw string, port int) (string, error) {
	if !strings.Contains(raw, "{{") {
		return raw, nil
	}
	vars := map[string]any{}
	if port != 0 {
		vars["Port"] = port
	}
	tmpl, err := parseTemplate("base_url", raw, asWritten)
	if err != nil {
		return "", d.errorf("base_url", "%v", err)
	}
	b, err := render(tmpl, vars)
	if err != nil {
		if port == 0 {
			return "", d.errorf("base_url", "{{.Port}} is only known for a target with a process: section (idemspec picks the port)")
		}
		return "", d.errorf("base_url", "%v (known: {{.Port}})", err)
	}
	return b, nil
}
