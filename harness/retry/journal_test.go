package retry_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// journals are the Journal implementations; both must behave the same.
func journals(t *testing.T) map[string]func() retry.Journal {
	dir := t.TempDir()
	return map[string]func() retry.Journal{
		"memory": func() retry.Journal { return retry.NewMemoryJournal() },
		"sqlite": func() retry.Journal {
			j, err := retry.OpenJournal(filepath.Join(dir, t.Name()+".db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { j.Close() })
			return j
		},
	}
}

func TestJournal(t *testing.T) {
	ctx := context.Background()
	for name, open := range journals(t) {
		t.Run(name, func(t *testing.T) {
			j := open()
			at := time.Unix(1700000000, 123)
			op := retry.Operation{ID: "op", Key: "k1", Payload: []byte(`{"a":1}`), State: state.Pending, UpdatedAt: at}
			stored, err := j.Create(ctx, op)
			if err != nil {
				t.Fatal(err)
			}
			if stored.Key != "k1" || string(stored.Payload) != `{"a":1}` || !stored.UpdatedAt.Equal(at) {
				t.Fatalf("created %+v", stored)
			}
			// A second Create with another key keeps the first: the key
			// is decided once.
			again, err := j.Create(ctx, retry.Operation{ID: "op", Key: "k2", Payload: []byte("x"), State: state.Pending})
			if err != nil || again.Key != "k1" || string(again.Payload) != `{"a":1}` {
				t.Fatalf("second create: %+v, %v", again, err)
			}
			// Update changes the state, never the key or payload.
			op.State, op.Attempts, op.ResourceID, op.Key, op.Payload = state.Succeeded, 2, "res_1", "k3", []byte("y")
			if err := j.Update(ctx, op); err != nil {
				t.Fatal(err)
			}
			got, err := j.Load(ctx, "op")
			if err != nil {
				t.Fatal(err)
			}
			if got.State != state.Succeeded || got.Attempts != 2 || got.ResourceID != "res_1" || got.Key != "k1" || string(got.Payload) != `{"a":1}` {
				t.Fatalf("after update: %+v", got)
			}
			if _, err := j.Load(ctx, "other"); !errors.Is(err, retry.ErrNoOperation) {
				t.Fatalf("load of an unknown id: %v", err)
			}
			if err := j.Update(ctx, retry.Operation{ID: "other"}); !errors.Is(err, retry.ErrNoOperation) {
				t.Fatalf("update of an unknown id: %v", err)
			}
		})
	}
}

// TestJournalSurvivesReopening: what one process journaled, the next
// one reads, key and all.
func TestJournalSurvivesReopening(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested", "journal.db")
	first, err := retry.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	c := retry.Client{Journal: first}
	op, err := c.Begin(ctx, "order-42", []byte(`{"amount":5}`))
	if err != nil {
		t.Fatal(err)
	}
	op.State, op.Attempts = state.Submitting, 1
	if err := first.Update(ctx, op); err != nil {
		t.Fatal(err)
	}
	first.Close()

	second, err := retry.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	c.Journal = second
	resumed, err := c.Begin(ctx, "order-42", []byte(`{"amount":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Key != op.Key || resumed.State != state.Submitting || resumed.Attempts != 1 {
		t.Fatalf("reopened: %+v, want key %s SUBMITTING with 1 attempt", resumed, op.Key)
	}
}
