package scenarios_test

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios"
)

// Throwaway checks, registered once per test binary (a package-level var,
// so -count=N does not register them twice).
var (
	shouldCheck = check.Register(check.Entry{
		ID: "ZZ-test-should", Group: "test", Level: check.SHOULD, Clause: "test",
		Title: "should be graded WARN when broken",
	})
	mayCheck = check.Register(check.Entry{
		ID: "ZZ-test-may", Group: "test", Level: check.MAY, Clause: "test",
		Title: "should be graded WARN when broken, too",
	})
)

func TestLessID(t *testing.T) {
	// Each pair is in order: a sorts before b.
	ordered := [][2]string{
		{"S1", "S2"},
		{"S2", "S10"},
		{"S9", "S10"},
		{"S5", "S5a"},
		{"S5a", "S5b"},
		{"S5b", "S6"},
		{"S9", "T1"},
		{"S10", "T1"},
		{"C1", "S1"},
	}
	for _, p := range ordered {
		t.Run(p[0]+"<"+p[1], func(t *testing.T) {
			if !check.LessID(p[0], p[1]) {
				t.Errorf("LessID(%q, %q) = false, want true", p[0], p[1])
			}
			if check.LessID(p[1], p[0]) {
				t.Errorf("LessID(%q, %q) = true, want false", p[1], p[0])
			}
		})
	}
	if check.LessID("S1", "S1") {
		t.Error("LessID(S1, S1) = true: an ID is not less than itself")
	}

	ids := []string{"T1", "S10", "S5b", "S1", "S5", "S9", "S5a", "S2"}
	sort.Slice(ids, func(i, j int) bool { return check.LessID(ids[i], ids[j]) })
	want := []string{"S1", "S2", "S5", "S5a", "S5b", "S9", "S10", "T1"}
	if !slices.Equal(ids, want) {
		t.Errorf("sorted %v, want %v", ids, want)
	}
}

func TestAllIsInIDOrder(t *testing.T) {
	all := check.All()
	var core []string
	for i, c := range all {
		if i > 0 && check.LessID(c.ID, all[i-1].ID) {
			t.Errorf("All: %s listed after %s", c.ID, all[i-1].ID)
		}
		if c.Group == "core" {
			core = append(core, c.ID)
		}
	}
	if want := []string{"S1", "S2", "S3", "S3a", "S4"}; !slices.Equal(core, want) {
		t.Errorf("core checks %v, want %v", core, want)
	}
}

func TestCatalogueEntries(t *testing.T) {
	for _, sc := range []*scenarios.Check{scenarios.S1, scenarios.S2, scenarios.S3, scenarios.S4, scenarios.S5a, scenarios.S5b, scenarios.S6} {
		c := sc.Entry()
		got, ok := check.Get(c.ID)
		if !ok || got != c {
			t.Errorf("Get(%q) = %+v, %v; want %+v", c.ID, got, ok, c)
		}
		if c.Level != check.MUST || c.Clause == "" || !strings.HasPrefix(c.Title, "should ") {
			t.Errorf("%s: malformed entry %+v", c.ID, c)
		}
	}
	if _, ok := check.Get("no-such-check"); ok {
		t.Error("Get(no-such-check) found something")
	}
}

func TestJudge(t *testing.T) {
	broken := check.Violation{What: "two resources", Expected: "1", Observed: "2", Seqs: []int{3}}
	other := check.Violation{What: "no id"}
	tests := []struct {
		name       string
		id         string
		violations []check.Violation
		want       check.Status
		reason     string
	}{
		{name: "MUST kept", id: "S1", want: check.PASS},
		{name: "MUST broken", id: "S1", violations: []check.Violation{broken}, want: check.FAIL, reason: "two resources (expected 1, observed 2)"},
		{name: "MUST broken twice", id: "S1", violations: []check.Violation{broken, other}, want: check.FAIL, reason: "two resources (expected 1, observed 2); no id"},
		{name: "SHOULD kept", id: shouldCheck.ID, want: check.PASS},
		{name: "SHOULD broken", id: shouldCheck.ID, violations: []check.Violation{broken}, want: check.WARN, reason: "two resources (expected 1, observed 2)"},
		{name: "MAY broken", id: mayCheck.ID, violations: []check.Violation{other}, want: check.WARN, reason: "no id"},
		// An unknown check is judged as strictly as a MUST.
		{name: "unregistered", id: "ZZ-unregistered", violations: []check.Violation{other}, want: check.FAIL, reason: "no id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := check.Judge(tc.id, tc.violations...)
			if v.Check != tc.id || v.Status != tc.want || v.Reason != tc.reason {
				t.Errorf("Judge = %+v, want check %s, status %s, reason %q", v, tc.id, tc.want, tc.reason)
			}
			if !slices.EqualFunc(v.Violations, tc.violations, func(a, b check.Violation) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
				t.Errorf("violations %v, want %v", v.Violations, tc.violations)
			}
		})
	}
}

func TestViolationString(t *testing.T) {
	tests := []struct {
		v    check.Violation
		want string
	}{
		{check.Violation{What: "w"}, "w"},
		{check.Violation{What: "w", Expected: "e"}, "w (expected e)"},
		{check.Violation{What: "w", Observed: "o"}, "w (observed o)"},
		{check.Violation{What: "w", Expected: "e", Observed: "o"}, "w (expected e, observed o)"},
	}
	for _, tc := range tests {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestSkipAndErrored(t *testing.T) {
	if v := check.Skip("S5", "no restart hook"); v.Check != "S5" || v.Status != check.SKIP || v.Reason != "no restart hook" {
		t.Errorf("Skip = %+v", v)
	}
	if v := check.Errored("S1", errors.New("dial tcp: refused")); v.Check != "S1" || v.Status != check.ERROR || v.Reason != "dial tcp: refused" {
		t.Errorf("Errored = %+v", v)
	}
}

func TestRegisterPanicsOnMalformedEntries(t *testing.T) {
	tests := []struct {
		name  string
		c     check.Entry
		panic string
	}{
		{
			name:  "duplicate ID",
			c:     check.Entry{ID: "S1", Level: check.MUST, Title: "should be unique"},
			panic: "check S1 registered twice",
		},
		{
			name:  "title not starting with should",
			c:     check.Entry{ID: "ZZ-test-title", Level: check.MUST, Title: "must read as should"},
			panic: `check "ZZ-test-title": needs an ID and a title starting with "should "`,
		},
		{
			name:  "title Should capitalised",
			c:     check.Entry{ID: "ZZ-test-title-case", Level: check.MUST, Title: "Should be lower case"},
			panic: "title starting with",
		},
		{
			name:  "no ID",
			c:     check.Entry{Level: check.MUST, Title: "should have an id"},
			panic: "needs an ID",
		},
		{
			name:  "bad level",
			c:     check.Entry{ID: "ZZ-test-level", Level: "MUSTNT", Title: "should have a level"},
			panic: `check ZZ-test-level: level "MUSTNT" is not MUST, SHOULD or MAY`,
		},
		{
			name:  "no level",
			c:     check.Entry{ID: "ZZ-test-no-level", Title: "should have a level"},
			panic: "is not MUST, SHOULD or MAY",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatalf("Register(%+v) did not panic", tc.c)
				}
				if msg := fmt.Sprint(r); !strings.Contains(msg, tc.panic) {
					t.Errorf("panic %q does not contain %q", msg, tc.panic)
				}
				if tc.c.ID != "S1" {
					if _, ok := check.Get(tc.c.ID); ok {
						t.Errorf("a rejected check %q was registered anyway", tc.c.ID)
					}
				}
				if got, _ := check.Get("S1"); got != scenarios.S1.Entry() {
					t.Errorf("S1 replaced by %+v", got)
				}
			}()
			check.Register(tc.c)
		})
	}
}
