package targets

import "time"

// MaxWait caps every wait idemspec makes on a target's behalf: a stop, a
// restart hook, a health check, the retries that wait out a key still in
// flight, a crashed request's in-progress timeout. Whatever a target
// file declares, no single wait is longer, so a run always ends with
// verdicts. A declared in-progress timeout longer than this is reported
// (S5b warns), never waited out.
const MaxWait = time.Minute

// MaxInProgressTimeout bounds what a target may declare as its
// in-progress timeout: a day is common, and is reported rather than
// waited out; past a year, idemspec's sums with it (its request timeout,
// doubled for a wait in the property search) would overflow.
const MaxInProgressTimeout = 365 * 24 * time.Hour

// MaxStartup caps the wait for a target to come up: a managed process's
// start and its restarts (process.health.timeout), and a restart hook's
// health check (restart.health.timeout). A JVM service or a first
// `npm ci` needs minutes, more than MaxWait allows anything else; the
// run's --timeout still bounds the whole run.
const MaxStartup = 10 * time.Minute
