#!/usr/bin/env python3
"""A minimal idempotent client for `idemspec client` (docs/CLIENT-CONTRACT.md).

Standard library only. It creates one resource and prints its end state as
JSON on its last stdout line. What makes it safe to retry:

- the key is chosen once and written (fsync + rename) to the state directory
  before the first send, so a restarted process reuses it;
- every attempt sends the same key and the same payload bytes;
- a request that got no answer is an unknown outcome, never a failure: the
  client looks the key up before it resubmits;
- attempts are bounded by the budget and the run by the deadline;
- 4xx answers other than 408, 409, 425 and 429 are final.

With API_TOKEN set, every request carries `Authorization: Bearer API_TOKEN`,
as an SDK's do; the reference server files it under that token's tenant.

    idemspec client --cmd "python3 examples/clients/python/client.py"
    idemspec client --cmd "API_TOKEN=sk-test-123 python3 examples/clients/python/client.py"
"""
import json
import os
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

ENV = os.environ
BASE = ENV["IDEMSPEC_SERVER_URL"]
CREATE = BASE + ENV["IDEMSPEC_CREATE_PATH"]
LOOKUP = BASE + ENV["IDEMSPEC_LOOKUP_PATH"]
# Where the key goes: a header (IDEMSPEC_KEY_NAME, or IDEMSPEC_KEY_HEADER from
# an older idemspec), the payload's "{{.Key}}" string, or a query parameter.
KEY_IN = ENV.get("IDEMSPEC_KEY_IN") or "header"
KEY_NAME = ENV.get("IDEMSPEC_KEY_NAME") or ENV["IDEMSPEC_KEY_HEADER"]
PAYLOAD = ENV["IDEMSPEC_PAYLOAD"].encode()
STATE = os.path.join(ENV["IDEMSPEC_STATE_DIR"], "operation.json")
BUDGET = int(ENV["IDEMSPEC_ATTEMPT_BUDGET"])
DEADLINE = time.monotonic() + int(ENV["IDEMSPEC_DEADLINE_MS"]) / 1000
TIMEOUT = int(ENV["IDEMSPEC_ATTEMPT_TIMEOUT_MS"]) / 1000
RETRYABLE_4XX = {408, 409, 425, 429}
TOKEN = ENV.get("API_TOKEN")


def log(*args):
    print("client.py:", *args, file=sys.stderr, flush=True)


def save(op):
    """Write the operation durably before anything depends on it."""
    tmp = STATE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(op, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, STATE)


def load():
    try:
        with open(STATE) as f:
            return json.load(f)
    except FileNotFoundError:
        op = {"key": str(uuid.uuid4()), "state": "PENDING"}
        save(op)
        return op


def keyed(key):
    """The create URL, body and headers with the key where the server takes it."""
    if KEY_IN == "body":
        return CREATE, PAYLOAD.replace(b'"{{.Key}}"', json.dumps(key).encode(), 1), {}
    if KEY_IN == "query":
        sep = "&" if "?" in CREATE else "?"
        return CREATE + sep + urllib.parse.urlencode({KEY_NAME: key}), PAYLOAD, {}
    return CREATE, PAYLOAD, {KEY_NAME: key}


def request(method, url, body=None, headers=None):
    """One attempt: (status, parsed body), or (None, None) if no answer came."""
    timeout = min(TIMEOUT, max(DEADLINE - time.monotonic(), 0.001))
    req = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if TOKEN:
        req.add_header("Authorization", "Bearer " + TOKEN)
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, {}
    except (OSError, ValueError) as e:  # timeout, reset, refused, bad JSON
        log(method, "got no answer:", e)
        return None, None


def finish(op, state, resource_id=None):
    op["state"] = state
    save(op)
    print(json.dumps({"state": state, "resource_id": resource_id}))
    sys.exit(0 if state == "SUCCEEDED" else 1)


def main():
    op = load()
    unsure = op["state"] in ("SUBMITTING", "UNKNOWN_RESULT")  # a send may have applied
    maybe_applied = unsure
    sent, lookups, pause = 0, 0, TIMEOUT / 10
    while time.monotonic() < DEADLINE:
        if unsure:
            if lookups >= BUDGET:
                break
            lookups += 1
            status, body = request("GET", LOOKUP.replace("{key}", op["key"]))
            log("lookup", lookups, "->", status)
            if status == 200 and body.get("resource_id"):
                finish(op, "SUCCEEDED", body["resource_id"])
            if status == 404:
                unsure = False  # not there: resubmit, with the same key
            else:
                time.sleep(min(random.uniform(0, pause), max(DEADLINE - time.monotonic(), 0)))
                continue
        if sent >= BUDGET:
            break
        op["state"] = "SUBMITTING"
        save(op)
        sent += 1
        url, payload, headers = keyed(op["key"])
        status, body = request("POST", url, payload, headers)
        log("create", sent, "key", op["key"], "->", status)
        if status is not None and 200 <= status < 300:
            finish(op, "SUCCEEDED", body.get("id"))
        if status is None:
            maybe_applied = unsure = True
            op["state"] = "UNKNOWN_RESULT"
            save(op)
        elif 400 <= status < 500 and status not in RETRYABLE_4XX:
            finish(op, "UNKNOWN_RESULT" if maybe_applied else "FAILED")
        delay = random.uniform(0, pause)
        if time.monotonic() + delay >= DEADLINE:
            break
        time.sleep(delay)
        pause = min(pause * 2, TIMEOUT)
    finish(op, "UNKNOWN_RESULT" if maybe_applied else "FAILED")


if __name__ == "__main__":
    main()
