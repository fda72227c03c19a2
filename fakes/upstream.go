package fakes

import "github.com/idemspec/idemspec/harness/upstream"

// The reference server is the upstream client mode owns: scenarios hold
// it as an upstream.Server and never name this package.
var _ upstream.Server = (*Instance)(nil)
