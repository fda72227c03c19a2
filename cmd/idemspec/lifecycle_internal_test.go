package main

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// resolvePaths makes absolute what the shell would look for in the
// trial's directory and find only where idemspec was started, and
// leaves every other word as written.
func TestResolvePaths(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"agent.py", "bin/agent", "examples/clients/agent.py", "good"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	abs := func(f string) string { return shellQuote(filepath.Join(dir, f)) }
	for _, c := range []struct{ command, want string }{
		{"python3 examples/clients/agent.py", "python3 " + abs("examples/clients/agent.py")},
		{"./bin/agent --attempts 3", abs("bin/agent") + " --attempts 3"},
		{"bin/agent", abs("bin/agent")},
		{"python3 agent.py", "python3 " + abs("agent.py")},
		// A bare first word is the shell's to find in PATH.
		{"agent.py", "agent.py"},
		{"python3 -u agent.py --config=bin/agent", "python3 -u " + abs("agent.py") + " --config=" + abs("bin/agent")},
		{"TOKEN=x API=bin/agent python3 agent.py", "TOKEN=x API=" + abs("bin/agent") + " python3 " + abs("agent.py")},
		{"exec python3 agent.py; env X=1 bin/agent", "exec python3 " + abs("agent.py") + "; env X=1 " + abs("bin/agent")},
		{"python3 agent.py ; bin/agent", "python3 " + abs("agent.py") + " ; " + abs("bin/agent")},
		{"cd /tmp && python3 agent.py", "cd /tmp && python3 agent.py"},
		{"python3 agent.py && cd sub && ./bin/agent", "python3 " + abs("agent.py") + " && cd sub && ./bin/agent"},
		// Missing, absolute, quoted, expanded: as written.
		{"python3 missing/agent.py", "python3 missing/agent.py"},
		{"python3 /abs/agent.py", "python3 /abs/agent.py"},
		{`python3 "examples/clients/agent.py"`, `python3 "examples/clients/agent.py"`},
		{"python3 $HOME/agent.py", "python3 $HOME/agent.py"},
		{"python3 examples/clients/*.py", "python3 examples/clients/*.py"},
		// A directory without a slash is a word, not a path.
		{"tool examples", "tool examples"},
		{"tool examples/clients", "tool " + abs("examples/clients")},
	} {
		if got := resolvePaths(c.command, dir); got != c.want {
			t.Errorf("resolvePaths(%q)\n got %q\nwant %q", c.command, got, c.want)
		}
	}
}

// credentials are what a request carries as a credential; the key is
// never one of them.
func TestCredentials(t *testing.T) {
	h := http.Header{}
	h.Set("Authorization", "Basic dXNlcjpodW50ZXIy") // user:hunter2
	h.Set("Proxy-Authorization", "Bearer tok_proxy_123")
	h.Set("Cookie", "session=abc123456; theme=dark")
	h.Set("X-Api-Key", "key_0123456789")
	h.Set("Idempotency-Key", "idem-0123456789")
	got := credentials(h, []string{"X-Api-Key"})
	for _, want := range []string{"Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy", "hunter2", "Bearer tok_proxy_123", "tok_proxy_123", "abc123456", "dark", "key_0123456789"} {
		if !slices.Contains(got, want) {
			t.Errorf("credentials %q lack %q", got, want)
		}
	}
	if slices.Contains(got, "idem-0123456789") {
		t.Errorf("credentials %q hold the idempotency key", got)
	}
}
