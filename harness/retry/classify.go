package retry

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Class is what one attempt's outcome means for the operation.
type Class string

const (
	// Applied: a 2xx answer.
	Applied Class = "applied"
	// NotApplied: the request certainly did not take effect and trying
	// again may help: it was never (fully) written, the connection was
	// refused, or the server said so (408, 425, 429).
	NotApplied Class = "not-applied"
	// Unknown: the request may have taken effect: no answer after it was
	// written (timeout, reset, EOF), a 5xx, a 409 (another attempt with
	// this key is in flight), or an answer the client cannot read.
	Unknown Class = "unknown"
	// Refused: a final 4xx (400, 404, 422, ...): the same request will be
	// refused again, so it is never retried.
	Refused Class = "refused"
)

// Classify judges one attempt from its answer status (0 without an
// answer), the transport error, and whether the whole request was written
// to the connection. It is the single place where "no answer" is kept
// apart from "did nothing".
func Classify(status int, err error, wrote bool) Class {
	if err != nil || status == 0 {
		var op *net.OpError
		if !wrote || (errors.As(err, &op) && op.Op == "dial") {
			return NotApplied
		}
		return Unknown
	}
	switch {
	case status >= 200 && status < 300:
		return Applied
	case status == http.StatusRequestTimeout, status == http.StatusTooEarly, status == http.StatusTooManyRequests:
		// The server says it did not process the request.
		return NotApplied
	case status == http.StatusConflict:
		// draft-ietf-httpapi-idempotency-key-header: a request with this
		// key is still being processed, so the operation may apply.
		return Unknown
	case status >= 400 && status < 500:
		return Refused
	default:
		// 5xx: the server may have failed after it committed. 1xx and 3xx
		// are not what a create answers; the server handled something.
		return Unknown
	}
}

// RetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (measured from now). ok is false when the header is absent or invalid.
func RetryAfter(value string, now time.Time) (d time.Duration, ok bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		// A year is longer than any deadline; cap before the conversion
		// can overflow.
		return time.Duration(min(secs, 365*24*3600)) * time.Second, true
	}
	at, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	return max(at.Sub(now), 0), true
}
