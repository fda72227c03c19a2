package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/idemspec/idemspec/fakes/mcpserver"
)

// serveMCP serves the reference MCP server or a mutant: over stdio
// (stdout carries the protocol, so it logs to stderr only) or, with
// addr, over streamable HTTP until SIGTERM or SIGINT.
func serveMCP(opts mcpserver.Options, addr string, stdout, stderr io.Writer) int {
	s, err := mcpserver.New(opts)
	if err != nil {
		return fail(stderr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if addr == "" {
		if err := s.ServeStdio(ctx); err != nil && ctx.Err() == nil {
			return fail(stderr, err)
		}
		return exitOK
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fail(stderr, err)
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	fmt.Fprintf(stdout, "idemspec serve: MCP %s listening on http://%s (pid %d)\n", s.Mutant().Name, ln.Addr(), os.Getpid())
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(shut)
	fmt.Fprintln(stdout, "idemspec serve: stopped")
	return exitOK
}
