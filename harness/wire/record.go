package wire

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Exchange is one request the program sent through the interposer and
// what became of it.
type Exchange struct {
	// Seq numbers the exchanges from 1, in order of arrival.
	Seq int
	// Operation and Kind are the operation the request matched ("" and
	// "" for one that matched none); Ordinal counts the operation's
	// requests from 1.
	Operation string
	Kind      Kind
	Ordinal   int
	Method    string
	// Path is the request's path as sent; Query its raw query string.
	Path  string
	Query string
	// Header is the request's header as the program sent it.
	Header http.Header
	// Key is the idempotency key read where the file places it; KeyFound
	// is false when the request carried none.
	Key      string
	KeyFound bool
	// Body is the request's body (cut to MaxBody); PayloadHash is the
	// sha256 of the body with the key put back to its slot.
	Body        []byte
	PayloadHash string
	// Resembles, for a request that matched no operation, names the
	// create operation whose key it carries where the file places it
	// ("" none): a create the file may not describe (a path the API
	// routes that the file does not, a second base path).
	Resembles string
	// Shape is the sorted top-level member names of a JSON object body,
	// comma-separated ("" for another body): two requests of one shape
	// are likely one call.
	Shape string
	// Fault names the fault aimed at the request ("" none).
	Fault string
	// Forwarded says the request went on to the API (which ran it, or
	// may have: the answer may never have come).
	Forwarded bool
	// Status is the answer's status (0: none came); AnsweredBy says who
	// gave it: AnsweredByAPI or AnsweredByIdemspec.
	Status     int
	AnsweredBy string
	// Answer is the answer's body (cut to MaxBody); ResourceID the id
	// read from it by the operation's id_field.
	Answer     []byte
	ResourceID string
	// Delivered says the answer reached the program; false for an answer
	// idemspec dropped (the program's connection closed instead).
	Delivered bool
	// GaveUp says the program closed its connection while idemspec held
	// the request (its own timeout ran out first).
	GaveUp bool
	// Problem says what went wrong forwarding or answering ("" nothing).
	Problem string
	// Start is when the request arrived, End when the exchange ended.
	Start, End time.Time
	// Done says the exchange has ended; a held or blackholed request, or
	// one the API is still working on, is not done.
	Done bool
	// Elided says the record no longer keeps the request's header and
	// body, nor the answer's body, to bound its memory (KeepFirst,
	// KeepLast); everything else, the key, hash, status and id included,
	// is kept.
	Elided bool
}

// Who answered.
const (
	AnsweredByAPI      = "api"
	AnsweredByIdemspec = "idemspec"
)

// Committed says the API answered the request with a 2xx: it ran it and
// said so, whether or not the program heard.
func (x Exchange) Committed() bool {
	return x.AnsweredBy == AnsweredByAPI && x.Status >= 200 && x.Status < 300
}

// What an Interposer's Record keeps whole: a program can send as much
// as it likes (2,000 creates of 64 KiB took 490 MB when every body was
// kept for the whole run), and the judges need only each exchange's
// facts. Every exchange is counted and keeps its facts; the header and
// bodies are kept for the first KeepFirst exchanges of a window (a
// trial's run: Mark) and the last KeepLast of the record, so that at
// most KeepFirst+KeepLast exchanges hold bodies, each cut to MaxKept.
const (
	KeepFirst = 32
	KeepLast  = 32
)

// Record is every exchange the interposer has seen, in arrival order.
// It is safe for concurrent use; readers get copies.
type Record struct {
	mu        sync.Mutex
	exchanges []*Exchange
	changed   chan struct{} // closed and replaced on every change

	// bounded says bodies are elided past KeepFirst and KeepLast.
	bounded bool
	// window is where the current window starts; whole is where the
	// exchanges not yet elided start (below it, every one is elided or
	// was walked); tail are the indexes past the window's first
	// KeepFirst still whole, oldest first.
	window, whole int
	tail          []int
	elided        int
}

func newRecord(bounded bool) *Record { return &Record{changed: make(chan struct{}), bounded: bounded} }

// Len is how many exchanges have arrived.
func (r *Record) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.exchanges)
}

// Exchanges is a copy of every exchange so far.
func (r *Record) Exchanges() []Exchange { return r.Since(0) }

// Since is a copy of the exchanges from index from (0-based) on.
func (r *Record) Since(from int) []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	from = min(max(from, 0), len(r.exchanges))
	out := make([]Exchange, 0, len(r.exchanges)-from)
	for _, x := range r.exchanges[from:] {
		out = append(out, x.copy())
	}
	return out
}

// CreatedIDs are the distinct resource ids the API's 2xx answers to the
// operation's creates carried, dropped answers included, in order.
func (r *Record) CreatedIDs(operation string) []string {
	return CreatedIDs(r.Exchanges(), operation)
}

// CreatedIDs are the distinct ids of xs's committed creates of the
// operation, in order. A 2xx answer without an id counts once per
// exchange (as "#SEQ"), so a create whose id cannot be read is not lost.
func CreatedIDs(xs []Exchange, operation string) []string {
	var ids []string
	for _, x := range xs {
		if x.Kind != Create || x.Operation != operation || !x.Committed() {
			continue
		}
		id := x.ResourceID
		if id == "" {
			id = "#" + strconv.Itoa(x.Seq)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Await waits until an exchange from index from on satisfies ok, and
// returns a copy of it; it ends with ctx.
func (r *Record) Await(ctx context.Context, from int, ok func(Exchange) bool) (Exchange, error) {
	for {
		r.mu.Lock()
		for _, x := range r.exchanges[min(max(from, 0), len(r.exchanges)):] {
			if c := x.copy(); ok(c) {
				r.mu.Unlock()
				return c, nil
			}
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return Exchange{}, context.Cause(ctx)
		case <-changed:
		}
	}
}

// Elided is how many exchanges' header and bodies the record no longer
// keeps.
func (r *Record) Elided() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.elided
}

// Mark starts a window, the run of a trial: the exchanges before it
// (whose runs are judged) keep their facts and lose their bodies, and
// the window's first KeepFirst keep theirs. It returns the index the
// window starts at, as Len would.
func (r *Record) Mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.window = len(r.exchanges)
	if r.bounded {
		for ; r.whole < r.window; r.whole++ {
			r.elide(r.exchanges[r.whole])
		}
		r.tail = r.tail[:0]
	}
	return r.window
}

// add appends an exchange, numbering it, and elides the oldest of the
// tail when it is past KeepLast.
func (r *Record) add(x *Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	x.Seq = len(r.exchanges) + 1
	r.exchanges = append(r.exchanges, x)
	if r.bounded && x.Seq-1-r.window >= KeepFirst {
		r.tail = append(r.tail, x.Seq-1)
		if len(r.tail) > KeepLast {
			r.elide(r.exchanges[r.tail[0]])
			r.tail = r.tail[1:]
		}
	}
	r.signal()
}

// elide drops what the record keeps of an exchange's header and bodies.
func (r *Record) elide(x *Exchange) {
	if x.Elided {
		return
	}
	x.Elided, x.Header, x.Body, x.Answer = true, nil, nil, nil
	r.elided++
}

// keep is b, cut to MaxKept, for an exchange's record; nil for one
// already elided (an answer that came after its exchange was).
func (x *Exchange) keep(b []byte) []byte {
	if x.Elided {
		return nil
	}
	return kept(b)
}

// update changes an exchange under the record's lock.
func (r *Record) update(x *Exchange, change func(*Exchange)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	change(x)
	r.signal()
}

func (r *Record) signal() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func (x *Exchange) copy() Exchange {
	c := *x
	c.Header = x.Header.Clone()
	return c
}

// Settle waits until every exchange from index from on has ended (a
// request released from a hold, say, has had its answer); it ends with
// ctx. Every exchange ends within the interposer's bounds.
func (r *Record) Settle(ctx context.Context, from int) error {
	for {
		r.mu.Lock()
		settled := true
		for _, x := range r.exchanges[min(max(from, 0), len(r.exchanges)):] {
			settled = settled && x.Done
		}
		changed := r.changed
		r.mu.Unlock()
		if settled {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-changed:
		}
	}
}
