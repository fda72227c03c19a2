package fakes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/idemspec/idemspec/targets"
)

// Where a fake reads its key (Options.KeyIn).
const (
	KeyInHeader = targets.KeyInHeader // Options.KeyHeader, Idempotency-Key by default
	KeyInBody   = targets.KeyInBody   // the JSON body's top-level KeyField
	KeyInQuery  = targets.KeyInQuery  // the query parameter KeyField
)

// KeyField is the body field or query parameter a fake reads its key
// from when it is not in a header, as Square names its body key.
const KeyField = targets.ReferenceKeyField

// carriedKeys are the key values a create request carries where the
// server reads its key: every key header, every key parameter, or the
// body's key field (a value that is not a string is kept as written, for
// the server to refuse).
func (s *Server) carriedKeys(r *http.Request, body []byte) []string {
	switch s.opts.KeyIn {
	case KeyInQuery:
		return r.URL.Query()[KeyField]
	case KeyInBody:
		raw, ok := bodyKey(body)
		if !ok {
			return nil
		}
		var key string
		if json.Unmarshal(raw, &key) != nil {
			return []string{string(raw)}
		}
		return []string{key}
	}
	return r.Header.Values(s.opts.KeyHeader)
}

// bodyKey is the key field's value as written in a JSON object body.
func bodyKey(body []byte) (json.RawMessage, bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return nil, false
	}
	raw, ok := members[KeyField]
	return raw, ok
}

// payloadOf is the part of a create body that the request's fingerprint
// covers: all of it, less a key in the body, so that a client that
// changed its key shows a changed key and not also a changed payload.
func (s *Server) payloadOf(body []byte) []byte {
	if s.opts.KeyIn != KeyInBody {
		return body
	}
	raw, ok := bodyKey(body)
	if !ok {
		return body
	}
	return bytes.Replace(body, raw, []byte(`""`), 1)
}

// keyPlace names where the key goes, for refusals.
func (s *Server) keyPlace() string {
	switch s.opts.KeyIn {
	case KeyInBody:
		return "body field " + KeyField
	case KeyInQuery:
		return "query parameter " + KeyField
	}
	return s.opts.KeyHeader + " header"
}

// checkKeyIn refuses an unknown Options.KeyIn.
func checkKeyIn(in string) error {
	switch in {
	case "", KeyInHeader, KeyInBody, KeyInQuery:
		return nil
	}
	return fmt.Errorf("key_in: %q is not header, body or query", in)
}
