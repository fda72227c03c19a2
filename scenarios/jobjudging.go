package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness/check"
)

// JobTrial is what one workflow trial observed: the judges of W1..W5
// read it and nothing else.
type JobTrial struct {
	Steps    []JobStep
	Requests []JobRequest
	// Exits are the program's runs, in order (one per start).
	Exits []check.ClientExit
	// Kills are the runs idemspec killed, and where.
	Kills []JobKill
	// Created are the ids of what each creating step made, from the
	// server's database.
	Created map[string][]string
	// Unreachable: the server was unreachable from some point of the
	// last run to its end.
	Unreachable     bool
	Deadline, Slack time.Duration
}

// JobStep is a step of the job, as the judges need it.
type JobStep struct {
	Name           string
	Keyed, Creates bool
}

// JobRequest is one request in the server's log.
type JobRequest struct {
	Seq, Run int
	// Step is the step the request belongs to: a send by its method and
	// path, a look-up by its key ("" when no send carried the key).
	Step string
	// Kind is "send" (the step itself) or "lookup".
	Kind         string
	Key, Tenant  string
	Method, Path string
	Status       int
	// Lost: the server ran it and idemspec lost its answer. Dropped:
	// idemspec dropped it on arrival, before the server ran it.
	Lost, Dropped bool
}

// JobKill is a run idemspec killed while Step's request was held at the
// server: after the server ran it (Ran), or on arrival.
type JobKill struct {
	Run  int
	Step string
	Ran  bool
}

// attributeLookups files each look-up under the step whose sends carry
// its key.
func (jt *JobTrial) attributeLookups() {
	stepOf := map[string]string{}
	for _, r := range jt.Requests {
		if r.Kind == "send" && r.Key != "" && r.Step != "" {
			stepOf[r.Key] = r.Step
		}
	}
	for i, r := range jt.Requests {
		if r.Kind == "lookup" {
			jt.Requests[i].Step = stepOf[r.Key]
		}
	}
}

// sends are the sends of step, in order.
func (jt JobTrial) sends(step string) []JobRequest {
	var out []JobRequest
	for _, r := range jt.Requests {
		if r.Kind == "send" && r.Step == step {
			out = append(out, r)
		}
	}
	return out
}

// keyed are the job's keyed steps.
func (jt JobTrial) keyed() []JobStep {
	var out []JobStep
	for _, s := range jt.Steps {
		if s.Keyed {
			out = append(out, s)
		}
	}
	return out
}

// needSends is the violation of a trial in which the program sent no
// step at all: nothing can be judged, and a job that never starts is
// not conforming either.
func (jt JobTrial) needSends() []check.Violation {
	for _, r := range jt.Requests {
		if r.Kind == "send" {
			return nil
		}
	}
	return []check.Violation{{What: "the program sent no step of its job", Expected: "at least one", Observed: "none"}}
}

func jobSeqs(rs ...JobRequest) []int {
	out := make([]int, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Seq)
	}
	return out
}

// endOf says how a run ended, for a message: killed (and why), its end
// state, and what was wrong with its result, each said apart.
func endOf(x check.ClientExit) string {
	var parts []string
	if x.Killed != "" {
		parts = append(parts, "killed: "+x.Killed)
	}
	if x.State != "" {
		parts = append(parts, x.State)
	}
	if x.Problem != "" {
		parts = append(parts, x.Problem)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("exit %d", x.Code)
	}
	return strings.Join(parts, "; ")
}
