// Command agent is an example caller built on idemspec's reference
// retrying client (harness/retry): it creates one resource through any
// API a target file describes, and prints the operation's final state as
// JSON.
//
//	go run ./examples/agent --target my-api.yaml --op order-42
//
// The key is journaled (SQLite, --journal) before the first send. Run the
// same command again after a timeout, a crash or a kill -9: it resumes the
// operation with the same key, reconciles first (the target's lookup, or
// its list endpoint with reconcile: oracle) and never creates a second
// resource on a server that deduplicates.
//
// Exit codes: 0 SUCCEEDED, 1 another end state (UNKNOWN_RESULT,
// FAILED_RETRYABLE, FAILED_FINAL), 2 bad flags or configuration.
package main
