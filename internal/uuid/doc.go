// Package uuid makes random (version 4) UUIDs: the idempotency key format
// most servers accept, and the only one some accept. It is shared by the
// targets (keys the harness sends) and the reference retrying client.
package uuid
