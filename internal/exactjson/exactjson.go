// Package exactjson decodes a JSON answer keeping its numbers as written
// (json.Number): a numeric id reads "12345678", not "1.2345678e+07", and
// two 64-bit ids that differ only past float64's precision stay apart.
// The targets read ids and counters so; the judges compare replays so.
package exactjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Decode decodes one JSON value, numbers as json.Number; anything after
// the value is an error.
func Decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}
