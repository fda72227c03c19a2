package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

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
	err = s.ListenAndServe(ctx, addr, func(addr string) {
		fmt.Fprintf(stdout, "idemspec serve: MCP %s listening on http://%s (pid %d)\n", s.Mutant().Name, addr, os.Getpid())
	})
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintln(stdout, "idemspec serve: stopped")
	return exitOK
}
