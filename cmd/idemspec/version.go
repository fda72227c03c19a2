package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"
)

// devVersion is what version holds when no -ldflags "-X main.version=..."
// set it: a build from a checkout, or `go install ...@VERSION`.
const devVersion = "0.1.0-dev"

// buildVersion is the version idemspec reports: the one the release
// build set, else what the Go toolchain recorded in the binary, the
// module version (`go install ...@v1.2.3` gives v1.2.3, a checkout
// "(devel)") and the VCS revision, with "+modified" for a dirty tree.
func buildVersion() string {
	if version != devVersion {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	if rev == "" || strings.Contains(v, shortRevision(rev)) {
		return v // a pseudo-version names the revision already
	}
	return v + " " + shortRevision(rev) + modified
}

// shortRevision is the first twelve characters of a commit hash, as
// Go's own pseudo-versions show it.
func shortRevision(rev string) string { return rev[:min(12, len(rev))] }

func init() {
	register(command{use: "version", summary: "print idemspec's version (also: idemspec --version)", define: func(*pflag.FlagSet) body {
		return func(_ []string, stdout, _ io.Writer) int {
			fmt.Fprintln(stdout, "idemspec", buildVersion())
			return exitOK
		}
	}})
}
