package targets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// MinSecretLen is the shortest secret idemspec redacts. A shorter one
// would rewrite innocent text, the report's own structure included (a
// one-letter secret blanks every word it occurs in): loading warns about
// it instead, and it is written as it is.
const MinSecretLen = 8

// Redacted replaces a secret in every report and log.
const Redacted = "[redacted]"

// redaction is a replacer over every form of every secret, rebuilt when
// Secrets grows.
type redaction struct {
	mu       sync.Mutex
	built    int // len(Secrets) it was built from
	forms    []string
	replacer *strings.Replacer
}

// Redact replaces every secret in s, in each form a report or log may
// carry it: as written, JSON-escaped (with and without HTML escaping,
// and with non-ASCII as \uXXXX) and URL-encoded (query and path). The
// Basic credentials of a URL's userinfo are secrets of their own.
func (t *Target) Redact(s string) string {
	r, _ := t.redactor()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// AddSecret makes s a secret of t from now on, as a ${VAR} of the file
// is: for a credential idemspec learns while it runs (the bearer token a
// client under test sends). It may be called while others redact.
func (t *Target) AddSecret(s string) {
	t.redaction.mu.Lock()
	defer t.redaction.mu.Unlock()
	if len(s) >= MinSecretLen && !slices.Contains(t.Secrets, s) {
		t.Secrets = append(t.Secrets, s)
	}
}

// redactor is the replacer and the forms it replaces, longest first.
func (t *Target) redactor() (*strings.Replacer, []string) {
	t.redaction.mu.Lock()
	defer t.redaction.mu.Unlock()
	if t.redaction.replacer != nil && t.redaction.built == len(t.Secrets) {
		return t.redaction.replacer, t.redaction.forms
	}
	seen := map[string]bool{}
	var forms []string
	for _, secret := range t.Secrets {
		if len(secret) < MinSecretLen {
			continue
		}
		for _, f := range secretForms(secret) {
			if !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	if len(forms) == 0 {
		t.redaction.replacer, t.redaction.forms, t.redaction.built = nil, nil, len(t.Secrets)
		return nil, nil
	}
	// Longest first: the Replacer tries its arguments in order, and a
	// secret that contains another must win.
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Redacted)
	}
	t.redaction.replacer, t.redaction.forms, t.redaction.built = strings.NewReplacer(pairs...), forms, len(t.Secrets)
	return t.redaction.replacer, forms
}

// secretForms are the ways s may be written out.
func secretForms(s string) []string {
	return []string{s, jsonEscaped(s, true), jsonEscaped(s, false), asciiJSON(s, "%04x"), asciiJSON(s, "%04X"), url.QueryEscape(s), url.PathEscape(s)}
}

// jsonEscaped is s as Go's encoder writes it inside a JSON string.
func jsonEscaped(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(s)
	return strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n")[1:], `"`)
}

// asciiJSON is s as encoders that keep JSON ASCII (Python's default)
// write it: non-ASCII as \uXXXX, with surrogate pairs.
func asciiJSON(s, hex string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u`+hex, r)
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u`+hex+`\u`+hex, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&b, `\u`+hex, r)
		}
	}
	return b.String()
}

// RedactWriter redacts a target's secrets from a stream (Ginkgo's log,
// the progress lines) before they reach w. A secret may be split across
// two writes, so the writer holds back the end of what it was given for
// as long as that end could be the start of a secret; Flush writes the
// rest.
type RedactWriter struct {
	mu      sync.Mutex
	w       io.Writer
	t       *Target
	pending string
}

// RedactWriter wraps w. Call Flush when the stream ends.
func (t *Target) RedactWriter(w io.Writer) *RedactWriter {
	return &RedactWriter{w: w, t: t}
}

func (r *RedactWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.t.Redact(r.pending + string(p))
	hold := r.heldBack(s)
	r.pending = s[len(s)-hold:]
	if _, err := io.WriteString(r.w, s[:len(s)-hold]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what was held back.
func (r *RedactWriter) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.pending
	r.pending = ""
	_, err := io.WriteString(r.w, s)
	return err
}

// heldBack is the length of the longest end of s that begins a secret
// (in any of its forms).
func (r *RedactWriter) heldBack(s string) int {
	hold := 0
	_, forms := r.t.redactor()
	for _, secret := range forms {
		for n := min(len(secret)-1, len(s)); n > hold; n-- {
			if strings.HasSuffix(s, secret[:n]) {
				hold = n
				break
			}
		}
	}
	return hold
}
