package mcpserver

import "testing"

// Every mutant's Change is its lie in the type New applies (a func of
// another type would be passed over, and the mutant would serve as the
// reference); the reference's entry changes nothing and names what the
// audit must find wanting in it.
func TestEveryMutantChangesOneStep(t *testing.T) {
	for _, m := range Mutants() {
		_, ok := m.Change.(func(*steps))
		switch {
		case m.Name == Reference && (m.Change != nil || len(m.Catches) == 0):
			t.Errorf("the reference's entry: change %T, catches %v; want no change and its findings", m.Change, m.Catches)
		case m.Name != Reference && (!ok || m.Bug == "" || len(m.Catches) == 0):
			t.Errorf("%s: change %T, bug %q, catches %v", m.Name, m.Change, m.Bug, m.Catches)
		}
	}
	if d := Design(nil, nil); d.Reference.Name != Reference {
		t.Errorf("the design's reference is %q", d.Reference.Name)
	}
	if m, err := LookupMutant(""); err != nil || m.Name != Reference {
		t.Errorf(`LookupMutant(""): %+v, %v`, m, err)
	}
	if _, err := LookupMutant("no-such-lie"); err == nil {
		t.Error("an unknown mutant is not an error")
	}
}
