package fakes_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
	// The catalogue of checks is registered by the package that defines them.
	_ "github.com/idemspec/idemspec/scenarios"
)

// One registry holds the mutants of the server and of the client: names
// are unique across both, each says what it is a mutant of, and a lookup
// finds it only as that.
func TestOneRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range fakes.Mutants() {
		if seen[m.Name] || m.Name == fakes.Reference {
			t.Errorf("mutant name %q used twice", m.Name)
		}
		seen[m.Name] = true
		other := fakes.OfClient
		switch m.Of {
		case fakes.OfServer, fakes.OfMCP:
		case fakes.OfClient, fakes.OfWorkflow:
			other = fakes.OfServer
		default:
			t.Errorf("%s: a mutant of %q", m.Name, m.Of)
			continue
		}
		if got, err := fakes.LookupMutant(m.Of, m.Name); err != nil || got.Name != m.Name {
			t.Errorf("LookupMutant(%s, %s): %+v, %v", m.Of, m.Name, got, err)
		}
		if _, err := fakes.LookupMutant(other, m.Name); err == nil || !strings.Contains(err.Error(), "a mutant of the "+m.Of) {
			t.Errorf("LookupMutant(%s, %s): %v, want an error saying it is a mutant of the %s", other, m.Name, err, m.Of)
		}
	}
	if n := len(fakes.MutantsOf(fakes.OfServer)) + len(fakes.MutantsOf(fakes.OfClient)) + len(fakes.MutantsOf(fakes.OfWorkflow)) + len(fakes.MutantsOf(fakes.OfMCP)); n != len(fakes.Mutants()) || len(fakes.MutantsOf(fakes.OfClient)) == 0 || len(fakes.MutantsOf(fakes.OfWorkflow)) == 0 {
		t.Errorf("%d server and client mutants of %d", n, len(fakes.Mutants()))
	}
	for _, of := range []string{fakes.OfServer, fakes.OfClient, fakes.OfWorkflow} {
		if m, err := fakes.LookupMutant(of, ""); err != nil || m.Name != fakes.Reference || m.Of != of {
			t.Errorf(`LookupMutant(%s, ""): %+v, %v`, of, m, err)
		}
	}
}

// Every server mutant is the reference plus one bug: it opens (its
// schema, if it changes it, is valid) and creates a resource for a fresh
// key like the reference does.
func TestEveryServerMutantCreates(t *testing.T) {
	for _, m := range fakes.MutantsOf(fakes.OfServer) {
		t.Run(m.Name, func(t *testing.T) {
			s, err := fakes.Open(fakes.Options{Mutant: m.Name})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ts := httptest.NewServer(s.Handler())
			defer ts.Close()
			if a := post(t, ts.URL, key, `{"marker":"m-every"}`); a.status != 201 || a.body["id"] == nil {
				t.Fatalf("create: %d %v, want 201 with an id", a.status, a.body)
			}
			if s.Mutant().Name != m.Name {
				t.Errorf("the server says it is %q", s.Mutant().Name)
			}
		})
	}
}

// Each mutant client is the reference plus one bug, caught by one client
// check; every client check has a mutant that it catches.
func TestMutantClientsCoverTheClientChecks(t *testing.T) {
	caught := map[string]string{}
	for _, m := range fakes.MutantsOf(fakes.OfClient) {
		if len(m.Catches) != 1 || m.Bug == "" {
			t.Errorf("%s: catches %v, bug %q", m.Name, m.Catches, m.Bug)
		}
		for _, id := range m.CaughtBy() {
			if c, ok := check.Get(id); !ok || c.Group != "client" {
				t.Errorf("%s: %s is not a client check", m.Name, id)
			}
			caught[id] = m.Name
		}
	}
	for _, c := range check.All() {
		if c.Group == "client" && caught[c.ID] == "" {
			t.Errorf("no mutant client is caught by %s", c.ID)
		}
	}
	if _, err := fakes.LookupMutant(fakes.OfClient, "no-such-bug"); err == nil {
		t.Error("an unknown bug is not an error")
	}
}

// Each workflow mutant is the reference agent plus one bug, caught by
// workflow checks only; every workflow check has a mutant that it
// catches.
func TestMutantAgentsCoverTheWorkflowChecks(t *testing.T) {
	caught := map[string]bool{}
	for _, m := range fakes.MutantsOf(fakes.OfWorkflow) {
		if len(m.Catches) == 0 || m.Bug == "" {
			t.Errorf("%s: catches %v, bug %q", m.Name, m.Catches, m.Bug)
		}
		for _, id := range m.CaughtBy() {
			if c, ok := check.Get(id); !ok || c.Group != "workflow" {
				t.Errorf("%s: %s is not a workflow check", m.Name, id)
			}
			caught[id] = true
		}
	}
	for _, c := range check.All() {
		if c.Group == "workflow" && !caught[c.ID] {
			t.Errorf("no mutant agent is caught by %s", c.ID)
		}
	}
}
