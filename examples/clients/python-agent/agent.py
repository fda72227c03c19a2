#!/usr/bin/env python3
"""An agent that creates one invoice record on its API, written for that API
alone: it knows nothing of idemspec. Standard library only.

It reads its base URL from API_URL (and a token from API_TOKEN, if set), as
an SDK does, and no IDEMSPEC_ variable. It chooses its own payload and key
and keeps its state in its working directory (agent-state.json), so a
restart there resumes the create, and a finished one sends nothing.

What makes it safe to retry:

- the key is a uuid4 chosen once and written (fsync + rename) before the
  first attempt; every attempt, and a restarted run, sends it again with
  the same payload bytes;
- a request that got no answer is an unknown outcome, never a failure: the
  agent looks the key up (GET /idempotency-keys/{key}) before it resends;
- attempts are bounded (--attempts), each request (--attempt-timeout) and
  the run (--deadline); the pause between attempts grows, with jitter;
- 5xx, 408, 409, 425 and 429 are retried; any other 4xx is final.

Its last stdout line is its result, {"state": ..., "resource_id": ...}; it
exits 0 SUCCEEDED, 1 FAILED, 3 UNKNOWN_RESULT.

--new-key-per-attempt makes it the agent that calls uuid4() beside each
request: a fresh key on every attempt and none kept for a restart (the bug
idemspec catches as C1 and C6).

    API_URL=http://127.0.0.1:8080 python3 agent.py
"""
import argparse
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request
import uuid

BASE = os.environ.get("API_URL", "").rstrip("/")
TOKEN = os.environ.get("API_TOKEN")
PAYLOAD = json.dumps({"name": "invoice 1042", "amount": 4200}, separators=(",", ":")).encode()
STATE = "agent-state.json"  # in the working directory
RETRYABLE_4XX = {408, 409, 425, 429}
EXIT = {"SUCCEEDED": 0, "FAILED": 1, "UNKNOWN_RESULT": 3}


def log(*args):
    print("agent.py:", *args, file=sys.stderr, flush=True)


class Agent:
    def __init__(self, opts):
        self.opts = opts
        self.deadline = time.monotonic() + opts.deadline
        self.op = self.load()

    def save(self):
        """Write the operation durably before anything depends on it."""
        if self.opts.new_key_per_attempt:
            return  # the bug: nothing outlives the process
        tmp = STATE + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.op, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, STATE)

    def load(self):
        if not self.opts.new_key_per_attempt:
            try:
                with open(STATE) as f:
                    return json.load(f)
            except FileNotFoundError:
                pass
        self.op = {"key": str(uuid.uuid4()), "state": "PENDING"}
        self.save()
        return self.op

    def request(self, method, path, body=None):
        """One attempt: (status, parsed body), or (None, None) if no answer came."""
        timeout = min(self.opts.attempt_timeout, max(self.deadline - time.monotonic(), 0.001))
        req = urllib.request.Request(BASE + path, data=body, method=method)
        if body is not None:
            req.add_header("Content-Type", "application/json")
            req.add_header("Idempotency-Key", self.op["key"])
        if TOKEN:
            req.add_header("Authorization", "Bearer " + TOKEN)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, {}
        except (OSError, ValueError) as e:  # timeout, reset, refused, bad JSON
            log(method, path, "got no answer:", e)
            return None, None

    def finish(self, state, resource_id=None, final=False):
        self.op.update(state=state, resource_id=resource_id, final=final)
        self.save()
        print(json.dumps({"state": state, "resource_id": resource_id}))
        sys.exit(EXIT[state])

    def pause(self, seconds):
        time.sleep(min(random.uniform(0, seconds), max(self.deadline - time.monotonic(), 0)))

    def run(self):
        op = self.op
        if op["state"] == "SUCCEEDED" or op.get("final"):
            log("already", op["state"])
            self.finish(op["state"], op.get("resource_id"), op.get("final", False))
        unsure = op["state"] in ("SUBMITTING", "UNKNOWN_RESULT")  # a send may have applied
        maybe_applied = unsure
        sent, lookups, backoff = 0, 0, self.opts.attempt_timeout / 10
        while time.monotonic() < self.deadline:
            if unsure:
                if lookups >= self.opts.attempts:
                    break
                lookups += 1
                status, body = self.request("GET", "/idempotency-keys/" + op["key"])
                log("lookup", lookups, "key", op["key"], "->", status)
                if status == 200 and body.get("resource_id"):
                    self.finish("SUCCEEDED", body["resource_id"])
                if status == 404:
                    unsure = False  # not there: resend
                else:
                    self.pause(backoff)  # in progress, or no answer: ask again
                    continue
            if sent >= self.opts.attempts:
                break
            if self.opts.new_key_per_attempt:
                op["key"] = str(uuid.uuid4())
            op["state"] = "SUBMITTING"
            self.save()
            sent += 1
            status, body = self.request("POST", "/resources", PAYLOAD)
            log("create", sent, "key", op["key"], "->", status)
            if status is not None and 200 <= status < 300:
                self.finish("SUCCEEDED", body.get("id"))
            if status is None:
                maybe_applied = unsure = True
                op["state"] = "UNKNOWN_RESULT"
                self.save()
            elif 400 <= status < 500 and status not in RETRYABLE_4XX:
                # refused: final, unless an earlier attempt may have applied
                self.finish("UNKNOWN_RESULT" if maybe_applied else "FAILED", final=not maybe_applied)
            if time.monotonic() + backoff >= self.deadline:
                break
            self.pause(backoff)
            backoff = min(backoff * 2, self.opts.attempt_timeout)
        self.finish("UNKNOWN_RESULT" if maybe_applied else "FAILED")


def main():
    p = argparse.ArgumentParser(description="Create one invoice record on the API at $API_URL.")
    p.add_argument("--attempts", type=int, default=3, help="most create requests per run (default 3)")
    p.add_argument("--deadline", type=float, default=10.0, help="seconds one run may take (default 10)")
    p.add_argument("--attempt-timeout", type=float, default=2.0, help="seconds one request may take (default 2)")
    p.add_argument("--new-key-per-attempt", action="store_true",
                   help="the bug: a fresh key on every attempt, none kept for a restart")
    opts = p.parse_args()
    if not BASE.startswith(("http://", "https://")):
        log("API_URL must hold the API's base URL, http:// or https://")
        sys.exit(2)
    if opts.attempts < 1 or opts.deadline <= 0 or opts.attempt_timeout <= 0:
        p.error("--attempts, --deadline and --attempt-timeout must be positive")
    Agent(opts).run()


if __name__ == "__main__":
    main()
