package main

import (
	"fmt"
	"io"
	"net"
	"time"
)

// relayMCP is the MCP server an agent starts over stdio in client mode
// (`idemspec serve --mcp --relay ADDR`): it carries the agent's stdin to
// the session client mode serves on addr, and that session's messages to
// stdout, until either side closes. All the server's work, its faults
// and its log are client mode's, in its own process; this is only a
// pipe, so a restart of the server closes it.
func relayMCP(addr string, stdin io.Reader, stdout, stderr io.Writer) int {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return fail(stderr, fmt.Errorf("--relay %q: want a loopback host:port", addr))
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return fail(stderr, fmt.Errorf("relay to the MCP server: %w", err))
	}
	defer conn.Close()
	done := make(chan struct{}, 2)
	go func() {
		io.Copy(conn, stdin)
		conn.(*net.TCPConn).CloseWrite()
		done <- struct{}{}
	}()
	go func() {
		io.Copy(stdout, conn)
		done <- struct{}{}
	}()
	<-done
	return exitOK
}
