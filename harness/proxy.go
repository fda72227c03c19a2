package harness

import (
	"github.com/idemspec/idemspec/harness/wire"

	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// proxies is an embedded Toxiproxy: no REST listener, proxies added
// straight to its collection.
type proxies struct {
	server *toxiproxy.ApiServer

	mu    sync.Mutex
	feeds []*feed
	// tap, when set, reads the lanes' connections to the target
	// (oracle.wire): every feed started after it is set uses it.
	tap *wire.Tap
}

var proxySeq atomic.Int64

func newProxies() *proxies {
	// NewServer(nil, ...) panics later in Routes(); a private registry
	// keeps nothing global.
	metrics := toxiproxy.NewMetricsContainer(prometheus.NewRegistry())
	return &proxies{server: toxiproxy.NewServer(metrics, zerolog.Nop())}
}

// lane starts a proxy on a loopback port in front of upstream: a
// Toxiproxy proxy, not started, whose toxic collection carries the
// lane's faults, fed by an accept loop of the harness's (feed.go).
func (p *proxies) lane(name, upstream string) (*Lane, error) {
	proxyName := fmt.Sprintf("%s-%d", name, proxySeq.Add(1))
	px := toxiproxy.NewProxy(p.server, proxyName, "127.0.0.1:0", upstream)
	if err := p.server.Collection.Add(px, false); err != nil {
		return nil, fmt.Errorf("start %s proxy: %w", name, err)
	}
	f, err := newFeed(p.server, px, upstream, p.tap)
	if err != nil {
		return nil, fmt.Errorf("start %s proxy: %w", name, err)
	}
	p.mu.Lock()
	p.feeds = append(p.feeds, f)
	p.mu.Unlock()
	return &Lane{Name: name, Addr: f.addr(), Upstream: upstream, proxy: px, feed: f}, nil
}

func (p *proxies) close() error {
	p.mu.Lock()
	feeds := p.feeds
	p.feeds = nil
	p.mu.Unlock()
	for _, f := range feeds {
		f.close()
	}
	return p.server.Collection.Clear()
}

// resetAll removes every toxic from every lane (a safety net after a
// scenario; each fault is also removed by its own cleanup).
func (p *proxies) resetAll() {
	for _, px := range p.server.Collection.Proxies() {
		px.Toxics.ResetToxics(context.Background())
	}
}
