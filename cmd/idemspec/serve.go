package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/fakes/mcpserver"
)

func init() {
	register(command{use: "serve", summary: "run the reference server or a mutant as a standalone process", define: serveCommand})
}

func serveCommand(fs *pflag.FlagSet) body {
	var opts fakes.Options
	var addr, store string
	fs.StringVar(&opts.Mutant, "mutant", fakes.Reference, "the reference server, or a mutant `NAME` (idemspec list --fakes names them)")
	fs.StringVar(&addr, "addr", "127.0.0.1:8080", "host:port to listen on")
	fs.StringVar(&opts.DBPath, "db", "idemspec-serve.db", "SQLite database file (created if missing)")
	fs.StringVar(&store, "store", "", "a postgres:// URL: keep keys and resources in PostgreSQL instead of --db (several instances may share it)")
	fs.DurationVar(&opts.Delay, "delay", fakes.DefaultDelay, "the handler's work time between claiming a key and storing its answer")
	fs.DurationVar(&opts.InProgressTimeout, "in-progress-timeout", fakes.DefaultInProgressTimeout, "how long an abandoned in-flight key blocks retries")
	fs.IntVar(&opts.PageSize, "page-size", 0, "list this many resources a page (0: all at once)")
	fs.StringVar(&opts.PageStyle, "page-style", "", "how the list pages with --page-size: link (default), cursor, page or offset")
	fs.DurationVar(&opts.IdleTimeout, "idle-timeout", 0, "close a connection that waits longer than this for its next request, or for the rest of a request, as Python's http.server (a handler timeout), gunicorn or Node do (0: never)")
	fs.BoolVar(&opts.NoDrain, "no-drain", false, "on SIGTERM exit at once, finishing no request in flight, as a server with no SIGTERM handler does (it sends an answer's head before its body, so the exit can cut an answer)")
	announceWork := fs.Bool("announce-work", false, "write a line work key=\"K\" as a request for key K enters its work: the crash point a target file's process.crash_at waits for")
	serveMCPFlag := fs.Bool("mcp", false, "serve the reference MCP server (stdio; streamable HTTP when --addr is given); --mutant names an MCP mutant")
	state := fs.String("state", "", "with --mcp: keep the MCP server's state in this JSON `FILE` (default: in memory)")
	records := fs.Bool("records", false, "with --mcp: also serve the record tools client mode hands an agent (create_record, find_record), so an unmodified MCP agent can be judged against this server as a real one (idemspec client --mcp --target)")
	relay := fs.String("relay", "", "with --mcp: relay stdio to the server `idemspec client --mcp` serves on this loopback ADDR (its IDEMSPEC_MCP_COMMAND)")
	return func(_ []string, stdout, stderr io.Writer) int {
		if *serveMCPFlag && *relay != "" {
			return relayMCP(*relay, os.Stdin, stdout, stderr)
		}
		if *serveMCPFlag {
			mcpAddr := ""
			if fs.Changed("addr") {
				mcpAddr = addr
			}
			return serveMCP(mcpserver.Options{Mutant: opts.Mutant, StatePath: *state, Records: *records}, mcpAddr, stdout, stderr)
		}
		return serve(opts, addr, store, *announceWork, stdout, stderr)
	}
}

// serve serves a fake until SIGTERM or SIGINT, then shuts down cleanly:
// requests in flight finish (with --no-drain, none does) and the
// database is closed. Its records live
// in the --db file (WAL, synchronous commits), so a new process on the
// same file remembers every key a SIGKILLed one stored.
func serve(opts fakes.Options, addr, store string, announceWork bool, stdout, stderr io.Writer) int {
	if store != "" {
		if !fakes.IsPostgres(store) {
			return fail(stderr, fmt.Sprintf("--store %q: want a postgres:// URL", store))
		}
		opts.DBPath = store
	}
	if opts.Delay <= 0 || opts.InProgressTimeout <= 0 {
		return fail(stderr, "--delay and --in-progress-timeout must be positive")
	}
	if opts.IdleTimeout < 0 {
		return fail(stderr, "--idle-timeout must not be negative")
	}
	if _, err := fakes.LookupMutant(fakes.OfServer, opts.Mutant); err != nil {
		return fail(stderr, err)
	}
	// Signals are caught before the server starts, so none is missed.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(stop)

	opts.Log = stdout
	if announceWork {
		opts.WorkLog = stdout
	}
	in, err := fakes.Start(opts, addr)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "idemspec serve: %s listening on %s (db %s, delay %s, in-progress timeout %s, pid %d)\n",
		in.Mutant().Name, in.URL, redactStore(opts.DBPath), opts.Delay, opts.InProgressTimeout, os.Getpid())
	sig := <-stop
	if opts.NoDrain {
		fmt.Fprintf(stdout, "idemspec serve: %s: exiting without finishing the requests in flight (--no-drain)\n", sig)
	} else {
		fmt.Fprintf(stdout, "idemspec serve: %s: shutting down\n", sig)
	}
	if err := in.Close(); err != nil {
		return fail(stderr, fmt.Errorf("shutdown: %w", err))
	}
	fmt.Fprintln(stdout, "idemspec serve: stopped")
	return exitOK
}

// redactStore hides a store URL's password in what serve prints.
func redactStore(store string) string {
	if u, err := url.Parse(store); err == nil && u.User != nil {
		return u.Redacted()
	}
	return store
}
