// Package property is the properties' search: rapid draws random
// sequences of actions (submit, submit with the answer lost, tight burst,
// look-up, a variation of a request, a create made to fail, one without a
// key or with a malformed key, a restart right after an answer, a crash,
// as the target supports them) over a small pool of keys and payloads;
// harness/model judges every step against the worlds a correct server
// allows; a failure is shrunk to a short sequence the report lists step
// by step.
//
// One Search serves both property checks: a pass with the MUST rules
// failing a sequence (P1), noting where the SHOULD rules break, then, if
// they did and P1 held, a second pass from the same seed with the SHOULD
// rules failing (P2). It drives the target through a harness.Env and
// knows nothing of Ginkgo; package scenarios runs it as P1's and P2's
// specs.
package property
