package agent

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// KeySlot is the JSON string a payload holds where a body key goes
// (IDEMSPEC_KEY_IN=body): the client puts its key in its place.
const KeySlot = "{{.Key}}"

// Keyed is a create request for key: its URL, body and headers, with the
// key where IDEMSPEC_KEY_IN says (a header, the payload's KeySlot, or a
// query parameter).
func (in Inputs) Keyed(key string, payload []byte) (target string, body []byte, header http.Header) {
	return in.KeyedAt(in.CreatePath, key, payload)
}

// KeyedAt is Keyed for a request to another path (a step of a job).
func (in Inputs) KeyedAt(path, key string, payload []byte) (target string, body []byte, header http.Header) {
	target, body, header = in.ServerURL+path, payload, http.Header{}
	switch in.KeyIn {
	case "body":
		quoted, _ := json.Marshal(key)
		body = bytes.Replace(payload, []byte(`"`+KeySlot+`"`), quoted, 1)
	case "query":
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		target += sep + url.Values{in.KeyName: {key}}.Encode()
	default:
		header.Set(in.KeyName, key)
	}
	return target, body, header
}
