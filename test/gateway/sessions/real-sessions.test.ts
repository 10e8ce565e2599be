/**
 * Legacy sessions with real children (issue 21, "Tests"): two callers of server-memory never see
 * each other's memory; server-everything's tools that ask the client (sampling, elicitation,
 * roots) reach the caller of their session and come back; a session whose child was SIGKILLed
 * answers 404, and the caller initializes a new one and goes on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as SdkV1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as SdkV1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { EVERYTHING_TARGET, MEMORY_ENTRY, alive, startGateway } from "../helpers/gateway-fixture.js";

const own = closedAfterEach(30_000);
const directory = mkdtempSync(join(tmpdir(), "gateway-memory-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Each user is a principal with a memory file of its own, set in its children's environment. */
const perUser = (request: IncomingMessage) => {
  const user = request.headers["x-user"];
  return typeof user === "string" && /^\w+$/.test(user) ? { principal: user, env: { MEMORY_FILE_PATH: join(directory, `${user}.jsonl`) } } : undefined;
};

describe("isolation", () => {
  it("two callers of server-memory, each in its own session, never see each other's memory", async () => {
    const { url } = own(await startGateway({ target: { command: process.execPath, args: [MEMORY_ENTRY] }, poolMin: 0, authorize: perUser }));
    const alice = own(await connect(url, { protocolVersion: "legacy", headers: { "x-user": "alice" } }));
    const bob = own(await connect(url, { protocolVersion: "legacy", headers: { "x-user": "bob" } }));
    await alice.callTool("create_entities", { entities: [{ name: "alice-secret", entityType: "note", observations: ["only alice"] }] });
    await bob.callTool("create_entities", { entities: [{ name: "bob-note", entityType: "note", observations: ["only bob"] }] });
    const aliceGraph = JSON.stringify(await alice.callTool("read_graph", {}));
    const bobGraph = JSON.stringify(await bob.callTool("read_graph", {}));
    expect(aliceGraph).toContain("alice-secret");
    expect(aliceGraph).not.toContain("bob-note");
    expect(bobGraph).toContain("bob-note");
    expect(bobGraph).not.toContain("alice-secret");
  }, 60_000);
});

describe("requests from the child to its session's caller", () => {
  it("sampling, elicitation and roots cross a session of server-everything (mcpwire as the caller)", async () => {
    const { url } = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 0 }));
    const asked: string[] = [];
    const client = own(
      await connect(url, {
        protocolVersion: "legacy",
        handlers: {
          sampling: async () => {
            asked.push("sampling");
            return { role: "assistant", model: "test-model", content: { type: "text", text: "sampled through the gateway" } };
          },
          elicitation: async () => {
            asked.push("elicitation");
            return { action: "decline" };
          },
          roots: [{ uri: "file:///work/through-gateway", name: "project" }],
        },
      }),
    );
    const sampled = await client.callTool("trigger-sampling-request", { prompt: "dune", maxTokens: 5 });
    expect(JSON.stringify(sampled.content)).toContain("sampled through the gateway");
    const elicited = await client.callTool("trigger-elicitation-request", {});
    expect(JSON.stringify(elicited.content)).toMatch(/decline/i);
    const roots = await client.callTool("get-roots-list", {});
    expect(JSON.stringify(roots.content)).toContain("file:///work/through-gateway");
    expect(asked).toEqual(["sampling", "elicitation"]);
  }, 60_000);

  it("the official v1 client answers a sampling request of its session", async () => {
    const { url } = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 0 }));
    const client = new SdkV1Client({ name: "v1", version: "1.0.0" }, { capabilities: { sampling: {}, elicitation: {}, roots: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", model: "m", content: { type: "text", text: "v1 sampled" } }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
    await client.connect(new SdkV1Transport(new URL(url)));
    own({ close: () => client.close() });
    const result = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "dune", maxTokens: 5 } });
    expect(JSON.stringify(result.content)).toContain("v1 sampled");
  }, 60_000);
});

describe("a session whose child died", () => {
  it("answers 404 after its child was SIGKILLed, and the caller initializes a new session and goes on", async () => {
    const running = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 0 }));
    const client = own(await connect(running.url, { protocolVersion: "legacy" }));
    expect(JSON.stringify((await client.callTool("echo", { message: "before" })).content)).toContain("before");
    const [pid] = running.spawnedPids();
    process.kill(pid!, "SIGKILL");
    await expect.poll(() => running.gateway.sessionCount, { timeout: 20_000 }).toBe(0);
    expect(alive(pid!)).toBe(false);
    // mcpwire meets the 404 (session_expired), initializes again and retries the call once.
    expect(JSON.stringify((await client.callTool("echo", { message: "after" })).content)).toContain("after");
    expect(running.gateway.sessionCount).toBe(1);
    expect(running.logs.some((line) => line.event === "rejected" && line.cause === "unknown_session" && line.status === 404)).toBe(true);
    expect(running.spawnedPids()).toHaveLength(2);
  }, 60_000);

  it("leaves no child after close()", async () => {
    const running = await startGateway({ target: EVERYTHING_TARGET, poolMin: 0 });
    const client = await connect(running.url, { protocolVersion: "legacy" });
    await client.callTool("echo", { message: "x" });
    await client.close();
    const pids = running.spawnedPids();
    expect(pids.length).toBeGreaterThan(0);
    await running.close();
    for (const pid of pids) expect(alive(pid)).toBe(false);
  }, 60_000);
});
