package fakes

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/idemspec/idemspec/targets"
)

// TargetPrefix names the built-in targets: fake:reference, fake:<mutant>.
const TargetPrefix = "fake:"

// StartTarget starts a built-in fake on a loopback port and describes it:
// "fake:NAME[?delay=D&in_progress_timeout=D&replay_delay=D&idle_timeout=D&profile=P&instances=N&list_scope=tenant|all&page_size=N&page_style=S&key_in=header|body|query&duplicate_keys=first&action=events|event-count&drain=false&window=held]".
// With profile=P the fake answers by that profile's convention and the
// target declares it, so every profile is proven against a real server.
func StartTarget(ref string) (*targets.Target, error) {
	spec, query, _ := strings.Cut(strings.TrimPrefix(ref, TargetPrefix), "?")
	opts := Options{Mutant: spec}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	profile := targets.StandardProfile()
	instances := 1
	action := ""
	for name, vals := range q {
		if name == "action" {
			if vals[0] != "events" && vals[0] != "event-count" {
				return nil, fmt.Errorf("%s: action: %q is not events or event-count (the fakes' action on a parent, counted in its list of events or its event_count field)", ref, vals[0])
			}
			action = vals[0]
			continue
		}
		if name == "instances" {
			if instances, err = strconv.Atoi(vals[0]); err != nil || instances < 1 || instances > 8 {
				return nil, fmt.Errorf("%s: instances: %q is not a count from 1 to 8", ref, vals[0])
			}
			continue
		}
		if name == "list_scope" {
			switch vals[0] {
			case "tenant":
			case "all":
				opts.ListAll = true
			default:
				return nil, fmt.Errorf("%s: list_scope: %q is not tenant or all", ref, vals[0])
			}
			continue
		}
		if name == "window" {
			if vals[0] != "held" {
				return nil, fmt.Errorf("%s: window: %q is not held (held: a bug's window after an answer stays open until a restart or a crash ends the server, or 5 s)", ref, vals[0])
			}
			opts.HeldWindow = true
			continue
		}
		if name == "drain" {
			drain, err := strconv.ParseBool(vals[0])
			if err != nil {
				return nil, fmt.Errorf("%s: drain: %q is not true or false (false: a stop finishes nothing in flight)", ref, vals[0])
			}
			opts.NoDrain = !drain
			continue
		}
		if name == "duplicate_keys" {
			if vals[0] != "first" {
				return nil, fmt.Errorf("%s: duplicate_keys: %q is not first (first: two key headers are not refused, the first is the key)", ref, vals[0])
			}
			opts.FirstOfDuplicateKeys = true
			continue
		}
		if name == "key_in" {
			opts.KeyIn = vals[0]
			continue
		}
		if name == "page_size" || name == "page_style" {
			if err := pageOption(&opts, name, vals[0]); err != nil {
				return nil, fmt.Errorf("%s: %w", ref, err)
			}
			continue
		}
		if name == "profile" {
			if profile, err = targets.LookupProfile(vals[0]); err != nil {
				return nil, fmt.Errorf("%s: %w", ref, err)
			}
			opts.Convention = conventionOf(profile)
			continue
		}
		d, err := time.ParseDuration(vals[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %q is not a duration", ref, name, vals[0])
		}
		switch name {
		case "delay":
			opts.Delay = d
		case "in_progress_timeout":
			opts.InProgressTimeout = d
		case "replay_delay":
			opts.ReplayDelay = d
		case "idle_timeout":
			opts.IdleTimeout = d
		default:
			return nil, fmt.Errorf("%s: unknown option %q (known: delay, in_progress_timeout, replay_delay, idle_timeout, profile, instances, list_scope, page_size, page_style, key_in, duplicate_keys, action, drain, window)", ref, name)
		}
	}
	in, err := Start(opts, "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	t := DescribeTarget(in.URL, ref)
	DescribeKeyIn(t, opts.KeyIn)
	if action != "" {
		describeAction(t, opts.KeyIn, action == "event-count")
	}
	if list, ok := t.Oracle.(*targets.ListOracle); ok {
		list.Pages = oraclePages(opts)
	}
	t.Profile = profile
	t.Key.Required = profile.KeyRequired
	t.InProgressTimeout = in.InProgressTimeout()
	t.Lifecycle = in
	if err := startInstances(t, opts, in, instances); err != nil {
		t.Close()
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	return t, nil
}

// startInstances starts n-1 more instances of a fake beside first,
// sharing its database, as several processes behind a balancer share one.
func startInstances(t *targets.Target, opts Options, first *Instance, n int) error {
	for i := 1; i < n; i++ {
		opts.DBPath = first.DBPath()
		in, err := Start(opts, "127.0.0.1:0")
		if err != nil {
			return err
		}
		u, _ := url.Parse(in.URL)
		t.AddInstance(u, in)
	}
	return nil
}

// conventionOf is how a fake answers when it follows profile p. The ietf
// profile is the reference's own convention (IETF), which also marks
// replays although the draft names no header.
func conventionOf(p targets.Profile) *Convention {
	if p.Name == targets.DefaultProfile {
		return nil
	}
	return &Convention{
		Mismatch: p.Mismatch, InFlight: p.InFlight, MissingKey: p.MissingKey,
		KeyOptional: !p.KeyRequired, ReplayHeader: p.ReplayHeader,
		StoreFailures: p.FailedAttempt == targets.FailureReplayed,
	}
}

// DescribeTarget describes the API every fake serves, at baseURL: the
// reference API (targets.DescribeReference).
func DescribeTarget(baseURL, name string) *targets.Target {
	return targets.DescribeReference(baseURL, name)
}
