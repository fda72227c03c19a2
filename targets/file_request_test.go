package targets_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/targets"
)

// Mistakes that would pass a check of each field alone and then make a
// correct API look broken (or unreachable) are load errors naming file,
// line and field.
func TestMistakesThatWouldMakeARunLie(t *testing.T) {
	const body = `'{"m":"{{.Marker}}","v":{{.Variant}}}'`
	cases := []struct{ name, data, want string }{
		{"body without {{.Variant}}", `
base_url: http://127.0.0.1:1
create: {path: /r, body: '{"m":"{{.Marker}}","v":1}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`, "t.yaml:2: create.body: must depend on {{.Variant}}"},
		{"body with a constant in {{.Variant}}'s place", `
base_url: http://127.0.0.1:1
create: {path: /r, body: '{"m":"{{.Marker}}","v":1{{/* .Variant */}}}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`, "t.yaml:2: create.body: must depend on {{.Variant}}"},
		{"oracle path without {{.Marker}}", `
base_url: http://127.0.0.1:1
create: {path: /r, body: ` + body + `, id_field: id}
oracle: {list: {path: /r}}
`, "t.yaml:3: oracle.list.path: must contain {{.Marker}}"},
		{"unknown field in create.path", `
base_url: http://127.0.0.1:1
create: {path: '/r/{{.Nope}}', body: ` + body + `, id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`, "t.yaml:2: create.path: {{.Nope}} is not known here (known: none: the field is sent as written)"},
		{"unparsable create.path", `
base_url: http://127.0.0.1:1
create: {path: '/r/{{.Marker', body: ` + body + `, id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`, "t.yaml:2: create.path: not a valid template"},
		{"unknown field in the oracle path", `
base_url: http://127.0.0.1:1
create: {path: /r, body: ` + body + `, id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}&n={{.Nope}}'}}
`, "t.yaml:3: oracle.list.path: {{.Nope}} is not known here (known: {{.Marker}}, {{.Since}}, {{.Until}})"},
		{"unknown field in the body", `
base_url: http://127.0.0.1:1
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}},"t":"{{.Tenant}}"}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`, "t.yaml:2: create.body: {{.Tenant}} is not known here (known: {{.Marker}}, {{.Variant}}, and {{.Key}} with key.in: body)"},
		{"header value with CRLF", `
base_url: http://127.0.0.1:1
create: {path: /r, body: ` + body + `, id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
headers: {X-Team: "a\r\nX-Evil: 1"}
`, "t.yaml:4: headers.X-Team: the value of X-Team holds a control character"},
		{"header name with a colon", `
base_url: http://127.0.0.1:1
create: {path: /r, body: ` + body + `, id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
headers: {"X-Team:": a}
`, `t.yaml:4: headers.X-Team:: "X-Team:" is not a header name`},
		{"tenant header with LF", `
base_url: http://127.0.0.1:1
create: {path: /r, body: ` + body + `, id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
tenants:
  - {name: a, headers: {Authorization: "Bearer a\nX: 1"}}
  - {name: b, headers: {Authorization: Bearer b}}
`, "tenants[0].headers.Authorization: the value of Authorization holds a control character"},
		{"port out of range", `
base_url: http://127.0.0.1:99999
create: {path: /r, body: ` + body + `, id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`, "t.yaml:1: base_url: port 99999 is out of range (1-65535)"},
		{"instance port out of range", `
base_url: http://127.0.0.1:1
create: {path: /r, body: ` + body + `, id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
instances: ['http://127.0.0.1:0']
`, "t.yaml:4: instances: instance 1: port 0 is out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := targets.Parse("t.yaml", file(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant %q", err, c.want)
			}
		})
	}
}

// Loading is linear in the file's size: ten times the headers take
// about ten times the work (yaml.v3's check of each key against every
// other takes a hundred times; 40k headers, 4.7 s), and a file over the
// cap is refused before it is read.
func TestLoadingIsLinearAndCapped(t *testing.T) {
	load := func(n int) time.Duration {
		var b strings.Builder
		b.WriteString("base_url: http://127.0.0.1:1\ncreate: {path: /r, body: '{\"m\":\"{{.Marker}}\",\"v\":{{.Variant}}}', id_field: id}\noracle: {list: {path: '/r?m={{.Marker}}'}}\nheaders:\n")
		for i := range n {
			fmt.Fprintf(&b, "  X-H-%d: v%d\n", i, i)
		}
		start := cpuTime(t)
		tg, err := targets.Parse("big.yaml", []byte(b.String()))
		took := cpuTime(t) - start
		if err != nil {
			t.Fatal(err)
		}
		if len(tg.Headers) != n {
			t.Errorf("%d headers, want %d", len(tg.Headers), n)
		}
		return took
	}
	// Ten times the headers takes about ten times the work; a quadratic
	// load takes a hundred. The work is the process's CPU time, which
	// other processes on a busy machine do not add to (the test is not
	// parallel: nothing else of the package runs meanwhile); the least
	// of three interleaved rounds stands for each size, so a collection
	// cannot make a linear load look quadratic.
	small, big := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range 3 {
		small, big = min(small, load(15_000)), min(big, load(150_000))
	}
	t.Logf("15k headers: %v, 150k headers: %v of CPU (the least of three)", small, big)
	if big > 40*small+200*time.Millisecond || big > 15*time.Second {
		t.Errorf("150k headers took %v, 15k took %v: not linear", big, small)
	}

	dup := targetFile("http://127.0.0.1:1", "/r?m={{.Marker}}", "headers:\n  X-A: 1\n  X-A: 2\n")
	if _, err := targets.Parse("dup.yaml", dup); err == nil || !strings.Contains(err.Error(), `dup.yaml:6: headers.X-A: "X-A" is given twice (first at line 5)`) {
		t.Errorf("duplicate header: %v", err)
	}

	huge := filepath.Join(t.TempDir(), "huge.yaml")
	if err := os.WriteFile(huge, []byte("base_url: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, targets.MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	if _, err := targets.LoadFile(huge); err == nil || !strings.Contains(err.Error(), "huge.yaml: a target file is at most 16 MiB") {
		t.Errorf("a file over the cap: %v", err)
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		t.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
