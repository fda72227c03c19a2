package retry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/idemspec/idemspec/harness/retry/state"
)

// Operation is one create the caller wants done exactly once, as the
// journal keeps it.
type Operation struct {
	// ID is the caller's name for the operation (a task id, an order
	// number): a restarted process finds the operation by it.
	ID string `json:"id"`
	// Key is the idempotency key, generated once and sent with every
	// attempt.
	Key string `json:"key"`
	// Payload is the exact request body; every attempt resends it.
	Payload []byte      `json:"-"`
	State   state.State `json:"state"`
	// Attempts counts every create request ever sent for the operation,
	// across runs and restarts.
	Attempts   int       `json:"attempts"`
	ResourceID string    `json:"resource_id,omitempty"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// ErrNoOperation is returned by Load for an unknown id.
var ErrNoOperation = errors.New("no such operation in the journal")

// Journal stores operations durably enough for the caller: a state
// written before Update returns must be what a restarted process reads.
type Journal interface {
	// Create stores op unless an operation with its ID exists, and
	// returns what is stored: the first writer's key wins.
	Create(ctx context.Context, op Operation) (Operation, error)
	// Load returns the operation with id, or ErrNoOperation.
	Load(ctx context.Context, id string) (Operation, error)
	// Update stores op's state, attempts, resource id and time; the key
	// and payload never change once created.
	Update(ctx context.Context, op Operation) error
}

// samePayload is the check Begin makes on an existing operation: a
// resumed operation must resend the exact bytes its key was first sent
// with, or the server rightly refuses it as a key reused for another
// request.
func samePayload(stored Operation, payload []byte) error {
	if !bytes.Equal(stored.Payload, payload) {
		return fmt.Errorf("operation %q is journaled with another payload (key %s): an operation's payload never changes", stored.ID, stored.Key)
	}
	return nil
}

// MemoryJournal keeps operations in memory: for callers that need no
// restart, and for tests. It is safe for concurrent use.
type MemoryJournal struct {
	mu  sync.Mutex
	ops map[string]Operation
}

func NewMemoryJournal() *MemoryJournal { return &MemoryJournal{ops: map[string]Operation{}} }

func (j *MemoryJournal) Create(ctx context.Context, op Operation) (Operation, error) {
	if err := ctx.Err(); err != nil {
		return Operation{}, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if stored, ok := j.ops[op.ID]; ok {
		return clone(stored), nil
	}
	j.ops[op.ID] = clone(op)
	return clone(op), nil
}

func (j *MemoryJournal) Load(ctx context.Context, id string) (Operation, error) {
	if err := ctx.Err(); err != nil {
		return Operation{}, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	op, ok := j.ops[id]
	if !ok {
		return Operation{}, fmt.Errorf("operation %q: %w", id, ErrNoOperation)
	}
	return clone(op), nil
}

func (j *MemoryJournal) Update(ctx context.Context, op Operation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	stored, ok := j.ops[op.ID]
	if !ok {
		return fmt.Errorf("operation %q: %w", op.ID, ErrNoOperation)
	}
	// The key and payload are written once, by Create.
	stored.State, stored.Attempts, stored.ResourceID, stored.UpdatedAt = op.State, op.Attempts, op.ResourceID, op.UpdatedAt
	j.ops[op.ID] = stored
	return nil
}

// clone keeps callers from sharing the stored payload.
func clone(op Operation) Operation {
	op.Payload = bytes.Clone(op.Payload)
	return op
}
