package harness

import "fmt"

// DirectLane is a lane without a proxy: its connections go straight to
// upstream. It exists to measure what the proxy hop costs (bench/ sends
// the same requests and bursts through it and through Clean, side by
// side); a fault cannot be applied to it.
func DirectLane(upstream string) *Lane {
	l := &Lane{Name: directName, Addr: upstream, Upstream: upstream}
	l.setClients(true)
	return l
}

// errNoProxy is Apply's answer on a DirectLane.
func errNoProxy(l *Lane, f Fault) error {
	return fmt.Errorf("apply %s to the %s lane: it has no proxy to carry faults", f.Name(), l.Name)
}
