// An idempotent agent on the MCP project's TypeScript SDK: it creates one
// record through the create_record tool of the MCP server it was written
// for (the record tools of `idemspec serve --mcp --records`,
// examples/mcp-records.yaml), and prints its end state as JSON on its
// last stdout line. What makes it safe to retry:
//
// - the key is chosen once and written (fsync + rename) to the state
//   directory before the first call, so a restarted process reuses it;
// - every call of the create tool carries the same key and the same
//   arguments;
// - a call that got no answer (a timeout, a closed pipe, a restarted server)
//   is an unknown outcome, never a failure: the agent asks the find tool
//   before it calls the create tool again, on a new session;
// - calls are bounded by the budget and the run by the deadline;
// - a tool error is final unless its structuredContent says retryable;
// - a run that finds its operation finished calls nothing.
//
// Its own configuration, as a shipped agent's:
//
//   RECORDS_MCP_COMMAND   the command (sh -c) that starts the server (stdio)
//   RECORDS_MCP_URL       or the server's streamable HTTP endpoint
//   RECORDS_STATE_DIR     where it keeps operation.json (default: the working directory)
//   RECORDS_ATTEMPTS      most create calls per run (default 3)
//   RECORDS_DEADLINE_MS   bound on one run (default 10000)
//   RECORDS_ATTEMPT_TIMEOUT_MS  bound on one call (default 2000)
//
// The tools, the key argument and the record's arguments are the
// server's: create_record, find_record, idempotency_key,
// {"marker":"invoice 1042","amount":4200}. idemspec's contract variables
// (IDEMSPEC_MCP_*, IDEMSPEC_STATE_DIR, IDEMSPEC_ATTEMPT_BUDGET, ...,
// docs/CLIENT-CONTRACT.md#over-mcp), when set, take precedence over each
// of these, so one program is judged both ways:
//
//     npm ci --prefix examples/clients/typescript
//     npm run --prefix examples/clients/typescript build
//     # as shipped, against the real server (its own variable):
//     idemspec client --mcp --target examples/mcp-records.yaml --mcp-command-env RECORDS_MCP_COMMAND \
//       --cmd "node examples/clients/typescript/dist/client.js"
//     # on idemspec's contract:
//     idemspec client --mcp --cmd "node examples/clients/typescript/dist/client.js"
//
// --new-key-per-attempt is the same agent with the bug an agent has when
// it calls randomUUID() beside each call: a fresh key on every attempt
// and none kept for a restart (idemspec fails it C1 and C6).
//
// --list-tools lists the server's tools on every new session, as an agent
// that shows them to its model does: the SDK then validates each call's
// structured content against the tool's declared outputSchema, and
// throws (-32602) on one that does not fit, so every answer idemspec
// injects must be one the server could give.
import { randomUUID } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

const env = process.env;

// setting is idemspec's contract variable when set, else the agent's own
// variable, else its default.
function setting(contract: string, own: string, fallback: string): string {
  return env[contract] || env[own] || fallback;
}

// A contract run names its server in IDEMSPEC_MCP_COMMAND or
// IDEMSPEC_MCP_URL: then neither of the agent's own is read, so a stray
// one cannot pick the transport.
const CONTRACT = Boolean(env.IDEMSPEC_MCP_COMMAND || env.IDEMSPEC_MCP_URL);
const COMMAND = CONTRACT ? env.IDEMSPEC_MCP_COMMAND : env.RECORDS_MCP_COMMAND; // stdio: starts the server
const URL_ = CONTRACT ? env.IDEMSPEC_MCP_URL : env.RECORDS_MCP_URL; // or streamable HTTP
// The server's tools, as the agent was written for them.
const CREATE = env.IDEMSPEC_MCP_CREATE_TOOL || "create_record";
const FIND = env.IDEMSPEC_MCP_FIND_TOOL || "find_record";
const KEY_ARG = env.IDEMSPEC_MCP_KEY_ARG || "idempotency_key";
const ARGUMENTS: Record<string, unknown> = JSON.parse(env.IDEMSPEC_MCP_ARGUMENTS || '{"marker":"invoice 1042","amount":4200}');
const STATE = join(setting("IDEMSPEC_STATE_DIR", "RECORDS_STATE_DIR", "."), "operation.json");
const BUDGET = Number(setting("IDEMSPEC_ATTEMPT_BUDGET", "RECORDS_ATTEMPTS", "3"));
const TIMEOUT = Number(setting("IDEMSPEC_ATTEMPT_TIMEOUT_MS", "RECORDS_ATTEMPT_TIMEOUT_MS", "2000"));
const DEADLINE = Date.now() + Number(setting("IDEMSPEC_DEADLINE_MS", "RECORDS_DEADLINE_MS", "10000"));
const NEW_KEY_PER_ATTEMPT = process.argv.slice(2).includes("--new-key-per-attempt");
const LIST_TOOLS = process.argv.slice(2).includes("--list-tools");

// Operation is what outlives the process: final marks a refusal, which
// a restart must not call again.
type Operation = { key: string; state: string; resource_id?: unknown; final?: boolean };
type Answer = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { type: string; text?: string }[] };

function log(...args: unknown[]): void {
  console.error("client.ts:", ...args);
}

// save writes the operation durably before anything depends on it.
function save(op: Operation): void {
  if (NEW_KEY_PER_ATTEMPT) return; // the bug: nothing outlives the process
  const tmp = STATE + ".tmp";
  const fd = openSync(tmp, "w");
  writeSync(fd, JSON.stringify(op));
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, STATE);
}

function load(): Operation {
  try {
    if (!NEW_KEY_PER_ATTEMPT) return JSON.parse(readFileSync(STATE, "utf8"));
  } catch {
    // none yet: a new operation
  }
  const op = { key: randomUUID(), state: "PENDING" };
  save(op);
  return op;
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
  session = client; // kept before listing, so that drop() closes it if that fails
  if (LIST_TOOLS) await client.listTools(undefined, { timeout: remaining() });
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

async function finish(op: Operation, state: string, resourceId?: unknown, final = false): Promise<never> {
  Object.assign(op, { state, resource_id: resourceId, final });
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
  if (!COMMAND && !URL_) {
    log("set RECORDS_MCP_COMMAND (the command that starts the MCP server) or RECORDS_MCP_URL (its endpoint)");
    process.exit(2);
  }
  const op = load();
  if (op.state === "SUCCEEDED" || op.final) {
    log("already", op.state);
    await finish(op, op.state, op.resource_id, op.final); // finished: call nothing
  }
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
    if (NEW_KEY_PER_ATTEMPT) op.key = randomUUID();
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
      // refused: final, unless an earlier call may have applied
      await finish(op, maybeApplied ? "UNKNOWN_RESULT" : "FAILED", undefined, !maybeApplied);
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
