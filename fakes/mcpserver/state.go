package mcpserver

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/idemspec/idemspec/internal/outfile"
)

// State is everything the tools can change; list_notes returns it whole,
// so an oracle call sees every effect.
type State struct {
	Notes   map[string]string `json:"notes"`
	Created []Created         `json:"created"`
	Log     []string          `json:"log"`
	// Records are create_record's (Options.Records), in client mode.
	Records []Record `json:"records,omitempty"`
}

// Created is one note made by create_note, with the request id that
// made it.
type Created struct {
	ID        int    `json:"id"`
	RequestID string `json:"request_id"`
	Text      string `json:"text"`
}

// store guards the state and, with a path, keeps it in a file: each
// change is written (temporary file, fsync, rename) before the tool
// answers.
type store struct {
	mu    sync.Mutex
	path  string
	state State
}

func openStore(path string) (*store, error) {
	s := &store{path: path, state: State{Notes: map[string]string{}}}
	if path == "" {
		return s, nil
	}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	if err := json.Unmarshal(b, &s.state); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if s.state.Notes == nil {
		s.state.Notes = map[string]string{}
	}
	return s, nil
}

// change runs f on the state under the lock and saves the result.
func (s *store) change(f func(*State)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.state)
	return s.save()
}

// read runs f on the state under the lock.
func (s *store) read(f func(*State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.state)
}

func (s *store) save() error {
	if s.path == "" {
		return nil
	}
	return outfile.WriteAtomic(s.path, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(s.state)
	})
}
