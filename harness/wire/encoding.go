package wire

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// readable is a body as idemspec reads it for the record, the key and
// the id: decoded when it was compressed (Content-Encoding gzip or
// deflate: an answer to a program that asked with its own
// Accept-Encoding, a request an SDK compressed). The bytes go on as
// they came; only idemspec's copy is decoded; what names the body in a
// problem ("the API's answer"). Decoding stops at MaxBody, so a small answer that expands
// without bound (a gzip bomb) costs no more than a large one. An
// encoding idemspec cannot read leaves the body as it came, and the
// problem says so.
func readable(h http.Header, body []byte, what string) ([]byte, string) {
	codings := h.Values("Content-Encoding")
	if len(codings) == 0 || len(body) == 0 {
		return body, ""
	}
	out := body
	// Codings are listed in the order they were applied: undo the last
	// first.
	var list []string
	for _, v := range codings {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
				list = append(list, c)
			}
		}
	}
	for i := len(list) - 1; i >= 0; i-- {
		var r io.ReadCloser
		var err error
		switch list[i] {
		case "identity":
			continue
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(bytes.NewReader(out))
		case "deflate":
			r, err = zlib.NewReader(bytes.NewReader(out))
		default:
			return body, fmt.Sprintf("%s is encoded %q, which idemspec does not decode: it was read as it came", what, list[i])
		}
		if err != nil {
			return body, fmt.Sprintf("decoding %s (%s): %v", what, list[i], err)
		}
		plain, err := io.ReadAll(io.LimitReader(r, MaxBody+1))
		r.Close()
		switch {
		case err != nil:
			return body, fmt.Sprintf("decoding %s (%s): %v", what, list[i], err)
		case len(plain) > MaxBody:
			return body, fmt.Sprintf("%s (%s) decodes to over %d bytes: it was read as it came", what, list[i], MaxBody)
		}
		out = plain
	}
	return out, ""
}
