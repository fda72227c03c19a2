package scenarios_test

import (
	"slices"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/mcprelay"
	"github.com/idemspec/idemspec/scenarios"
)

// An oracle tool's answer as items: the elements of its top-level
// arrays, canonical; lines when it is not JSON.
func TestOracleItems(t *testing.T) {
	for _, c := range []struct {
		content string
		want    []string
	}{
		{`{"entities":[{"name":"a","type":"t"}],"relations":[]}`, []string{`{"name":"a","type":"t"}`}},
		{`[{"b":1,"a":2},"x"]`, []string{`{"a":2,"b":1}`, `"x"`}},
		{`{"notes":{"n":"x"},"count":3}`, nil},
		{"one\n\n two \n", []string{"one", "two"}},
	} {
		got := scenarios.OracleItems(c.content)
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("OracleItems(%q) = %q, want %q", c.content, got, c.want)
		}
	}
}

// New items are counted as a multiset: a second equal item is new.
func TestNewItems(t *testing.T) {
	for _, c := range []struct {
		before, after []string
		want          int
	}{
		{nil, []string{"a"}, 1},
		{[]string{"a"}, []string{"a"}, 0},
		{[]string{"a"}, []string{"a", "a", "b"}, 2},
		{[]string{"a", "b"}, []string{"b"}, 0},
	} {
		if got := scenarios.NewItems(c.before, c.after); got != c.want {
			t.Errorf("NewItems(%q, %q) = %d, want %d", c.before, c.after, got, c.want)
		}
	}
}

// Without an oracle, the effects are the distinct successful answers of
// the operation's calls, a dropped one included; a replay answers the
// same, an injected or refused answer is no effect.
func TestAnswerEffects(t *testing.T) {
	ok := func(tool, content string, dropped bool) mcprelay.Call {
		return mcprelay.Call{Tool: tool, Answered: true, Content: content, Dropped: dropped}
	}
	calls := []mcprelay.Call{
		ok("create", `{"id":1}`, true),
		ok("create", `{"id":1}`, false), // the replay
		{Tool: "create", Answered: true, IsError: true, Injected: true, Retryable: true},
		{Tool: "create", Answered: true, IsError: true, Content: "refused"},
		{Tool: "create", Err: "EOF"},
		ok("list", `[1]`, false),
	}
	if got := scenarios.AnswerEffects(calls, "create"); got != 1 {
		t.Errorf("a replayed create: %d effects, want 1", got)
	}
	calls = append(calls, ok("create", `{"id":2}`, false))
	if got := scenarios.AnswerEffects(calls, "create"); got != 2 {
		t.Errorf("a second execution: %d effects, want 2", got)
	}
}

// The attempts of the first logical call: the creates that carry its key
// or its other arguments; the program's other calls of the tool are left
// out, look-ups kept.
func TestAttemptsOfFirst(t *testing.T) {
	rs := []check.ServerRequest{
		create(1, "k", "h", 503, true),
		lookup(2, "", 200),
		create(3, "k2", "h", 200, false), // a resend with a new key: an attempt
		create(4, "k", "h2", 200, false), // the same key, other arguments: an attempt
		create(5, "x", "other", 200, false),
	}
	var got []int
	for _, r := range scenarios.AttemptsOfFirst(rs) {
		got = append(got, r.Seq)
	}
	if want := []int{1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("attempts %v, want %v", got, want)
	}
}
