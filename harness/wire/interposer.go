package wire

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Limits of one exchange.
const (
	// MaxBody bounds a request's or an answer's body: past it idemspec
	// answers 413 (a request) or 502 (an answer) itself.
	MaxBody = 16 << 20
	// MaxKept bounds what the Record keeps of each body (the hash and
	// the id are read from the whole).
	MaxKept = 64 << 10
	// DefaultHoldLimit bounds a hold or a blackhole.
	DefaultHoldLimit = 30 * time.Second
	// DefaultForwardLimit bounds one request's trip to the API and back.
	DefaultForwardLimit = 60 * time.Second
)

// Config is what an Interposer stands in front of.
type Config struct {
	// Operations are the calls it recognises.
	Operations []Operation
	// Base is the API's base URL: requests go to its scheme and host, and
	// its path is the prefix of every operation's path.
	Base *url.URL
	// Upstream carries requests to the API: the lane's client, so that
	// the lane's faults and its TLS apply. nil: a plain client.
	Upstream *http.Client
	// HoldLimit bounds a hold or a blackhole; ForwardLimit one request's
	// trip to the API. Zero: the defaults.
	HoldLimit    time.Duration
	ForwardLimit time.Duration
}

// Interposer is a loopback HTTP server that forwards a program's
// requests to the API, faulting the ones aimed at, and records them.
type Interposer struct {
	cfg    Config
	rec    *Record
	ln     net.Listener
	srv    *http.Server
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	aims     []*Armed // newest last
	ordinals map[string]int
	// open are the requests in flight, so that Close waits for them.
	open sync.WaitGroup
}

// Start listens on a loopback port and serves until Close.
func Start(cfg Config) (*Interposer, error) {
	if cfg.Base == nil || cfg.Base.Host == "" {
		return nil, fmt.Errorf("the interposer needs the API's base URL")
	}
	if cfg.Upstream == nil {
		// No compression of its own: the API answers in the encoding the
		// program asked for, or none.
		cfg.Upstream = &http.Client{
			Transport:     &http.Transport{DisableCompression: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if cfg.HoldLimit <= 0 {
		cfg.HoldLimit = DefaultHoldLimit
	}
	if cfg.ForwardLimit <= 0 {
		cfg.ForwardLimit = DefaultForwardLimit
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the interposer's listener: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ip := &Interposer{cfg: cfg, rec: newRecord(true), ln: ln, ctx: ctx, cancel: cancel, ordinals: map[string]int{}}
	ip.srv = &http.Server{Handler: ip, ReadHeaderTimeout: 10 * time.Second}
	go ip.srv.Serve(ln)
	return ip, nil
}

// URL is the address to hand the program in place of the API's base
// URL: the interposer's, with the base URL's path.
func (ip *Interposer) URL() string {
	return "http://" + ip.ln.Addr().String() + strings.TrimSuffix(ip.cfg.Base.EscapedPath(), "/")
}

// Record is the interposer's record of every exchange.
func (ip *Interposer) Record() *Record { return ip.rec }

// Arm puts an aim in force until it is disarmed. When several aims reach
// one request, the one armed last acts on it.
func (ip *Interposer) Arm(a Aim) *Armed {
	armed := newArmed(a)
	ip.mu.Lock()
	ip.aims = append(ip.aims, armed)
	ip.mu.Unlock()
	return armed
}

// DisarmAll disarms every aim (dropping unrun what they hold).
func (ip *Interposer) DisarmAll() {
	ip.mu.Lock()
	aims := ip.aims
	ip.aims = nil
	ip.mu.Unlock()
	for _, a := range aims {
		a.Disarm()
	}
}

// Close stops the interposer: holds end (dropped unrun), connections
// close, and it returns once every request under way has ended.
func (ip *Interposer) Close() error {
	ip.cancel()
	ip.DisarmAll()
	err := ip.srv.Close()
	ip.open.Wait()
	return err
}

// ServeHTTP handles one request of the program.
func (ip *Interposer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ip.open.Add(1)
	defer ip.open.Done()
	x := &Exchange{Start: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		x.Problem = "reading the request: " + err.Error()
		ip.rec.add(x)
		ip.drop(w, x)
		return
	}
	if len(body) > MaxBody {
		x.Problem = fmt.Sprintf("the request's body is over %d bytes", MaxBody)
		ip.rec.add(x)
		ip.answer(w, x, http.StatusRequestEntityTooLarge, "", x.Problem)
		return
	}
	// The record, the key and the payload's hash read a compressed body
	// decoded; the API gets the bytes the program sent.
	plain, problem := readable(r.Header, body, "the program's request")
	x.Body, x.Problem = kept(plain), problem
	op, armed := ip.classify(r, plain, x)
	ip.rec.add(x)
	var f Fault
	if armed != nil {
		f = armed.aim.Fault
	}
	switch {
	case f.Blackhole:
		armed.arrived(x.Seq)
		ip.swallow(r.Context(), w, x)
		return
	case f.Hold:
		armed.arrived(x.Seq)
		if !ip.hold(r.Context(), armed, x) {
			ip.rec.update(x, func(x *Exchange) { x.Problem = "held, then dropped unrun" })
			ip.drop(w, x)
			return
		}
	case armed != nil:
		armed.arrived(x.Seq)
	}
	if f.Respond != 0 {
		if f.Drop {
			ip.rec.update(x, func(x *Exchange) { x.Status, x.AnsweredBy = f.Respond, AnsweredByIdemspec })
			ip.drop(w, x)
			return
		}
		ip.answer(w, x, f.Respond, f.RetryAfter, "idemspec answered for the API (a fault)")
		return
	}
	res, ok := ip.forward(r, body, op, x)
	if !ok || f.Drop {
		ip.drop(w, x)
		return
	}
	ip.deliver(w, x, res)
}

// classify matches the request to an operation, numbers it, reads its
// key and finds the aim that acts on it (nil: none).
func (ip *Interposer) classify(r *http.Request, body []byte, x *Exchange) (Operation, *Armed) {
	x.Shape = shape(body)
	op, ok := matchUnder(ip.cfg.Operations, strings.TrimSuffix(ip.cfg.Base.Path, "/"), r.Method, r.URL.Path)
	if !ok {
		x.PayloadHash = hash(body)
		x.Resembles = resembles(ip.cfg.Operations, r, body)
		return Operation{}, nil
	}
	x.Operation, x.Kind = op.Name, op.Kind
	payload := body
	if op.KeyOf != nil {
		x.Key, payload, x.KeyFound = op.KeyOf(r, body)
	}
	x.PayloadHash = hash(payload)
	scope := string(op.Kind) + " " + op.Name
	ip.mu.Lock()
	defer ip.mu.Unlock()
	ip.ordinals[scope]++
	x.Ordinal = ip.ordinals[scope]
	var acting *Armed
	for _, a := range ip.aims {
		if op.Kind == Create && a.count(op.Name) {
			acting = a // the newest that reaches it wins
		}
	}
	if acting != nil {
		x.Fault = acting.aim.Fault.Name()
	}
	return op, acting
}

// hold waits for the aim's release, the hold limit or the interposer's
// end; true means go on. A program that gives up meanwhile is noted,
// and the request still waits: idemspec may let it run after a kill.
func (ip *Interposer) hold(program context.Context, a *Armed, x *Exchange) bool {
	limit := time.NewTimer(ip.cfg.HoldLimit)
	defer limit.Stop()
	gone := program.Done()
	for {
		select {
		case <-a.release:
			return a.released()
		case <-gone:
			gone = nil
			ip.rec.update(x, func(x *Exchange) { x.GaveUp = true })
			continue
		case <-limit.C:
		case <-ip.ctx.Done():
		}
		return false
	}
}

// swallow keeps a blackholed request's connection open until the program
// gives up, the hold limit or the interposer's end, then closes it.
func (ip *Interposer) swallow(ctx context.Context, w http.ResponseWriter, x *Exchange) {
	limit := time.NewTimer(ip.cfg.HoldLimit)
	defer limit.Stop()
	select {
	case <-ctx.Done():
	case <-limit.C:
	case <-ip.ctx.Done():
	}
	ip.drop(w, x)
}

// forward sends the request on to the API and reads its answer into x;
// false when no answer came.
func (ip *Interposer) forward(r *http.Request, body []byte, op Operation, x *Exchange) (*http.Response, bool) {
	ctx, cancel := context.WithTimeout(ip.ctx, ip.cfg.ForwardLimit)
	defer cancel()
	u := *ip.cfg.Base
	u.Path, u.RawPath, u.RawQuery, u.Fragment = r.URL.Path, r.URL.RawPath, r.URL.RawQuery, ""
	var rd io.Reader
	if len(body) > 0 {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), rd)
	if err != nil {
		ip.rec.update(x, func(x *Exchange) { x.Problem = "building the request to the API: " + err.Error() })
		return nil, false
	}
	// No GetBody: net/http would resend a request it thinks replayable on
	// a broken connection, a duplicate the program never sent.
	req.GetBody = nil
	for name, vs := range r.Header {
		if !hopByHop(name) {
			req.Header[name] = slices.Clone(vs)
		}
	}
	ip.rec.update(x, func(x *Exchange) { x.Forwarded = true })
	res, err := ip.cfg.Upstream.Do(req)
	if err != nil {
		ip.rec.update(x, func(x *Exchange) { x.Problem = "no answer from the API: " + err.Error() })
		return nil, false
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, MaxBody+1))
	if err != nil || len(answer) > MaxBody {
		why := fmt.Sprintf("the API's answer is over %d bytes", MaxBody)
		if err != nil {
			why = "reading the API's answer: " + err.Error()
		}
		ip.rec.update(x, func(x *Exchange) { x.Status, x.AnsweredBy, x.Problem = res.StatusCode, AnsweredByAPI, why })
		return nil, false
	}
	// The program gets the answer's bytes as the API sent them; the
	// record and the id are read from them decoded.
	plain, problem := readable(res.Header, answer, "the API's answer")
	ip.rec.update(x, func(x *Exchange) {
		x.Status, x.AnsweredBy, x.Answer = res.StatusCode, AnsweredByAPI, x.keep(plain)
		if op.IDOf != nil && x.Committed() {
			x.ResourceID = op.IDOf(plain)
		}
		if problem != "" {
			x.Problem = problem
		}
	})
	res.Body = io.NopCloser(bytes.NewReader(answer))
	return res, true
}

// deliver writes the API's answer to the program.
func (ip *Interposer) deliver(w http.ResponseWriter, x *Exchange, res *http.Response) {
	for name, vs := range res.Header {
		if !hopByHop(name) && !strings.EqualFold(name, "Content-Length") {
			w.Header()[name] = vs
		}
	}
	b, _ := io.ReadAll(res.Body)
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(res.StatusCode)
	_, err := w.Write(b)
	ip.finish(x, err == nil, "")
}

// answer writes idemspec's own answer.
func (ip *Interposer) answer(w http.ResponseWriter, x *Exchange, status int, retryAfter, why string) {
	b := fmt.Appendf(nil, "{\"error\":%q}\n", why)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.WriteHeader(status)
	_, err := w.Write(b)
	ip.rec.update(x, func(x *Exchange) { x.Status, x.AnsweredBy, x.Answer = status, AnsweredByIdemspec, x.keep(b) })
	ip.finish(x, err == nil, "")
}

// drop closes the program's connection at once, without an answer: a
// real SDK learns now, rather than after its own long timeout.
func (ip *Interposer) drop(w http.ResponseWriter, x *Exchange) {
	problem := ""
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
		} else {
			problem = "closing the program's connection: " + err.Error()
		}
	}
	ip.finish(x, false, problem)
}

func (ip *Interposer) finish(x *Exchange, delivered bool, problem string) {
	ip.rec.update(x, func(x *Exchange) {
		x.Delivered, x.End, x.Done = delivered, time.Now(), true
		if problem != "" && x.Problem == "" {
			x.Problem = problem
		}
	})
}

func kept(b []byte) []byte {
	if len(b) > MaxKept {
		return slices.Clone(b[:MaxKept])
	}
	return slices.Clone(b)
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// hopByHop names the headers that belong to one connection, not to the
// request (RFC 9110 §7.6.1).
func hopByHop(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Host":
		return true
	}
	return false
}
