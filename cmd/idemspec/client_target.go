package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/retry/state"
	"github.com/idemspec/idemspec/harness/wire"
	"github.com/idemspec/idemspec/scenarios"
)

// targetClientFlags judge an unmodified program against the API a
// target file describes, through idemspec's interposer.
type targetClientFlags struct {
	file        string
	baseURLEnv  []string
	stateDirEnv []string
	exitCodes   string
	codes       map[int]string
}

func (t *targetClientFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.file, "target", "", "judge the program unmodified against the API this target `FILE` describes (the file `idemspec run` takes), handed idemspec's interposer in --base-url-env; with --mcp, against the real MCP server an mcp: file describes, through idemspec's relay (docs/MCP.md#the-agent-you-ship-over-mcp)")
	fs.StringArrayVar(&t.baseURLEnv, "base-url-env", nil, "with --target: the variable `NAME` in which the program reads its API's base URL (repeatable)")
	fs.StringArrayVar(&t.stateDirEnv, "state-dir-env", nil, "with --target: a variable `NAME` to hand the program its working directory in, kept across a trial's restarts (repeatable)")
	fs.StringVar(&t.exitCodes, "exit-codes", "", "with --target: what the program's exit codes mean when it prints no result, e.g. `0=SUCCEEDED,3=UNKNOWN_RESULT` (C4)")
}

func (t *targetClientFlags) validate(fs *pflag.FlagSet, f *clientFlags) error {
	if t.file == "" {
		for _, name := range []string{"base-url-env", "state-dir-env", "exit-codes"} {
			if fs.Changed(name) {
				return fmt.Errorf("--%s needs --target: it describes an unmodified program judged against the API a target file describes", name)
			}
		}
		return nil
	}
	if f.mcp.on || len(f.mcp.commandEnv)+len(f.mcp.urlEnv) > 0 {
		for _, name := range []string{"base-url-env", "state-dir-env"} {
			if fs.Changed(name) {
				return fmt.Errorf("--%s is for --target over HTTP: over --mcp the client is handed the relay in --mcp-command-env or --mcp-url-env", name)
			}
		}
		// An unmodified agent over MCP may print no result either: its
		// exit codes say its end state, as over HTTP (C4).
		codes, err := parseExitCodes(t.exitCodes)
		t.codes = codes
		return err // the rest: the MCP mode's own checks (mcpClientFlags.validate)
	}
	switch {
	case fs.Changed("key-in"):
		return fmt.Errorf("--key-in does not go with --target: the target file says where the key goes (key.in)")
	case len(t.baseURLEnv) == 0:
		return fmt.Errorf("--target needs --base-url-env NAME: the variable in which the program reads its API's base URL")
	}
	for _, name := range slices.Concat(t.baseURLEnv, t.stateDirEnv) {
		if !variableName.MatchString(name) {
			return fmt.Errorf("%q is not a variable name (letters, digits and underscores, not starting with a digit)", name)
		}
	}
	codes, err := parseExitCodes(t.exitCodes)
	if err != nil {
		return err
	}
	t.codes = codes
	return nil
}

// parseExitCodes reads --exit-codes: CODE=STATE, comma-separated.
func parseExitCodes(s string) (map[int]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	codes := map[int]string{}
	for _, pair := range strings.Split(s, ",") {
		code, st, ok := strings.Cut(strings.TrimSpace(pair), "=")
		n, err := strconv.Atoi(strings.TrimSpace(code))
		st = strings.ToUpper(strings.TrimSpace(st))
		switch {
		case !ok || err != nil || n < 0 || n > 255:
			return nil, fmt.Errorf("--exit-codes %q: %q is not CODE=STATE with CODE 0..255", s, pair)
		case state.State(st) != state.Succeeded && state.State(st) != state.UnknownResult && state.State(st) != state.Failed:
			return nil, fmt.Errorf("--exit-codes %q: state %q is not %s, %s or %s", s, st, state.Succeeded, state.UnknownResult, state.Failed)
		}
		if _, dup := codes[n]; dup {
			return nil, fmt.Errorf("--exit-codes %q: exit code %d is mapped twice", s, n)
		}
		codes[n] = st
	}
	return codes, nil
}

// executeTarget judges the command against the file's API: idemspec
// starts or reaches it, puts the faulty lane and the interposer in
// front, and runs the client checks on the unmodified program.
func (f *clientFlags) executeTarget(l *lifecycle, stdout, stderr io.Writer) int {
	ctx := l.ctx
	target, err := loadTarget(ctx, f.target.file, f.timeout)
	if err != nil {
		return fail(stderr, err)
	}
	defer target.Close()
	l.adopt(target)
	if err := target.CheckRemote(false); err != nil {
		return fail(stderr, err)
	}
	warn(stderr, target)
	if err := os.MkdirAll(f.reportDir, 0o755); err != nil {
		return fail(stderr, fmt.Errorf("report directory: %w", err))
	}
	// A signal or the time limit during the start ends it: the process
	// that never came up is stopped, and the reports say why.
	if err := target.Start(ctx, f.reportDir); err != nil {
		return f.notRun(l, "", "", target, l.cut(err, "starting the target"), stdout, stderr)
	}
	env, err := harness.New(target, harness.DefaultSettings())
	if err != nil {
		return f.notRun(l, "", "", target, l.cut(err, "setting up the lanes"), stdout, stderr)
	}
	defer env.Close()
	// The program's credentials (its bearer token, its API key, its
	// cookies) are learnt from its requests, before the API sees them.
	ip, err := wire.Start(wire.Config{Operations: wire.OperationsOf(target), Base: target.BaseURL, Upstream: l.learnWire(env.Faulty.HTTPClient())})
	if err != nil {
		return l.fail(stderr, err)
	}
	defer ip.Close()
	l.followWire(ip.Record())
	root, err := os.MkdirTemp("", "idemspec-client-")
	if err != nil {
		return fail(stderr, err)
	}
	defer os.RemoveAll(root)
	target.CountedBy = scenarios.WireCounted
	ce := &scenarios.ClientEnv{Env: env, StateRoot: root, Wire: &scenarios.ClientWire{
		Interposer: ip, BaseURLEnv: f.target.baseURLEnv, StateDirEnv: f.target.stateDirEnv, ExitCodes: f.target.codes,
	}}
	return f.runChecks(l, ce, ip.Record().Len, fmt.Sprintf("testing the program %q, unmodified, against %s at %s", f.command, target.Name, target.Redact(target.BaseURL.String())), stdout, stderr)
}
