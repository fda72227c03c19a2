package targets

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"           // registers "sqlite"
)

// sqlHost is a host:port a postgres DSN names.
type sqlHost struct{ host, port string }

// postgresConfig parses a postgres DSN (URL or key=value, with the PG*
// environment defaults) so that its hosts are addresses the target names,
// under the loopback rule, and its connections go through dial.
func (t *Target) postgresConfig(dsn string) (*pgx.ConnConfig, []sqlHost, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, nil, err
	}
	var hosts []sqlHost
	add := func(host string, port uint16) {
		if !strings.HasPrefix(host, "/") { // a Unix socket directory
			hosts = append(hosts, sqlHost{host: host, port: strconv.Itoa(int(port))})
		}
	}
	add(cfg.Host, cfg.Port)
	for _, f := range cfg.Fallbacks {
		add(f.Host, f.Port)
	}
	// No lookup here: dial resolves the name once and pins it.
	cfg.LookupFunc = func(_ context.Context, host string) ([]string, error) { return []string{host}, nil }
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if network == "unix" {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
		return t.dial(ctx, network, addr)
	}
	return cfg, hosts, nil
}

type sqlSpec struct {
	Driver string `yaml:"driver" required:"true"`
	DSN    string `yaml:"dsn" required:"true"`
	Query  string `yaml:"query" required:"true"`
}

// sqlDrivers maps the names a target file uses to database/sql drivers.
var sqlDrivers = map[string]string{"sqlite": "sqlite", "postgres": "pgx"}

// SQLOracle counts the rows a query returns for a marker, straight from
// the target's database: the strongest evidence, since it trusts nothing
// the API says. The query takes the marker as its one parameter (? or $1
// for SQLite, $1 for Postgres) and returns one row per resource, its id
// first.
type SQLOracle struct {
	Driver, Query string
	dsn           string
	// postgres is the parsed DSN of a postgres oracle, its connections
	// dialled through the target's pinned addresses; hosts are the
	// network hosts it names (a socket directory is not one).
	postgres *pgx.ConnConfig
	hosts    []sqlHost

	once sync.Once
	db   *sql.DB
	err  error
}

func (o *SQLOracle) Kind() string { return "sql" }

// Evidence says what a reading from this oracle proves.
func (o *SQLOracle) Evidence() string {
	return "strongest: counts the rows in the target's database, trusting nothing the API answers"
}

// Observe runs the query with marker as its parameter.
func (o *SQLOracle) Observe(ctx context.Context, marker string) (Observation, error) {
	o.once.Do(func() {
		if o.postgres != nil {
			o.db = stdlib.OpenDB(*o.postgres)
			return
		}
		o.db, o.err = sql.Open(sqlDrivers[o.Driver], o.dsn)
	})
	if o.err != nil {
		return Observation{}, fmt.Errorf("oracle sql: %w", o.err)
	}
	rows, err := o.db.QueryContext(ctx, o.Query, marker)
	if err != nil {
		return Observation{}, fmt.Errorf("oracle sql: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return Observation{}, fmt.Errorf("oracle sql: %w", err)
	}
	obs := Observation{IDs: []string{}}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(any)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return Observation{}, fmt.Errorf("oracle sql: %w", err)
		}
		obs.Count++
		id := *(dest[0].(*any))
		if b, ok := id.([]byte); ok {
			id = string(b)
		}
		obs.addID(fmt.Sprint(id))
	}
	if err := rows.Err(); err != nil {
		return Observation{}, fmt.Errorf("oracle sql: %w", err)
	}
	return obs, nil
}

// Close closes the database handle.
func (o *SQLOracle) Close() error {
	if o.db != nil {
		return o.db.Close()
	}
	return nil
}
