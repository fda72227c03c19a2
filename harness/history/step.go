package history

// Step is one action of a property run, as the report shows it: what the
// harness did, what came back, what the model of a correct server allowed
// and what was seen. The exchanges it made are listed by Seqs.
type Step struct {
	N       int    `json:"n"`
	Action  string `json:"action"`            // "submit", "submit, answer lost", "burst of 3", "lookup", "reconcile"
	Key     string `json:"key,omitempty"`     // the key's name in the run's pool: k1, k2, ...
	Payload string `json:"payload,omitempty"` // the payload variant sent
	Fault   string `json:"fault,omitempty"`
	// Outcome is what the client knows: "ok", "maybe-applied", "failed",
	// or a tally for a burst ("ok ×3").
	Outcome string `json:"outcome"`
	// Expected is what the model allowed a correct server to answer.
	Expected string `json:"expected"`
	// Observed is what came back, and what the oracle counted after it.
	Observed string `json:"observed"`
	// Broken names the invariants the step broke (empty when it held).
	Broken []string `json:"broken,omitempty"`
	Seqs   []int    `json:"seqs,omitempty"`
}
