package check_test

import (
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

func TestTenantIsolation(t *testing.T) {
	first := answer(1, "tenant-a: create", 201, "a1")
	tests := []struct {
		name          string
		first, second history.Exchange
		ra, rb        check.Reading
		want          check.Status
		reason        string
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
		{
			name: "oracle shows the first tenant's resource to the second", first: first, second: answer(2, "tenant-b", 409, ""), ra: reading(1, "a1"), rb: reading(1, "a1"),
			want: check.FAIL, reason: "lists the first tenant's resource",
		},
		{
			name: "second create touched the first tenant", first: first, second: answer(2, "tenant-b", 201, "b1"), ra: reading(2, "a1", "b1"), rb: reading(1, "b1"),
			want: check.FAIL, reason: "does not see exactly its one resource",
		},
		{name: "first create failed", first: answer(1, "a", 500, ""), second: answer(2, "b", 201, "b1"), want: check.ERROR, reason: "did not succeed"},
		{name: "second got no answer", first: first, second: lost(2, "b"), want: check.ERROR, reason: "got no answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := check.TenantIsolation(check.TenantRun{First: tc.first, Second: tc.second, FirstReading: tc.ra, SecondReading: tc.rb})
			expectVerdict(t, v, "T1", tc.want, tc.reason)
		})
	}
}
