/**
 * `--legacy session`: a child per session, against server-everything (a server that asks the
 * client for its roots) and server-memory (state kept per child), and the echoing fixture.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { JsonRpcNotification, JsonRpcRequest } from "../../../src/protocol/jsonrpc.js";
import { SessionRelay, type SessionExit, type SessionRelayOptions } from "../../../src/gateway/children/index.js";
import { FAST_LADDER, call, echoServer, eventually, everythingServer, isRunning, memoryServer, never, recorder, resultOf, useCleanup } from "./helpers.js";

const cleanup = useCleanup();
const scratch = mkdtempSync(join(tmpdir(), "mcpwire-session-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Session {
  relay: SessionRelay;
  fromChild: (JsonRpcRequest | JsonRpcNotification)[];
  exited: Promise<SessionExit>;
}

function session(options: Omit<SessionRelayOptions, "owner">): Session {
  const fromChild: (JsonRpcRequest | JsonRpcNotification)[] = [];
  let onExit!: (exit: SessionExit) => void;
  const exited = new Promise<SessionExit>((resolve) => (onExit = resolve));
  const relay = new SessionRelay({ stopTimings: FAST_LADDER, ...options, owner: { message: (m) => fromChild.push(m), exited: (exit) => onExit(exit) } });
  cleanup.own(relay);
  cleanup.pids(() => (relay.pid === undefined ? [] : [relay.pid]));
  return { relay, fromChild, exited };
}

const INITIALIZE = (capabilities: Record<string, unknown> = {}) =>
  call(0, "initialize", { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "session-test", version: "1.0.0" } });

async function initialize(relay: SessionRelay, capabilities?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const init = recorder();
  relay.request(INITIALIZE(capabilities), init.sink, never);
  const result = resultOf(await init.settled);
  relay.notification({ jsonrpc: "2.0", method: "notifications/initialized" });
  return result;
}

describe("SessionRelay", () => {
  it("passes the caller's initialize unchanged but for its id, spawning the child at it", async () => {
    const { relay } = session({ command: echoServer() });
    expect(relay.pid).toBeUndefined();
    const request = INITIALIZE({ roots: { listChanged: true }, experimental: { z: 1, a: [true] } });
    const init = recorder();
    relay.request(request, init.sink, never);
    const line = resultOf(await init.settled).instructions as string;
    expect(relay.pid).toBeGreaterThan(0);
    const received = JSON.parse(line);
    expect(line).toBe(JSON.stringify({ ...request, id: received.id }));
    expect((await init.settled).answer?.id).toBe(0);
  });

  it("refuses a first request that is not initialize, and spawns nothing", async () => {
    const { relay } = session({ command: echoServer() });
    const early = recorder();
    relay.request(call(1, "tools/list"), early.sink, never);
    expect((await early.settled).error?.reason).toBe("PROTOCOL");
    expect(relay.pid).toBeUndefined();
  });

  it("hands server-everything's roots/list to the owner under the session's id and maps the caller's answer back", async () => {
    const { relay, fromChild } = session({ command: everythingServer() });
    await initialize(relay, { roots: { listChanged: true } });
    // server-everything asks for the roots once the client says it is initialized.
    await eventually(() => fromChild.some((m) => "id" in m && m.method === "roots/list"));
    const question = fromChild.find((m): m is JsonRpcRequest => "id" in m && m.method === "roots/list")!;
    expect(String(question.id)).toMatch(/^gw-/);
    relay.response({ jsonrpc: "2.0", id: question.id, result: { roots: [{ uri: "file:///gateway/project", name: "project" }] } });
    const listed = recorder();
    relay.request(call(2, "tools/call", { name: "get-roots-list", arguments: {} }), listed.sink, never);
    expect(JSON.stringify(resultOf(await listed.settled))).toContain("file:///gateway/project");
  });

  it("a request the child asks while one call is in flight goes to that call's sink, and the caller's answer maps back", async () => {
    const { relay, fromChild } = session({ command: echoServer() });
    await initialize(relay, { sampling: {} });
    const calling = recorder();
    relay.request(call(7, "ask", { method: "sampling/createMessage" }), calling.sink, never);
    await eventually(() => calling.messages.length === 1);
    const question = calling.messages[0] as JsonRpcRequest;
    expect(question).toMatchObject({ method: "sampling/createMessage", id: expect.stringMatching(/^gw-/) });
    relay.response({ jsonrpc: "2.0", id: question.id, result: { role: "assistant", content: { type: "text", text: "hi" } } });
    const { answer } = resultOf(await calling.settled) as { answer: { id: string; result: unknown } };
    // The child got the answer in its own id.
    expect(answer.id).toMatch(/^ask-/);
    expect(answer.result).toEqual({ role: "assistant", content: { type: "text", text: "hi" } });
    expect(fromChild.filter((m) => "id" in m)).toEqual([]);
    // A second answer to the same id finds nothing and reaches nobody.
    relay.response({ jsonrpc: "2.0", id: question.id, result: {} });
  });

  it("keeps each session's state in its own child, with the principal's variables in its environment", async () => {
    const alice = session({ command: memoryServer(join(scratch, "unused.jsonl")), principal: { principal: "alice", env: { MEMORY_FILE_PATH: join(scratch, "alice.jsonl") } } });
    const bob = session({ command: memoryServer(join(scratch, "unused.jsonl")), principal: { principal: "bob", env: { MEMORY_FILE_PATH: join(scratch, "bob.jsonl") } } });
    await Promise.all([initialize(alice.relay), initialize(bob.relay)]);
    const create = recorder();
    alice.relay.request(
      call(1, "tools/call", { name: "create_entities", arguments: { entities: [{ name: "alice-secret", entityType: "note", observations: ["x"] }] } }),
      create.sink,
      never,
    );
    resultOf(await create.settled);
    const [aliceGraph, bobGraph] = [recorder(), recorder()];
    alice.relay.request(call(2, "tools/call", { name: "read_graph", arguments: {} }), aliceGraph.sink, never);
    bob.relay.request(call(2, "tools/call", { name: "read_graph", arguments: {} }), bobGraph.sink, never);
    expect(JSON.stringify(resultOf(await aliceGraph.settled))).toContain("alice-secret");
    expect(JSON.stringify(resultOf(await bobGraph.settled))).not.toContain("alice-secret");
    expect(alice.relay.pid).not.toBe(bob.relay.pid);
  });

  it("a child that dies fails the session's pending requests and tells the owner; close() of a live one stops it", async () => {
    const dying = session({ command: echoServer() });
    await initialize(dying.relay);
    const pending = recorder();
    dying.relay.request(call(1, "sleep", { ms: -1 }), pending.sink, never);
    process.kill(dying.relay.pid!, "SIGKILL");
    expect((await pending.settled).error?.reason).toBe("DISCONNECTED");
    expect(await dying.exited).toMatchObject({ cause: "killed", signal: "SIGKILL" });
    expect(dying.relay.alive).toBe(false);

    const living = session({ command: echoServer() });
    await initialize(living.relay);
    const pid = living.relay.pid!;
    await living.relay.close();
    expect(isRunning(pid)).toBe(false);
  });

  it("a child that cannot be started fails the initialize with UNAVAILABLE and ends the session", async () => {
    const { relay, exited } = session({ command: { command: "/nonexistent/mcp-server", args: [], env: {}, envAllow: ["PATH"] } });
    const init = recorder();
    relay.request(INITIALIZE(), init.sink, never);
    expect((await init.settled).error?.reason).toBe("UNAVAILABLE");
    expect(await exited).toMatchObject({ cause: "crash" });
    expect(relay.alive).toBe(false);
  });

  it("maps a caller's notifications/cancelled to the child's id of that request", async () => {
    const { relay } = session({ command: echoServer() });
    await initialize(relay);
    const slow = recorder();
    relay.request(call("slow", "sleep", { ms: -1 }), slow.sink, never);
    relay.notification({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow", reason: "stop" } });
    expect((await slow.settled).error?.reason).toBe("DISCONNECTED");
    const cancels = recorder();
    relay.request(call("c", "cancels"), cancels.sink, never);
    const listed = resultOf(await cancels.settled).cancels as { requestId: unknown; reason: string }[];
    expect(listed).toEqual([{ requestId: expect.any(Number), reason: "stop" }]);
  });
});
