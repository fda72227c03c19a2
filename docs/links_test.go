// Package docs holds idemspec's documentation. Its one test keeps the
// links honest: every relative link in README.md and in docs/ must lead
// to a file of this repository, and every #anchor to a heading of that
// file, as GitHub renders it.
package docs

import (
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestDocsLinksResolve checks every relative link and image of README.md
// and of every Markdown file under docs/: the file (or directory) exists
// inside the repository, and an #anchor names a heading of the Markdown
// file it points into. Links to other sites are not fetched.
func TestDocsLinksResolve(t *testing.T) {
	root := repoRoot(t)
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{} // Markdown file -> its anchors
	checked := 0
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, l := range links(string(text)) {
			checked++
			if msg := resolve(root, file, l.target, anchors); msg != "" {
				t.Errorf("%s:%d: link %q: %s", rel, l.line, l.target, msg)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no link found: the link parser is broken")
	}
}

// repoRoot is the directory holding go.mod, above the test's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// resolve says what is wrong with one link target found in file, or "".
func resolve(root, file, target string, anchors map[string]map[string]bool) string {
	if isExternal(target) {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	if strings.HasPrefix(path, "/") {
		return "an absolute path: write it relative to the file that links"
	}
	dest := file
	if path != "" {
		dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		if rel, err := filepath.Rel(root, dest); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "leads outside the repository"
		}
		if _, err := os.Stat(dest); err != nil {
			return "no such file in the repository"
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	if anchors[dest] == nil {
		text, err := os.ReadFile(dest)
		if err != nil {
			return err.Error()
		}
		anchors[dest] = headingAnchors(string(text))
	}
	if !anchors[dest][anchor] {
		return fmt.Sprintf("no heading with the anchor #%s in %s", anchor, filepath.Base(dest))
	}
	return ""
}

// schemeRE matches a link's scheme (https:, mailto:, ...).
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// isExternal says whether a link goes to another site or scheme.
func isExternal(target string) bool {
	return schemeRE.MatchString(target) || strings.HasPrefix(target, "//")
}

type link struct {
	line   int
	target string
}

var (
	fenceRE     = regexp.MustCompile("^ {0,3}(```|~~~)")
	codeSpanRE  = regexp.MustCompile("`+[^`]*`+")
	inlineRE    = regexp.MustCompile(`\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	referenceRE = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	htmlAttrRE  = regexp.MustCompile(`(?i)<(?:a|img)\s[^>]*?(?:href|src)\s*=\s*"([^"]*)"`)
)

// links finds the link and image targets of a Markdown text outside code
// blocks and code spans: inline links, reference definitions, and the
// href and src of HTML a and img tags.
func links(text string) []link {
	var out []link
	for i, line := range outsideFences(text) {
		line = codeSpanRE.ReplaceAllString(line, "code")
		for _, re := range []*regexp.Regexp{inlineRE, referenceRE, htmlAttrRE} {
			for _, m := range re.FindAllStringSubmatch(line, -1) {
				out = append(out, link{line: i + 1, target: m[1]})
			}
		}
	}
	return out
}

// outsideFences yields the lines of a Markdown text outside its fenced
// code blocks, each with its index.
func outsideFences(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		inFence := false
		for i, line := range strings.Split(text, "\n") {
			if fenceRE.MatchString(line) {
				inFence = !inFence
				continue
			}
			if !inFence && !yield(i, line) {
				return
			}
		}
	}
}

var (
	headingRE   = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlIDRE    = regexp.MustCompile(`(?i)<[a-z]+\s[^>]*?(?:id|name)\s*=\s*"([^"]*)"`)
	headLinkRE  = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	emphasisRE  = regexp.MustCompile(`\*+|(?:^|\s)_+|_+(?:\s|$)`)
	htmlTagRE   = regexp.MustCompile(`<[^>]+>`)
	codeTicksRE = regexp.MustCompile("`+")
)

// headingAnchors lists the anchors GitHub gives a Markdown file: one per
// ATX heading (duplicates numbered -1, -2, ...), and every HTML id or
// name.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range outsideFences(text) {
		for _, m := range htmlIDRE.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := slug(m[1])
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// slug is GitHub's anchor for a heading: the rendered text, lower case,
// without punctuation or symbols (letters, digits, marks, "-" and "_"
// stay), each space a hyphen.
func slug(heading string) string {
	text := headLinkRE.ReplaceAllString(heading, "$1")
	text = htmlTagRE.ReplaceAllString(text, "")
	text = codeTicksRE.ReplaceAllString(text, "")
	text = emphasisRE.ReplaceAllStringFunc(text, func(s string) string {
		return strings.Trim(s, "*_")
	})
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlugFollowsGitHub(t *testing.T) {
	for heading, want := range map[string]string{
		"The reference retrying client (`harness/retry`)": "the-reference-retrying-client-harnessretry",
		"6. Time to first counterexample":                 "6-time-to-first-counterexample",
		"What is redacted, and where":                     "what-is-redacted-and-where",
		"checks[].evidence":                               "checksevidence",
		"Properties (P1, P2)":                             "properties-p1-p2",
		"idemspec — design":                               "idemspec--design",
		"A [linked](x.md) *word* and snake_case":          "a-linked-word-and-snake_case",
		"Straße über":                                     "straße-über",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestBrokenLinksAreFound proves the link check on a small tree: each
// kind of broken link is reported, and the good ones are not.
func TestBrokenLinksAreFound(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("docs/B.md", "# B\n\n## Twice\n\n## Twice\n\n```\n## Not a heading\n```\n")
	file := write("README.md", "")
	for target, want := range map[string]string{
		"docs/B.md":                   "",
		"docs/B.md#twice":             "",
		"docs/B.md#twice-1":           "",
		"#top":                        "no heading",
		"docs/B.md#twice-2":           "no heading",
		"docs/B.md#not-a-heading":     "no heading",
		"docs/C.md":                   "no such file",
		"../outside.md":               "outside the repository",
		"/docs/B.md":                  "absolute path",
		"https://example.com/x.md#no": "",
	} {
		got := resolve(root, file, target, map[string]map[string]bool{})
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("resolve(%q) = %q, want %q", target, got, want)
		}
	}
	found := links("[a](x.md) `[b](y.md)` ![c](z.png \"t\")\n```\n[d](w.md)\n```\n[e]: v.md\n")
	var targets []string
	for _, l := range found {
		targets = append(targets, l.target)
	}
	if got, want := strings.Join(targets, " "), "x.md z.png v.md"; got != want {
		t.Errorf("links found %q, want %q", got, want)
	}
}
