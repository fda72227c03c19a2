#!/usr/bin/env python3
"""A program written with no thought of idemspec, for the tests of
`idemspec client --target`: it reads only API_URL, keeps its state in its
working directory, creates one resource on the reference server's API
(POST /resources with an Idempotency-Key header) and says how it ended
only by its exit code: 0 created, 1 refused, 3 unknown.

    good        the key is saved before the first send and reused; a lost
                answer is looked up (GET /idempotency-keys/KEY) first
    fresh-key   a new key on every attempt, nothing saved (C1, C6 fail)
    no-create   reads the health endpoint only (nothing to judge)
    job         two calls, as a job: create an order (POST /resources),
                then append an event to it (POST /resources/ID/events),
                each call's key and the order's id saved before the next
                step, so a restarted job resumes where it was killed
    job-fresh   the job with a new key on every attempt, nothing saved
    around      a new key on every attempt, the retries sent straight to
                the API at DIRECT_URL, around idemspec's interposer
    dots        a new key on every attempt, the retries sent on
                /x/../resources, a path a server routes as /resources

With ACCEPT_GZIP=1 it asks for gzip answers (Accept-Encoding) and decodes
them, as an SDK with compression on does.
"""
import gzip
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

BASE = os.environ["API_URL"]
MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
STATE = "operation.json"  # in the working directory
GZIP = os.environ.get("ACCEPT_GZIP") == "1"
PAYLOAD = json.dumps({"marker": "unmodified-agent", "amount": 100}).encode()


def call(method, path, key=None, body=None, base=None):
    req = urllib.request.Request((base or BASE) + path, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if key:
        req.add_header("Idempotency-Key", key)
    if GZIP:
        req.add_header("Accept-Encoding", "gzip")
    try:
        with urllib.request.urlopen(req, timeout=2) as res:
            return res.status, decoded(res)
    except urllib.error.HTTPError as e:
        return e.code, decoded(e)
    except Exception as e:  # no answer: the outcome is unknown
        print("no answer:", e, file=sys.stderr)
        return None, b""


def decoded(res):
    body = res.read()
    if res.headers.get("Content-Encoding") == "gzip":
        body = gzip.decompress(body)
    return body


def save(op):
    with open(STATE + ".tmp", "w") as f:
        json.dump(op, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(STATE + ".tmp", STATE)


def step(op, name, path, body):
    """One call of the job, resent with its saved key until answered."""
    keep = MODE == "job"
    if keep and name + "_key" not in op:
        op[name + "_key"] = str(uuid.uuid4())
        save(op)
    for attempt in range(3):
        key = op[name + "_key"] if keep else str(uuid.uuid4())
        status, answer = call("POST", path, key, body)
        if status is not None and 200 <= status < 300:
            op[name + "_id"] = json.loads(answer)["id"]
            if keep:
                save(op)
            return True
        if status in (400, 422):
            return False
        time.sleep(0.05 * (attempt + 1))
    return False


def job():
    op = {}
    if MODE == "job" and os.path.exists(STATE):
        with open(STATE) as f:
            op = json.load(f)
    body = json.dumps({"marker": "unmodified-job", "amount": 1}).encode()
    if "order_id" not in op and not step(op, "order", "/resources", body):
        return 3
    if "event_id" not in op and not step(op, "event", "/resources/" + op["order_id"] + "/events", body):
        return 3
    return 0


def main():
    if MODE.startswith("job"):
        return job()
    if MODE == "no-create":
        call("GET", "/healthz")
        return 0
    op = {}
    if os.path.exists(STATE):
        with open(STATE) as f:
            op = json.load(f)
    if op.get("done"):
        return 0
    if MODE == "good" and "key" not in op:
        op["key"] = str(uuid.uuid4())
        with open(STATE + ".tmp", "w") as f:
            json.dump(op, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(STATE + ".tmp", STATE)
    unknown = False
    for attempt in range(3):
        key = op["key"] if MODE == "good" else str(uuid.uuid4())
        if unknown and MODE == "good":
            status, _ = call("GET", "/idempotency-keys/" + key)
            if status == 200:
                break
        if attempt > 0 and MODE == "around":
            status, _ = call("POST", "/resources", key, PAYLOAD, base=os.environ["DIRECT_URL"])
        elif attempt > 0 and MODE == "dots":
            status, _ = call("POST", "/x/../resources", key, PAYLOAD)
        else:
            status, _ = call("POST", "/resources", key, PAYLOAD)
        if status is not None and 200 <= status < 300:
            break
        if status in (400, 422):
            return 1
        unknown = status is None
        time.sleep(0.05 * (attempt + 1))
    else:
        return 3
    if MODE == "good":
        op["done"] = True
        with open(STATE, "w") as f:
            json.dump(op, f)
    return 0


sys.exit(main())
