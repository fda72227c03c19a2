package targets

import "time"

// MaxWait caps every wait idemspec makes on a target's behalf: a stop, a
// restart hook, a health check, the retries that wait out a key still in
// flight, a crashed request's in-progress timeout. Whatever a target
// file declares, no single wait is longer, so a run always ends with
// verdicts. A declared in-progress timeout longer than this is reported
// (S5b warns), never waited out.
const MaxWait = time.Minute
