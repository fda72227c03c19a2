// Package harness is idemspec's engine: an embedded Toxiproxy with a
// clean and a faulty lane in front of the target, faults as values, a
// recording HTTP client that never retries on its own, and tight same-key
// bursts. Scenarios use an Env to send and record; the judges are theirs
// (package scenarios), pure functions of what the harness recorded.
//
// The harness must never create a duplicate itself: every send is exactly
// one attempt in the history, and every retry is an explicit step.
package harness
