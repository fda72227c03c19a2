// Package upstream is the server client mode's program talks to, as the
// checks see it: the log of what arrived, creates failed on request,
// holds on one step of a job, and the census of what it holds. The
// reference server (package fakes) and the MCP side serving the
// reference MCP server implement it; scenarios judge through it and
// never name a fakes type, so a production path keeps none.
package upstream

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"
)

// Arrival is one request as the server saw it.
type Arrival struct {
	At     time.Time
	Key    string
	Tenant string
	Hash   string
	Status int
	// Method and Path are the request's: the create path, or a look-up's
	// (which is how a client's reconciliation shows in the log), or a
	// step of a multi-step job.
	Method, Path string
	// Dropped: a hold (Hold) dropped the request on arrival, before the
	// server did anything with it.
	Dropped bool
}

// Log is a server side whose log the checks judge, and which fails
// creates on request (FailNext: the next n creates answer status before
// any work; n 0 lifts it).
type Log interface {
	Requests() []Arrival
	FailNext(n, status int)
}

// Hold says which request to stop, and when: client mode's failpoint
// for a step of a multi-step job.
type Hold struct {
	// Method and Path match the request: Path is a path.Match pattern
	// ("/resources/*/events").
	Method, Path string
	// After stops the request once the server has done its work and
	// committed it, before the answer leaves; otherwise it stops on
	// arrival, before the server does anything.
	After bool
}

// Held is an armed hold.
type Held interface {
	// Arrived is closed when a request stopped at the hold.
	Arrived() <-chan struct{}
	// Release lets the held request go on (deliver) or drops it, and
	// returns once its handler acted on that.
	Release(deliver bool)
	// ClientGaveUp says whether the client had closed the held
	// request's connection when asked.
	ClientGaveUp() bool
	// Index is the held request's place in the log (Requests).
	Index() int
}

// Owned is one resource as the server's database holds it.
type Owned struct {
	ID, Tenant string
	// Parent is the resource an event was appended to ("" for a
	// top-level resource).
	Parent string
}

// Server is the reference HTTP server client mode owns: its log, its
// holds, and the census of its database (the ground truth of what a
// client's job made, whichever token it sent).
type Server interface {
	Log
	Hold(Hold) Held
	Census(ctx context.Context, marker string) ([]Owned, error)
}

// MCPSide serves the reference MCP server to an agent under test: its
// log names the tool as the path. LoseAnswers drops every answer until
// lifted; BeforeCreate runs f before each create (nil removes it);
// Restart starts a new generation, so the client meets a new session.
type MCPSide interface {
	Log
	LoseAnswers(bool)
	BeforeCreate(f func())
	Restart() error
}

// The tools client mode serves to an agent under test over MCP: a
// create keyed by an idempotency_key argument, and a read that finds
// what a key made.
const (
	ToolCreateRecord = "create_record" // a create keyed by idempotency_key
	ToolFindRecord   = "find_record"   // read-only: the record a key made, if any
	// KeyArgument is the create's idempotency key argument.
	KeyArgument = "idempotency_key"
)

// Public is the tenant of a request without credentials.
const Public = "public"

// TenantCredentials are the headers that reach tenant's keys and
// resources: its bearer token, none for the public tenant. Client mode
// reads a client's resources through them, whichever token it sent.
func TenantCredentials(tenant string) http.Header {
	if tenant == Public || tenant == "" {
		return http.Header{}
	}
	return http.Header{"Authorization": {"Bearer " + tenant}}
}

// TenantName names a tenant in reports without its token: "public", or
// "token sha256:" and the first eight hex digits of the token's digest
// (printf %s TOKEN | sha256sum).
func TenantName(tenant string) string {
	if tenant == Public || tenant == "" {
		return Public
	}
	sum := sha256.Sum256([]byte(tenant))
	return "token sha256:" + hex.EncodeToString(sum[:])[:8]
}
