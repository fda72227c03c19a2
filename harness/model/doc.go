// Package model is what a correct idempotent create endpoint may do,
// kept as the set of worlds each key may be in, and the checker that
// holds observed answers, look-ups and oracle readings against it.
//
// A key is unbound (no request with it has taken effect), bound to one
// payload and one resource, or holding the stored failure of an attempt
// that failed before it took effect. An attempt whose answer was lost
// may or may not have taken effect, so the model keeps both worlds, as
// Jepsen does with :info operations, until an answer, a look-up or the
// oracle rules one out.
//
// Every broken rule is a Finding with the rule's strength: MUST rules are
// the core guarantee (one execution, one resource, one id per key, a
// changed payload refused), SHOULD rules the conventions the profile
// names (statuses, replay fidelity). The model is pure: it never sends,
// sleeps or reads a clock; the property in package scenarios feeds it
// what it observed.
package model
