package targets

import "fmt"

// StatusError is an oracle read the target answered with an unexpected
// HTTP status. A 5xx may pass (a service still starting answers 503);
// anything else will not.
type StatusError int

func (e StatusError) Error() string { return fmt.Sprintf("status %d", int(e)) }

// Transient says whether the target may answer differently soon.
func (e StatusError) Transient() bool { return e >= 500 }
