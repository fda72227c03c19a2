package fakes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Instance is a fake server listening on a loopback port.
type Instance struct {
	*Server
	URL  string // http://127.0.0.1:PORT
	Addr string // 127.0.0.1:PORT
	http *http.Server
	done chan error
}

// Start opens a fake and serves it on addr ("127.0.0.1:0" picks a port).
func Start(opts Options, addr string) (*Instance, error) {
	s, err := Open(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	in := &Instance{
		Server: s,
		Addr:   ln.Addr().String(),
		URL:    "http://" + ln.Addr().String(),
		http:   &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second},
		done:   make(chan error, 1),
	}
	go func() { in.done <- in.http.Serve(ln) }()
	return in, nil
}

// Stop is Close, so an Instance can be a target lifecycle.
func (in *Instance) Stop() error { return in.Close() }

// Close stops serving, waiting briefly for requests in flight, and closes
// the database.
func (in *Instance) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := in.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = in.http.Close()
	}
	if serveErr := <-in.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return errors.Join(err, in.Server.Close())
}
