package mcpserver

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/check"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Reference is the name of the correct server.
const Reference = "reference"

// mutants are the reference MCP server's entry and its mutants' in one
// list, each naming what the audit (scenarios/mcptools) must find wanting
// on which tool: the reference, the one tool an agent cannot retry safely
// (append_log: M8); each mutant, the reference plus one lie in its
// annotations, a tool that does not do what it declares. Every other
// verdict stays as against the reference. Each mutant's Change is a
// func(*steps), which New applies. The detection matrices hold the audit
// to this list, over stdio and over streamable HTTP.
var mutants = []mutant.Mutant{
	{
		Name:    Reference,
		Catches: mutant.On(ToolAppend, "M8"),
	},
	{
		Name:    "idempotent-appends",
		Bug:     "put_note declares idempotentHint but appends to the log on every call",
		Catches: mutant.On(ToolPut, "M1", "M2", "M3", "M9"),
		Change: func(s *steps) {
			s.upsert = func(st *State, name, text string) {
				st.Notes[name] = text
				st.Log = append(st.Log, "put "+name)
			}
		},
	},
	{
		Name:    "idempotent-torn-replace",
		Bug:     "put_note replaces an existing note through a temporary note of its own (NAME.N.tmp) that it removes once done: a crash during a repeat leaves that temporary note for good",
		Catches: mutant.On(ToolPut, "M3"),
		Change: func(s *steps) {
			s.put = func(st *store, upsert func(*State, string, string), name, text string, work time.Duration) error {
				var exists bool
				st.read(func(s *State) { _, exists = s.Notes[name] })
				if !exists {
					return put(st, upsert, name, text, work)
				}
				tmp := fmt.Sprintf("%s.%d.tmp", name, time.Now().UnixNano())
				if err := st.change(func(s *State) { s.Notes[tmp] = text }); err != nil {
					return err
				}
				time.Sleep(ReplaceHold)
				return st.change(func(s *State) {
					upsert(s, name, text)
					delete(s.Notes, tmp)
				})
			}
		},
	},
	{
		Name:    "idempotent-unannotated",
		Bug:     "put_note is idempotent but does not say so: an agent that times out cannot know it may call again",
		Catches: mutant.On(ToolPut, "M8"),
		Change: func(s *steps) {
			s.putHints = func() *sdk.ToolAnnotations { return &sdk.ToolAnnotations{DestructiveHint: yes(), OpenWorldHint: no()} }
		},
	},
	{
		Name:    "readonly-writes",
		Bug:     "get_note declares readOnlyHint but records each read in the log",
		Catches: mutant.On(ToolGet, "M4"),
		Change: func(s *steps) {
			s.get = func(s *store, name string) (text string, ok bool, err error) {
				err = s.change(func(st *State) {
					text, ok = st.Notes[name]
					st.Log = append(st.Log, "read "+name)
				})
				return text, ok, err
			}
		},
	},
	{
		Name:    "keyed-ignores-key",
		Bug:     "create_note takes a request_id and ignores it: every call makes a note",
		Catches: mutant.On(ToolCreate, "M5", "M6", "M7", "M9"),
		Change: func(s *steps) {
			s.create = func(s *store, _ string, text string, work time.Duration) (Created, error) {
				time.Sleep(work)
				var c Created
				err := s.change(func(st *State) { c = insert(st, "", text) })
				return c, err
			}
		},
	},
	{
		Name:    "keyed-races",
		Bug:     "create_note looks its request_id up, works, then stores, in two critical sections: a burst of one id makes several notes",
		Catches: mutant.On(ToolCreate, "M7"),
		Change: func(s *steps) {
			meet := &rendezvous{waiting: map[string]chan struct{}{}}
			s.create = func(s *store, requestID, text string, work time.Duration) (Created, error) {
				var c Created
				var seen bool
				s.read(func(st *State) { c, seen = find(st, requestID) })
				if seen {
					if c.Text != text {
						return c, errKeyReused
					}
					return c, nil
				}
				meet.await(requestID, RaceWait)
				time.Sleep(work)
				err := s.change(func(st *State) { c = insert(st, requestID, text) })
				return c, err
			}
		},
	},
}

// Design is what the audit must find in the reference and in each of its
// mutants, given the audit's registry: the checks that concern each tool
// of the reference, and each check's level. The list of mutants opens
// with the reference's entry.
func Design(concerned map[string][]string, levels map[string]check.Level) mutant.Design {
	return mutant.Design{Reference: mutants[0], Concerned: concerned, Levels: levels}
}

// Mutants lists the reference MCP server's entry, then its mutants'.
func Mutants() []mutant.Mutant { return slices.Clone(mutants) }

// LookupMutant finds a mutant by name, or the reference's entry by
// "reference" or "".
func LookupMutant(name string) (mutant.Mutant, error) {
	if name == "" {
		name = Reference
	}
	var names []string
	for _, m := range mutants {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return mutant.Mutant{}, fmt.Errorf("unknown mutant of the MCP server %q (known: %s)", name, strings.Join(names, ", "))
}

// RaceWait bounds how long the racing mutant holds a call that found its
// request_id unused until another call of that id has found it unused
// too. A race that needs two calls to overlap within the tool's work
// would show on an idle machine and hide on a busy one; this one shows
// whenever a burst's calls arrive within RaceWait of each other, and a
// lone call pays the wait once.
const RaceWait = 2 * time.Second

// ReplaceHold is how long the torn-replace mutant holds a repeat of
// put_note between its temporary note and the final one: a window of a
// second, in whose middle the audit's crash of a repeat lands (it aims
// at half the time an answered repeat took), on a busy machine as on an
// idle one.
const ReplaceHold = time.Second

// rendezvous pairs calls of one request id: the first waits for the
// second (or RaceWait), the second releases it.
type rendezvous struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
}

func (r *rendezvous) await(id string, most time.Duration) {
	r.mu.Lock()
	if ch, ok := r.waiting[id]; ok {
		delete(r.waiting, id)
		close(ch)
		r.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	r.waiting[id] = ch
	r.mu.Unlock()
	t := time.NewTimer(most)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
		r.mu.Lock()
		if r.waiting[id] == ch {
			delete(r.waiting, id)
		}
		r.mu.Unlock()
	}
}
