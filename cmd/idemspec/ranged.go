package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/reports"
)

// The flags below refuse a bad value as it is set, not later in a
// command's own checks: pflag's error then names the flag, and
// flagsFromEnv's the variable the value came from (IDEMSPEC_BURST=5000),
// as docs/CLI.md promises.

// rangedInt is an int flag between lo and hi.
type rangedInt struct {
	p      *int
	lo, hi int
}

// intFlag defines an int flag that refuses a value outside lo..hi.
func intFlag(fs *pflag.FlagSet, p *int, name string, lo, hi int, usage string) {
	fs.Var(rangedInt{p, lo, hi}, name, usage)
}

func (r rangedInt) String() string {
	if r.p == nil {
		return "0"
	}
	return strconv.Itoa(*r.p)
}

func (r rangedInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a whole number")
	}
	if n < r.lo || n > r.hi {
		return fmt.Errorf("must be between %d and %d", r.lo, r.hi)
	}
	*r.p = n
	return nil
}

func (r rangedInt) Type() string { return "int" }

// shardFlag is --shard I/N, kept as written once it parses.
type shardFlag struct{ p *string }

func (f shardFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f shardFlag) Set(s string) error {
	if _, err := reports.ParseShard(s); err != nil {
		return err
	}
	*f.p = s
	return nil
}

func (f shardFlag) Type() string { return "string" }
