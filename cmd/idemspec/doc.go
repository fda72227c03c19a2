// Command idemspec is the conformance harness for idempotency guarantees.
//
//	idemspec run    [--target FILE|fake:NAME] [--report-dir DIR] [--dry-run] [--budget N] [--rate R] [--concurrency N] [--allow-remote] ...
//	idemspec init   [--out FILE] [--url URL] [--path PATH] [--key-header NAME]
//	idemspec init   --openapi DOC [--operation ID ...] [--all] [--key-header NAME] [--url URL] [--out FILE|DIR]
//	idemspec validate FILE
//	idemspec serve  [--mutant NAME] [--addr HOST:PORT] [--db PATH] [--delay D] [--in-progress-timeout D]
//	idemspec list   [--format text|markdown]
//	idemspec report [--out DIR] REPORT.json
//	idemspec report --compare [--out DIR] A.json B.json ...
//
// Exit codes: 0 every check passed, 1 a violation, 2 a configuration or
// execution error. Bad input is reported as one plain message, never a
// stack trace.
package main
