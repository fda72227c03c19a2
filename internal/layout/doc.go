// Package layout holds no code: its test keeps the project's package
// layout honest. Data flows one way, target file -> targets -> harness
// (the engine) -> scenarios (stimulus, history, judges) -> reports; the
// pure packages (recorded history, verdicts and evidence, the property
// model, the reference retrying client, reports) import nothing of the
// engine, so they can be read, tested and reused without a proxy, a
// target or a test framework.
package layout
