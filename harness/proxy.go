package harness

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// proxies is an embedded Toxiproxy: no REST listener, proxies added
// straight to its collection.
type proxies struct {
	server *toxiproxy.ApiServer
}

var proxySeq atomic.Int64

func newProxies() *proxies {
	// NewServer(nil, ...) panics later in Routes(); a private registry
	// keeps nothing global.
	metrics := toxiproxy.NewMetricsContainer(prometheus.NewRegistry())
	return &proxies{server: toxiproxy.NewServer(metrics, zerolog.Nop())}
}

// lane starts a proxy on a loopback port in front of upstream.
func (p *proxies) lane(name, upstream string) (*Lane, error) {
	proxyName := fmt.Sprintf("%s-%d", name, proxySeq.Add(1))
	px := toxiproxy.NewProxy(p.server, proxyName, "127.0.0.1:0", upstream)
	if err := p.server.Collection.Add(px, true); err != nil {
		return nil, fmt.Errorf("start %s proxy: %w", name, err)
	}
	// Listen is rewritten by Start with the real port; read it once now.
	return &Lane{Name: name, Addr: px.Listen, Upstream: upstream, proxy: px}, nil
}

func (p *proxies) close() error {
	return p.server.Collection.Clear()
}

// resetAll removes every toxic from every lane (a safety net after a
// scenario; each fault is also removed by its own cleanup).
func (p *proxies) resetAll() {
	for _, px := range p.server.Collection.Proxies() {
		px.Toxics.ResetToxics(context.Background())
	}
}
