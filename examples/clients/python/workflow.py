#!/usr/bin/env python3
"""A job agent for `idemspec client --workflow` (docs/CLIENT-CONTRACT.md).

Standard library only. It runs the job IDEMSPEC_STEPS describes (upload a
cover, create the record, link it to a campaign, read the link back) and
prints its end state and the id of every step it finished as JSON on its
last stdout line. It is a persisted state machine, one entry per step:

- the job lives in the state directory (fsync + rename), and a step's key
  and its state (PENDING, SUBMITTING, SUCCEEDED, UNKNOWN_RESULT,
  FAILED_RETRYABLE, FAILED_FINAL) are written there before every send;
- a restarted agent skips every step the file says SUCCEEDED, with its id;
- a request that got no answer is an unknown outcome: a keyed step is
  looked up by its key before it is sent again, with the same key and the
  same bytes; an unkeyed step (an upload by path, a read) is safe to resend;
- the job ends UNKNOWN_RESULT, never FAILED, once a step may have applied.

    idemspec client --workflow --cmd "python3 examples/clients/python/workflow.py"
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
STEPS = json.loads(ENV["IDEMSPEC_STEPS"])
KEY_IN = ENV.get("IDEMSPEC_KEY_IN") or "header"
KEY_NAME = ENV["IDEMSPEC_KEY_NAME"]
STATE = os.path.join(ENV["IDEMSPEC_STATE_DIR"], "job.json")
BUDGET = int(ENV["IDEMSPEC_ATTEMPT_BUDGET"])
DEADLINE = time.monotonic() + int(ENV["IDEMSPEC_DEADLINE_MS"]) / 1000
TIMEOUT = int(ENV["IDEMSPEC_ATTEMPT_TIMEOUT_MS"]) / 1000
TOKEN = ENV.get("API_TOKEN")
RETRYABLE_4XX = {408, 409, 425, 429}


def log(*args):
    print("workflow.py:", *args, file=sys.stderr, flush=True)


def save(job):
    """Write the job durably: nothing is sent before this returns."""
    tmp = STATE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(job, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, STATE)


def load():
    try:
        with open(STATE) as f:
            return json.load(f)
    except FileNotFoundError:
        return {"steps": {}}


def fill(s, ids):
    for name, value in ids.items():
        s = s.replace("{" + name + "}", value)
    return s


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
    except (OSError, ValueError) as e:  # timeout, reset, closed, bad JSON
        log(method, url, "got no answer:", e)
        return None, None


def keyed(path, body, key):
    """The URL, body and headers with the key where the server takes it."""
    url = BASE + path
    if KEY_IN == "body":
        return url, body.replace(b'"{{.Key}}"', json.dumps(key).encode(), 1), {}
    if KEY_IN == "query":
        sep = "&" if "?" in url else "?"
        return url + sep + urllib.parse.urlencode({KEY_NAME: key}), body, {}
    return url, body, {KEY_NAME: key}


def field(obj, dotted):
    for part in dotted.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def run_step(job, step, ids):
    """Run one step to its end: its id, or (None, may_have_applied)."""
    st = job["steps"].setdefault(step["name"], {"state": "PENDING"})
    if step.get("keyed") and "key" not in st:
        st["key"] = str(uuid.uuid4())
        save(job)
    path = fill(step["path"], ids)
    body = fill(step.get("body", ""), ids).encode() or None
    unsure = st["state"] in ("SUBMITTING", "UNKNOWN_RESULT")  # a send may have applied
    maybe = unsure
    sent = lookups = 0
    pause = TIMEOUT / 10
    while time.monotonic() < DEADLINE:
        if unsure and step.get("keyed"):
            if lookups >= BUDGET:
                break
            lookups += 1
            status, answer = request("GET", BASE + step["lookup"].replace("{key}", st["key"]))
            log(step["name"], "lookup", lookups, "->", status)
            if status == 200 and answer.get("resource_id"):
                return finish_step(job, st, str(answer["resource_id"])), maybe
            if status == 404:
                unsure = False  # not there: resend, with the same key
            else:
                time.sleep(min(random.uniform(0, pause), max(DEADLINE - time.monotonic(), 0)))
                continue
        if sent >= BUDGET:
            break
        st["state"] = "SUBMITTING"
        save(job)  # before the send: a crash now leaves the key on record
        sent += 1
        if step.get("keyed"):
            url, payload, headers = keyed(path, body, st["key"])
        else:
            url, payload, headers = BASE + path, body, {}
        status, answer = request(step["method"], url, payload, headers)
        log(step["name"], "send", sent, "key", st.get("key"), "->", status)
        if status is not None and 200 <= status < 300:
            found = field(answer, step.get("id") or "id")
            return finish_step(job, st, str(found) if found is not None else path), True
        if status is None or status >= 500 or status in RETRYABLE_4XX:
            maybe = maybe or status is None or status >= 500 or status == 409
            unsure = status is None or status == 409
            st["state"] = "UNKNOWN_RESULT" if maybe else "FAILED_RETRYABLE"
            save(job)
        else:
            st["state"] = "UNKNOWN_RESULT" if maybe else "FAILED_FINAL"
            save(job)
            return None, maybe
        delay = random.uniform(0, pause)
        if time.monotonic() + delay >= DEADLINE:
            break
        time.sleep(delay)
        pause = min(pause * 2, TIMEOUT)
    return None, maybe


def finish_step(job, st, found):
    st["state"], st["id"] = "SUCCEEDED", found
    save(job)
    return found


def main():
    job = load()
    ids, applied = {}, False
    for step in STEPS:
        st = job["steps"].get(step["name"], {})
        if st.get("state") == "SUCCEEDED":
            ids[step["name"]] = st["id"]  # finished by an earlier run: never again
            applied = True
            continue
        found, maybe = run_step(job, step, ids)
        if found is None:
            state = "UNKNOWN_RESULT" if applied or maybe else "FAILED"
            print(json.dumps({"state": state, "ids": ids, "reason": step["name"] + " did not finish"}))
            sys.exit(1)
        ids[step["name"]], applied = found, True
    print(json.dumps({"state": "SUCCEEDED", "ids": ids}))


if __name__ == "__main__":
    main()
