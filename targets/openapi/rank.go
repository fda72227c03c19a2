package openapi

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
)

// Without --operation, init drafts the API's main create: a keyed POST
// that answers the id of what it made, that a GET lists (so the oracle
// is drafted too), on a collection (no path
// parameter) of the nouns an API exists to create, never a token, a
// search or a session. The file says why, and names the next
// candidates.

// mainNouns are the resources an API exists to create, the most
// telling first.
var mainNouns = []string{"payment", "order", "charge", "capture", "refund", "transfer", "payout", "invoice", "subscription", "booking", "customer"}

// sideWords name POSTs that create nothing the API keeps: they read
// (search, retrieve, calculate), sign in (token, oauth, session) or
// check (validate). --all leaves them out, and the default never
// picks one.
var sideWords = []string{"token", "oauth", "oauth2", "search", "session", "validate", "validation", "verify", "calculate", "preview", "retrieve", "lookup", "query", "login", "revoke"}

// lesserWords name POSTs that make something beside the API's main
// resources: links, methods, custom attributes, bulk and test calls.
var lesserWords = []string{"link", "method", "source", "attribute", "definition", "bulk", "batch", "test", "ephemeral", "domain", "webhook"}

// words are an operation's words, lower case and singular: its path's
// segments and its operationId, split at case changes and punctuation
// (RetrieveTokenStatus: retrieve, token, status).
func words(o operation) []string {
	var out []string
	split := func(s string) {
		var w []rune
		flush := func() {
			if len(w) > 0 {
				out = append(out, singular(string(w)))
				w = w[:0]
			}
		}
		r := []rune(s)
		for i, c := range r {
			switch {
			case !unicode.IsLetter(c) && !unicode.IsDigit(c):
				flush()
				continue
			case i > 0 && unicode.IsUpper(c) && unicode.IsLower(r[i-1]):
				flush()
			}
			w = append(w, unicode.ToLower(c))
		}
		flush()
	}
	for _, seg := range strings.Split(o.path, "/") {
		if !strings.HasPrefix(seg, "{") {
			split(seg)
		}
	}
	split(o.op.OperationID)
	return out
}

func singular(w string) string {
	if s, ok := strings.CutSuffix(w, "ies"); ok {
		return s + "y"
	}
	if strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") {
		return w
	}
	return strings.TrimSuffix(w, "s")
}

// side is the side word an operation's words hold, "" for none.
func side(o operation) string {
	for _, w := range words(o) {
		if slices.Contains(sideWords, w) {
			return w
		}
	}
	return ""
}

// candidate is a POST ranked as the API's main create.
type candidate struct {
	op      operation
	keyed   bool
	side    string // a side word: ranked last
	id      bool   // its 2xx answer names the id
	listed  bool   // a GET on its path lists what it makes: the oracle is drafted
	params  int    // path parameters: an action on a parent ranks after a create
	noun    int    // the index in mainNouns of its collection's noun, len(mainNouns) for none
	partial bool   // the noun is a word of the collection's name (payment_intents), not all of it
	lesser  bool
}

func (d *Document) candidate(o operation, keyHeader string) candidate {
	_, mt := mediaType(o.op.RequestBody)
	var body *openapi3.Schema
	if mt != nil {
		body = flatten(mt.Schema)
	}
	_, declared := declaredKey(parameters(o.item, o.op), body)
	c := candidate{op: o, keyed: declared || keyHeader != "", side: side(o), noun: len(mainNouns),
		id: idField(success(o.op), resourceName(o.path)) != "", listed: o.item.Get != nil, params: len(pathParam.FindAllString(o.path, -1))}
	segs := strings.Split(strings.Trim(o.path, "/"), "/")
	last := segs[len(segs)-1]
	lastWords := words(operation{path: last, op: &openapi3.Operation{}})
	for i, n := range mainNouns {
		if resourceName(last) == n {
			c.noun = i
			break
		}
		if slices.Contains(lastWords, n) && i < c.noun {
			c.noun, c.partial = i, true
		}
	}
	for _, w := range words(o) {
		if slices.Contains(lesserWords, w) {
			c.lesser = true
		}
	}
	return c
}

// better orders candidates, the likeliest main create first.
func better(a, b candidate) int {
	return cmp.Or(
		boolFirst(a.keyed, b.keyed),
		boolFirst(a.side == "", b.side == ""),
		boolFirst(a.id, b.id),
		boolFirst(!a.lesser, !b.lesser),
		boolFirst(a.listed, b.listed),
		cmp.Compare(a.params, b.params),
		cmp.Compare(a.noun, b.noun),
		boolFirst(!a.partial, !b.partial),
		cmp.Compare(strings.Count(a.op.path, "/"), strings.Count(b.op.path, "/")),
		cmp.Compare(a.op.path, b.op.path),
	)
}

// why says what made c the main create.
func (c candidate) why() string {
	var r []string
	if c.keyed {
		r = append(r, "it takes an idempotency key")
	}
	if c.id {
		r = append(r, "answers the id of what it made")
	}
	if c.listed {
		r = append(r, "a GET lists what it makes")
	}
	switch {
	case c.params == 0 && c.noun < len(mainNouns):
		r = append(r, "creates in a collection of "+mainNouns[c.noun]+"s")
	case c.params == 0:
		r = append(r, "creates in a collection")
	case c.noun < len(mainNouns):
		r = append(r, "makes "+mainNouns[c.noun]+"s")
	}
	if c.side == "" {
		r = append(r, "and is no token, search or session call")
	}
	return strings.Join(r, ", ")
}

// rank orders the POSTs as the API's main create.
func (d *Document) rank(posts []operation, keyHeader string) []candidate {
	out := make([]candidate, 0, len(posts))
	for _, o := range posts {
		out = append(out, d.candidate(o, keyHeader))
	}
	slices.SortStableFunc(out, better)
	return out
}

// nextCandidates names up to three runners-up.
func nextCandidates(ranked []candidate) string {
	var names []string
	for i, c := range ranked {
		if i == 0 || !c.keyed || c.side != "" {
			continue
		}
		if len(names) == 3 {
			break
		}
		names = append(names, fmt.Sprintf("%s (POST %s)", operationID(c.op.method, c.op.path, c.op.op), c.op.path))
	}
	return strings.Join(names, ", ")
}

// boolFirst orders true before false, for cmp.Or's chains of rankings.
func boolFirst(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return -1
	}
	return 1
}
