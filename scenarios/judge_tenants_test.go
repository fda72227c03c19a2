package scenarios_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios"
)

func TestTenantIsolation(t *testing.T) {
	first := answer(1, "tenant-a: create", 201, "a1")
	tests := []struct {
		name          string
		first, second history.Exchange
		ra, rb        check.Reading
		want          check.Status
		reason        string
		note          string
	}{
		{name: "own resource", first: first, second: answer(2, "tenant-b", 201, "b1"), ra: reading(1, "a1"), rb: reading(1, "b1"), want: check.PASS},
		{name: "refused", first: first, second: answer(2, "tenant-b", 409, ""), ra: reading(1, "a1"), rb: reading(0), want: check.PASS},
		{
			name: "replayed the first tenant's answer", first: first, second: answer(2, "tenant-b", 201, "a1"), ra: reading(1, "a1"), rb: reading(0),
			want: check.FAIL, reason: "the second tenant's answer carries the first tenant's resource",
		},
		{
			name: "leak in a refusal's body", first: first, second: withBody(answer(2, "tenant-b", 409, ""), `{"existing":"a1"}`), ra: reading(1, "a1"), rb: reading(0),
			want: check.FAIL, reason: "carries the first tenant's resource",
		},
		// Views not scoped by tenant (an admin list, a database): each
		// resource is the tenant's whose answer named it.
		{name: "a shared view shows the first tenant's resource to a refused second", first: first, second: answer(2, "tenant-b", 409, ""), ra: reading(1, "a1"), rb: reading(1, "a1"),
			want: check.PASS, note: "not scoped by tenant"},
		{name: "a shared view lists both tenants' resources", first: first, second: answer(2, "tenant-b", 201, "b1"), ra: reading(2, "a1", "b1"), rb: reading(2, "a1", "b1"),
			want: check.PASS, note: "not scoped by tenant"},
		{name: "a count-only oracle that sees both tenants", first: first, second: answer(2, "tenant-b", 201, "b1"), ra: countOnly(2), rb: countOnly(2),
			want: check.PASS, note: "not scoped by tenant"},
		{name: "global keys behind a shared view", first: first, second: answer(2, "tenant-b", 201, "a1"), ra: reading(1, "a1"), rb: reading(1, "a1"),
			want: check.FAIL, reason: "the second tenant's answer carries the first tenant's resource", note: "not scoped by tenant"},
		{
			name: "the second create made another resource for the first tenant", first: first, second: answer(2, "tenant-b", 201, "b1"), ra: reading(2, "a1", "a2"), rb: reading(1, "b1"),
			want: check.FAIL, reason: "the first tenant does not have exactly its one resource after the second tenant's create (expected 1, observed 2)",
		},
		{
			name: "the second tenant's resource is not in its view", first: first, second: answer(2, "tenant-b", 201, "b1"), ra: reading(1, "a1"), rb: check.Reading{IDs: []string{}},
			want: check.FAIL, reason: "the second tenant's resource is not in its own view",
		},
		{name: "first create failed", first: answer(1, "a", 500, ""), second: answer(2, "b", 201, "b1"), want: check.ERROR, reason: "did not succeed"},
		{name: "second got no answer", first: first, second: lost(2, "b"), want: check.ERROR, reason: "got no answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, notes := scenarios.TenantIsolation(scenarios.TenantRecord{First: tc.first, Second: tc.second, FirstReading: tc.ra, SecondReading: tc.rb})
			expectVerdict(t, v, "T1", tc.want, tc.reason)
			if got := strings.Join(notes, "; "); !strings.Contains(got, tc.note) || (tc.note == "" && got != "") {
				t.Errorf("notes %q, want %q", got, tc.note)
			}
		})
	}
}
