package main

import (
	"bytes"
	"os"
	"sync"
	"testing"

	"github.com/idemspec/idemspec/internal/testenv"
)

// linuxVersion is the version the shared linux releases link in.
const linuxVersion = "9.8.7-linux"

// linuxReleases are the release builds the tests share, one per
// platform: the container image's build context and the release
// workflow's image step read the same cmd/dist output, and a second
// build of it would link (and pack) the same binary again.
var linuxReleases struct {
	sync.Mutex
	dir  string            // holds every shared release; removed by TestMain
	outs map[string]string // platform → its release's -out directory
}

// sharedRelease runs cmd/dist for p with linuxVersion, once for the
// package's tests, and returns the -out directory it wrote.
func sharedRelease(t *testing.T, p Platform) string {
	t.Helper()
	linuxReleases.Lock()
	defer linuxReleases.Unlock()
	if out, ok := linuxReleases.outs[p.String()]; ok {
		return out
	}
	if linuxReleases.dir == "" {
		dir, err := os.MkdirTemp("", "idemspec-dist-test-")
		if err != nil {
			t.Fatal(err)
		}
		linuxReleases.dir, linuxReleases.outs = dir, map[string]string{}
	}
	out, err := os.MkdirTemp(linuxReleases.dir, p.OS+"-"+p.Arch+"-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := testenv.UntilDeadline(t)
	defer cancel()
	var stdout, stderr bytes.Buffer
	args := []string{"-version", linuxVersion, "-out", out, "-platforms", p.String(), "-root", root}
	if code := run(ctx, args, &stdout, &stderr); code != 0 {
		t.Fatalf("dist %v: exit %d\n%s", args, code, stderr.String())
	}
	linuxReleases.outs[p.String()] = out
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if linuxReleases.dir != "" {
		os.RemoveAll(linuxReleases.dir)
	}
	os.Exit(code)
}
