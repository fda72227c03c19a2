package mcpserver

import (
	"errors"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// steps are the decisions the reference's tools make, one function each;
// a mutant replaces exactly one.
type steps struct {
	// upsert is put_note's effect: set the note's text.
	upsert func(st *State, name, text string)
	// put is how put_note stores its effect: after its work, the upsert
	// in one change of the state.
	put func(s *store, upsert func(*State, string, string), name, text string, work time.Duration) error
	// get is get_note: read one note (and change nothing).
	get func(s *store, name string) (string, bool, error)
	// create is create_note: one note per request id, arbitrated under
	// one lock; work is the time the tool spends before it stores.
	create func(s *store, requestID, text string, work time.Duration) (Created, error)
	// putHints is what put_note declares.
	putHints func() *sdk.ToolAnnotations
}

// errKeyReused is create_note's refusal of a request id that comes back
// with different arguments.
var errKeyReused = errors.New("request_id already used with different arguments")

func reference() steps {
	return steps{upsert: upsert, put: put, get: get, create: create, putHints: putHints}
}

// put works, then stores the upsert in one change: a crash at any point
// leaves the note as it was or as it is set, nothing between.
func put(s *store, upsert func(*State, string, string), name, text string, work time.Duration) error {
	time.Sleep(work)
	return s.change(func(st *State) { upsert(st, name, text) })
}

// putHints: put_note sets a value, so a repeat changes nothing more; it
// overwrites, so it is destructive.
func putHints() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: yes(), OpenWorldHint: no()}
}

func upsert(st *State, name, text string) { st.Notes[name] = text }

func get(s *store, name string) (text string, ok bool, err error) {
	s.read(func(st *State) { text, ok = st.Notes[name] })
	return text, ok, nil
}

// create looks the request id up and stores the note in one critical
// section, so a burst of one id makes one note; the work happens first,
// outside the lock.
func create(s *store, requestID, text string, work time.Duration) (Created, error) {
	time.Sleep(work)
	var out Created
	var err error
	s.change(func(st *State) {
		if c, ok := find(st, requestID); ok {
			out = c
			if c.Text != text {
				err = errKeyReused
			}
			return
		}
		out = insert(st, requestID, text)
	})
	return out, err
}

func find(st *State, requestID string) (Created, bool) {
	for _, c := range st.Created {
		if c.RequestID == requestID {
			return c, true
		}
	}
	return Created{}, false
}

func insert(st *State, requestID, text string) Created {
	c := Created{ID: len(st.Created) + 1, RequestID: requestID, Text: text}
	st.Created = append(st.Created, c)
	return c
}
