#!/usr/bin/env python3
"""An idempotent create API in Python's standard library: http.server + SQLite.

The shape of `idemspec serve` (docs/REFERENCE-SERVER.md), written the way a
small Python service would be, for idemspec to run as a managed process
(target.yaml beside this file). Standard library only.

- POST /resources with an Idempotency-Key header and {"marker", "amount"}:
  201 with the resource and its Location. The same key and body again: the
  stored answer, byte for byte, with `Idempotent-Replayed: true`. The same
  key with another body: 422. The same key while the first is in flight:
  409 with Retry-After. No key, two keys, or a key that is not 1 to 255
  visible ASCII characters: 400.
- Keys are scoped by tenant (the bearer token). The key is claimed by the
  PRIMARY KEY of its row, committed before the work; the resource and the
  stored answer commit together in one transaction, before the answer is
  written. A claim older than --in-progress-timeout belongs to a request
  that died (a crash), and the next request with the key takes it over.
- `X-Idemspec-Fail: 5xx` fails the create on purpose after the resource row
  was written, before the commit: the work rolls back and the claim is
  released, so a retry runs afresh.
- GET /resources?marker=M lists the tenant's resources, GET
  /idempotency-keys/KEY tells what became of a key, GET /healthz.
- On SIGTERM it stops accepting, finishes the requests in flight, and exits.
- With --gzip, an answer to a request that accepts gzip is sent gzipped
  (Content-Encoding: gzip), as many frameworks' compression middleware do.

    python3 server.py --port 8080 --db /tmp/orders.db --delay-ms 200
"""
import argparse
import gzip
import hashlib
import json
import os
import secrets
import signal
import sqlite3
import sys
import threading
import time
import urllib.parse
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency_keys (
    tenant       TEXT    NOT NULL,
    key          TEXT    NOT NULL,
    request_hash TEXT    NOT NULL,
    state        TEXT    NOT NULL,
    locked_at    INTEGER NOT NULL,
    resource_id  TEXT,
    status       INTEGER,
    body         BLOB,
    location     TEXT,
    PRIMARY KEY (tenant, key)
);
CREATE TABLE IF NOT EXISTS resources (
    id         TEXT    PRIMARY KEY,
    tenant     TEXT    NOT NULL,
    marker     TEXT    NOT NULL,
    payload    BLOB    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS resources_marker ON resources (tenant, marker);
"""

IN_FLIGHT, COMPLETE = "in_flight", "complete"
MAX_KEY_LENGTH = 255
MAX_BODY_BYTES = 1 << 20


class Store:
    """One SQLite connection; a lock serialises its statements, as a
    one-connection pool would. The work delay runs outside the lock, so
    requests with one key still race wherever the design lets them."""

    def __init__(self, path):
        self.lock = threading.Lock()
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    def transaction(self, work):
        """Runs work(db) in one write transaction and returns its result."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                result = work(self.db)
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
            return result

    def changes_one_row(self, sql, args):
        """Runs one statement in its own transaction: did it change a row?"""
        return self.transaction(lambda db: db.execute(sql, args).rowcount == 1)

    def query(self, sql, args):
        with self.lock:
            return self.db.execute(sql, args).fetchall()


class Refused(Exception):
    """An answer that ends a create: its status and detail."""

    def __init__(self, status, detail, retry_after=False):
        super().__init__(detail)
        self.status, self.detail, self.retry_after = status, detail, retry_after


class InjectedFailure(Exception):
    def __init__(self, status):
        super().__init__("failed on purpose (X-Idemspec-Fail: %d)" % status)
        self.status = status


def problem(status, detail):
    return json.dumps({"status": status, "detail": detail}).encode()


def valid_key(key):
    return 0 < len(key) <= MAX_KEY_LENGTH and all(0x21 <= ord(c) <= 0x7E for c in key)


def now_ns():
    return time.time_ns()


class Api:
    def __init__(self, store, delay, in_progress_timeout):
        self.store = store
        self.delay = delay
        self.timeout_ns = int(in_progress_timeout * 1e9)

    def create(self, tenant, key, body, fail_status):
        """The create's answer: (status, body bytes, location, replayed)."""
        digest = hashlib.sha256(body).hexdigest()
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            raise Refused(400, "the body must be a JSON object")
        locked_at = now_ns()
        if not self.claim(tenant, key, digest, locked_at):
            record = self.record(tenant, key)
            if record is None:
                # Released (a failed attempt) between our insert and read.
                raise Refused(409, "a request with this key is still being processed", True)
            if record["request_hash"] != digest:
                raise Refused(422, "this key was used with a different request payload")
            if record["state"] == COMPLETE:
                return record["status"], record["body"], record["location"], True
            if locked_at - record["locked_at"] < self.timeout_ns or not self.take_over(tenant, key, record["locked_at"], locked_at):
                raise Refused(409, "a request with this key is still being processed", True)
        return self.execute(tenant, key, payload, body, locked_at, fail_status)

    def claim(self, tenant, key, digest, locked_at):
        return self.store.changes_one_row(
            "INSERT INTO idempotency_keys (tenant, key, request_hash, state, locked_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, key) DO NOTHING",
            (tenant, key, digest, IN_FLIGHT, locked_at))

    def take_over(self, tenant, key, old, locked_at):
        """Takes over a claim whose request died, unless another did first."""
        return self.store.changes_one_row(
            "UPDATE idempotency_keys SET locked_at = ?"
            " WHERE tenant = ? AND key = ? AND state = ? AND locked_at = ?",
            (locked_at, tenant, key, IN_FLIGHT, old))

    def execute(self, tenant, key, payload, body, locked_at, fail_status):
        """Does the work for a key this request owns: the resource and the
        stored answer commit together, if the claim is still ours."""
        # idemspec crashes the process on this line (crash_at), so the
        # crash lands after the claim and before the commit.
        sys.stderr.write('work key="%s"\n' % key)
        sys.stderr.flush()
        time.sleep(self.delay)
        rid = "res_" + secrets.token_hex(8)
        created = now_ns()
        marker = payload.get("marker") if isinstance(payload.get("marker"), str) else ""
        answer = json.dumps({
            "id": rid, "marker": marker, "payload": payload,
            "created_at": datetime.fromtimestamp(created / 1e9, timezone.utc).isoformat(),
        }).encode()
        location = "/resources/" + rid

        def commit(db):
            db.execute("INSERT INTO resources (id, tenant, marker, payload, created_at) VALUES (?, ?, ?, ?, ?)",
                       (rid, tenant, marker, body, created))
            if fail_status:
                raise InjectedFailure(fail_status)
            cur = db.execute(
                "UPDATE idempotency_keys SET state = ?, resource_id = ?, status = 201, body = ?, location = ?"
                " WHERE tenant = ? AND key = ? AND state = ? AND locked_at = ?",
                (COMPLETE, rid, answer, location, tenant, key, IN_FLIGHT, locked_at))
            if cur.rowcount != 1:
                raise Refused(409, "a request with this key is still being processed", True)
        try:
            self.store.transaction(commit)
        except InjectedFailure as failed:
            # The work rolled back; release the claim so a retry runs afresh.
            self.store.changes_one_row(
                "DELETE FROM idempotency_keys WHERE tenant = ? AND key = ? AND state = ? AND locked_at = ?",
                (tenant, key, IN_FLIGHT, locked_at))
            raise Refused(failed.status, str(failed))
        return 201, answer, location, False

    def record(self, tenant, key):
        rows = self.store.query(
            "SELECT request_hash, state, locked_at, resource_id, status, body, location"
            " FROM idempotency_keys WHERE tenant = ? AND key = ?", (tenant, key))
        if not rows:
            return None
        names = ("request_hash", "state", "locked_at", "resource_id", "status", "body", "location")
        return dict(zip(names, rows[0]))

    def resources(self, tenant, marker):
        rows = self.store.query(
            "SELECT id, marker, payload, created_at FROM resources"
            " WHERE tenant = ? AND marker = ? ORDER BY created_at, id", (tenant, marker))
        return [{"id": rid, "marker": m, "payload": json.loads(p),
                 "created_at": datetime.fromtimestamp(at / 1e9, timezone.utc).isoformat()}
                for rid, m, p, at in rows]


class Handler(BaseHTTPRequestHandler):
    # HTTP/1.1: keep-alive, and a "100 Continue" to a request that expects it.
    protocol_version = "HTTP/1.1"
    api = None
    inflight = None
    gzip = False

    def tenant(self):
        auth = self.headers.get("Authorization", "")
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
        return token or "public"

    def send(self, status, body, location=None, replayed=False, retry_after=False):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if self.gzip and "gzip" in self.headers.get("Accept-Encoding", ""):
            body = gzip.compress(body)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        if location:
            self.send_header("Location", location)
        if replayed:
            self.send_header("Idempotent-Replayed", "true")
        if retry_after:
            self.send_header("Retry-After", "1")
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status, value):
        self.send(status, json.dumps(value).encode())

    def do_POST(self):
        with self.inflight:
            self.post()

    def do_GET(self):
        with self.inflight:
            self.get()

    def post(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            return self.send(413, problem(413, "the body is too large"))
        body = self.rfile.read(length)
        if urllib.parse.urlsplit(self.path).path != "/resources":
            return self.send(404, problem(404, "no such endpoint"))
        keys = self.headers.get_all("Idempotency-Key") or []
        try:
            if not keys:
                raise Refused(400, "missing Idempotency-Key header")
            if len(keys) > 1:
                raise Refused(400, "more than one Idempotency-Key header")
            if not valid_key(keys[0]):
                raise Refused(400, "the key must be 1 to 255 visible ASCII characters")
            fail = self.headers.get("X-Idemspec-Fail", "")
            fail_status = int(fail) if fail.isdigit() and 500 <= int(fail) <= 599 else 0
            status, answer, location, replayed = self.api.create(self.tenant(), keys[0], body, fail_status)
        except Refused as r:
            return self.send(r.status, problem(r.status, r.detail), retry_after=r.retry_after)
        self.send(status, answer, location, replayed)

    def get(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/healthz":
            return self.send_json(200, {"status": "ok"})
        if url.path == "/resources":
            marker = urllib.parse.parse_qs(url.query).get("marker", [""])[0]
            return self.send_json(200, {"items": self.api.resources(self.tenant(), marker)})
        if url.path.startswith("/idempotency-keys/"):
            key = urllib.parse.unquote(url.path[len("/idempotency-keys/"):])
            record = self.api.record(self.tenant(), key)
            if record is None:
                return self.send_json(404, {"error": "unknown key"})
            return self.send_json(200, {"key": key, "state": record["state"],
                                        "resource_id": record["resource_id"] or "",
                                        "status": record["status"] or 0})
        self.send_json(404, {"error": "no such endpoint"})


class InFlight:
    """Counts the requests being handled, so a stop can wait for them."""

    def __init__(self):
        self.cond = threading.Condition()
        self.count = 0

    def __enter__(self):
        with self.cond:
            self.count += 1

    def __exit__(self, *exc):
        with self.cond:
            self.count -= 1
            self.cond.notify_all()

    def drain(self, timeout):
        with self.cond:
            return self.cond.wait_for(lambda: self.count == 0, timeout)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # A burst opens many connections at once; the default backlog of 5
    # would leave the rest to the kernel's SYN retry, a second later.
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # A client that hung up (idemspec's lost answers, a cut burst) is
        # no fault of the server's; anything else is logged.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--db", required=True)
    p.add_argument("--delay-ms", type=int, default=200, help="the work's duration, between the claim and the commit")
    p.add_argument("--in-progress-timeout", type=float, default=2.0, help="seconds after which a claim is abandoned")
    p.add_argument("--gzip", action="store_true", help="gzip the answers of requests that accept it")
    args = p.parse_args()
    Handler.gzip = args.gzip

    Handler.api = Api(Store(args.db), args.delay_ms / 1000, args.in_progress_timeout)
    Handler.inflight = InFlight()
    server = Server(("127.0.0.1", args.port), Handler)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    while not stop.wait(1):
        pass
    server.shutdown()
    server.socket.close()
    # Finish the requests in flight (bounded); idle keep-alive connections
    # are not waited for.
    Handler.inflight.drain(10)
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
