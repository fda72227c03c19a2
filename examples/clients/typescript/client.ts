// A minimal idempotent agent for `idemspec client --mcp`
// (docs/CLIENT-CONTRACT.md#over-mcp), on the MCP project's TypeScript SDK.
//
// It creates one record through the server's create tool and prints its end
// state as JSON on its last stdout line. What makes it safe to retry:
//
// - the key is chosen once and written (fsync + rename) to the state
//   directory before the first call, so a restarted process reuses it;
// - every call of the create tool carries the same key and the same
//   arguments;
// - a call that got no answer (a timeout, a closed pipe, a restarted server)
//   is an unknown outcome, never a failure: the agent asks the find tool
//   before it calls the create tool again, on a new session;
// - calls are bounded by the budget and the run by the deadline;
// - a tool error is final unless its structuredContent says retryable.
//
//     npm ci --prefix examples/clients/typescript
//     npm run --prefix examples/clients/typescript build
//     idemspec client --mcp --cmd "node examples/clients/typescript/dist/client.js"
import { randomUUID } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

const env = process.env;
const COMMAND = env.IDEMSPEC_MCP_COMMAND; // stdio: starts the server
const URL_ = env.IDEMSPEC_MCP_URL; // or streamable HTTP
const CREATE = env.IDEMSPEC_MCP_CREATE_TOOL!;
const FIND = env.IDEMSPEC_MCP_FIND_TOOL!;
const KEY_ARG = env.IDEMSPEC_MCP_KEY_ARG!;
const ARGUMENTS: Record<string, unknown> = JSON.parse(env.IDEMSPEC_MCP_ARGUMENTS!);
const STATE = join(env.IDEMSPEC_STATE_DIR!, "operation.json");
const BUDGET = Number(env.IDEMSPEC_ATTEMPT_BUDGET);
const DEADLINE = Date.now() + Number(env.IDEMSPEC_DEADLINE_MS);
const TIMEOUT = Number(env.IDEMSPEC_ATTEMPT_TIMEOUT_MS);

type Operation = { key: string; state: string };
type Answer = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { type: string; text?: string }[] };

function log(...args: unknown[]): void {
  console.error("client.ts:", ...args);
}

// save writes the operation durably before anything depends on it.
function save(op: Operation): void {
  const tmp = STATE + ".tmp";
  const fd = openSync(tmp, "w");
  writeSync(fd, JSON.stringify(op));
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, STATE);
}

function load(): Operation {
  try {
    return JSON.parse(readFileSync(STATE, "utf8"));
  } catch {
    const op = { key: randomUUID(), state: "PENDING" };
    save(op);
    return op;
  }
}

let session: Client | undefined;

// connect opens a session, or returns the open one.
async function connect(): Promise<Client> {
  if (session) return session;
  const transport: Transport = URL_
    ? new StreamableHTTPClientTransport(new URL(URL_))
    : new StdioClientTransport({ command: "/bin/sh", args: ["-c", COMMAND!], stderr: "inherit" });
  const client = new Client({ name: "idemspec-example-ts", version: "1.0.0" });
  await client.connect(transport, { timeout: remaining() });
  session = client;
  return client;
}

// drop ends a session that failed: the next call starts a new one.
function drop(): void {
  const s = session;
  session = undefined;
  s?.close().catch(() => {});
}

function remaining(): number {
  return Math.max(Math.min(TIMEOUT, DEADLINE - Date.now()), 1);
}

// call is one tool call: its answer, or undefined if none came (the
// session is then dropped). sent says whether the call may have left.
async function call(name: string, args: Record<string, unknown>): Promise<{ answer?: Answer; sent: boolean }> {
  let client: Client;
  try {
    client = await connect();
  } catch (e) {
    log("could not start a session:", String(e));
    drop();
    return { sent: false };
  }
  try {
    const answer = (await client.callTool({ name, arguments: args }, undefined, { timeout: remaining() })) as Answer;
    return { answer, sent: true };
  } catch (e) {
    log(name, "got no answer:", String(e));
    drop();
    return { sent: true };
  }
}

function text(a: Answer): string {
  return (a.content ?? []).map((c) => c.text ?? "").join("");
}

async function finish(op: Operation, state: string, resourceId?: unknown): Promise<never> {
  op.state = state;
  save(op);
  const s = session;
  session = undefined;
  await s?.close().catch(() => {});
  console.log(JSON.stringify({ state, resource_id: resourceId }));
  process.exit(state === "SUCCEEDED" ? 0 : 1);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(Math.min(ms, DEADLINE - Date.now()), 0)));
}

async function main(): Promise<void> {
  const op = load();
  let unsure = op.state === "SUBMITTING" || op.state === "UNKNOWN_RESULT"; // a call may have applied
  let maybeApplied = unsure;
  let sent = 0;
  let lookups = 0;
  let pause = TIMEOUT / 10;
  while (Date.now() < DEADLINE) {
    if (unsure) {
      if (lookups >= BUDGET) break;
      lookups++;
      const { answer } = await call(FIND, { [KEY_ARG]: op.key });
      const found = answer && !answer.isError ? JSON.parse(text(answer) || "{}") : undefined;
      log("lookup", lookups, "->", found ? JSON.stringify(found) : "no answer");
      if (found?.found) await finish(op, "SUCCEEDED", found.id);
      if (found && !found.found) {
        unsure = false; // not there: call again, with the same key
      } else {
        await sleep(Math.random() * pause);
        continue;
      }
    }
    if (sent >= BUDGET) break;
    op.state = "SUBMITTING";
    save(op);
    sent++;
    const { answer, sent: left } = await call(CREATE, { ...ARGUMENTS, [KEY_ARG]: op.key });
    log("create", sent, "key", op.key, "->", answer ? (answer.isError ? "tool error " + text(answer) : "ok") : "no answer");
    if (answer && !answer.isError) await finish(op, "SUCCEEDED", JSON.parse(text(answer) || "{}").id);
    if (!answer && left) {
      maybeApplied = unsure = true;
      op.state = "UNKNOWN_RESULT";
      save(op);
    } else if (!answer) {
      sent--; // the session never started: nothing was called
    } else if (answer.structuredContent?.retryable !== true) {
      await finish(op, maybeApplied ? "UNKNOWN_RESULT" : "FAILED"); // final: never call again
    }
    const delay = Math.random() * pause;
    if (Date.now() + delay >= DEADLINE) break;
    await sleep(delay);
    pause = Math.min(pause * 2, TIMEOUT);
  }
  await finish(op, maybeApplied ? "UNKNOWN_RESULT" : "FAILED");
}

main().catch((e) => {
  log(String(e));
  console.log(JSON.stringify({ state: "UNKNOWN_RESULT" }));
  process.exit(1);
});
