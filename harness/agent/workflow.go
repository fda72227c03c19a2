package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The workflow shape (idemspec client --workflow): the program is given
// a job of several steps instead of one create, and must finish it
// exactly once across lost answers, crashes and restarts.
const (
	EnvShape = "IDEMSPEC_SHAPE" // "create" (or unset): one create; "workflow": a job of IDEMSPEC_STEPS
	EnvSteps = "IDEMSPEC_STEPS" // the job's steps, a JSON array of Step
)

// The shapes a program may be given.
const (
	ShapeCreate   = "create"
	ShapeWorkflow = "workflow"
)

// Step is one step of a job, as IDEMSPEC_STEPS describes it.
type Step struct {
	// Name names the step; a later step's Path or Body refers to the id
	// this step returned as {NAME}.
	Name   string `json:"name"`
	Method string `json:"method"`
	// Path is sent on IDEMSPEC_SERVER_URL, {NAME} replaced.
	Path string `json:"path"`
	// Body is the exact body ("" none), {NAME} replaced; with the key in
	// the body, a keyed step's holds the JSON string "{{.Key}}" where the
	// key goes.
	Body string `json:"body,omitempty"`
	// Keyed: the step carries an idempotency key where IDEMSPEC_KEY_IN
	// says, one key per step, the same on every attempt and after a
	// restart. An unkeyed step is safe to repeat (an upload by path, a
	// read).
	Keyed bool `json:"keyed,omitempty"`
	// Creates: each execution of the step makes a resource, so it must
	// execute at most once.
	Creates bool `json:"creates,omitempty"`
	// Lookup, for a keyed step, is a GET path with {key} replaced by the
	// step's key: 404 unknown key, 200 with a non-empty resource_id done
	// (that is the step's id), 200 without one still in progress.
	Lookup string `json:"lookup,omitempty"`
	// ID is the dotted JSON path of the step's id in its 2xx answer.
	ID string `json:"id"`
}

// Job is what idemspec hands a program in the workflow shape: the
// inputs of the create shape but for the create's own (CreatePath,
// LookupPath, Payload), and the steps.
type Job struct {
	Inputs
	Steps []Step
}

// JobResult is the line a job's program prints last: its state (one of
// the contract's end states) and the id of every step it finished.
type JobResult struct {
	State  string            `json:"state"`
	IDs    map[string]string `json:"ids"`
	Reason string            `json:"reason,omitempty"`
}

// Environ is in the form exec.Cmd.Env takes.
func (j Job) Environ() []string {
	steps, _ := json.Marshal(j.Steps)
	env := []string{EnvShape + "=" + ShapeWorkflow, EnvSteps + "=" + string(steps)}
	for _, kv := range j.Inputs.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != EnvCreatePath && name != EnvLookupPath && name != EnvPayload {
			env = append(env, kv)
		}
	}
	return env
}

// Shape is the shape the environment gives the program.
func Shape() string {
	if s := os.Getenv(EnvShape); s != "" {
		return s
	}
	return ShapeCreate
}

// JobFromEnv reads a job from the process environment.
func JobFromEnv() (Job, error) {
	var j Job
	if err := json.Unmarshal([]byte(os.Getenv(EnvSteps)), &j.Steps); err != nil {
		return j, fmt.Errorf("%s: %v", EnvSteps, err)
	}
	if len(j.Steps) == 0 {
		return j, fmt.Errorf("%s: no steps", EnvSteps)
	}
	for i, s := range j.Steps {
		if s.Name == "" || s.Method == "" || s.Path == "" || (s.Keyed && s.Lookup == "") {
			return j, fmt.Errorf("%s: step %d needs a name, a method and a path, and a look-up when keyed", EnvSteps, i+1)
		}
	}
	in := Inputs{
		ServerURL: os.Getenv(EnvServerURL), KeyIn: os.Getenv(EnvKeyIn), KeyName: os.Getenv(EnvKeyName), KeyHeader: os.Getenv(EnvKeyHeader),
		Marker: os.Getenv(EnvMarker), StateDir: os.Getenv(EnvStateDir), RunID: os.Getenv(EnvRunID),
	}
	var missing []string
	for name, v := range map[string]string{EnvServerURL: in.ServerURL, EnvKeyIn: in.KeyIn, EnvKeyName: in.KeyName, EnvMarker: in.Marker, EnvStateDir: in.StateDir} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return j, fmt.Errorf("not run by `idemspec client --workflow`: %s not set", strings.Join(missing, ", "))
	}
	if err := in.readBounds(); err != nil {
		return j, err
	}
	j.Inputs = in
	return j, nil
}

// readBounds reads the budget, the deadline and the attempt timeout.
func (in *Inputs) readBounds() error {
	var err error
	if in.AttemptBudget, err = strconv.Atoi(os.Getenv(EnvAttemptBudget)); err != nil || in.AttemptBudget < 1 {
		return fmt.Errorf("%s=%q: want a positive integer", EnvAttemptBudget, os.Getenv(EnvAttemptBudget))
	}
	for name, d := range map[string]*time.Duration{EnvDeadline: &in.Deadline, EnvAttemptTimeout: &in.AttemptTimeout} {
		ms, err := strconv.Atoi(os.Getenv(name))
		if err != nil || ms < 1 {
			return fmt.Errorf("%s=%q: want a positive number of milliseconds", name, os.Getenv(name))
		}
		*d = time.Duration(ms) * time.Millisecond
	}
	return nil
}

// Fill replaces each {NAME} in s by the id step NAME returned.
func Fill(s string, ids map[string]string) string {
	for name, id := range ids {
		s = strings.ReplaceAll(s, "{"+name+"}", id)
	}
	return s
}
