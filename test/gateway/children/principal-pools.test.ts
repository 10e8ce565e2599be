/**
 * A principal with variables of its own (`authorize` returning `env`) gets children of its own
 * for the eras the shared pool serves (principal-pools.ts): its 2026-07-28 calls reach a process
 * spawned with its variables, never the shared pool's nor another principal's; a principal without
 * variables uses the shared pool; an idle principal's pool is closed with its children; past
 * `maxSessions` such pools a busy replica refuses with 503. Real processes: the modern fixture.
 */
import type { IncomingMessage } from "node:http";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connect, type McpClient } from "../../../src/index.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { MODERN_TARGET, alive, startGateway } from "../helpers/gateway-fixture.js";

const own = closedAfterEach(30_000);
/** A legacy-era server whose `env` tool answers with its environment. */
const PRINT_ENV_TARGET = { command: process.execPath, args: [fileURLToPath(new URL("../../fixtures/stdio-print-env.mjs", import.meta.url))] };

/** `x-user: alice` is alice; `x-key` (if any) her own variable, as a per-user credential would be. */
const byUser = (request: IncomingMessage) => {
  const user = request.headers["x-user"];
  const key = request.headers["x-key"];
  if (typeof user !== "string") return undefined;
  return typeof key === "string" ? { principal: user, env: { USER_KEY: key } } : { principal: user };
};

async function whoami(client: McpClient): Promise<{ pid: number; value: string | null }> {
  const result = await client.callTool("whoami", { variable: "USER_KEY" });
  const [content] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(content!.text) as { pid: number; value: string | null };
}

function caller(url: string, headers: Record<string, string>): Promise<McpClient> {
  return connect(url, { protocolVersion: "modern", headers }).then(own);
}

describe("children of a principal's own", () => {
  it("a principal's variables reach its own children only; one without variables uses the shared pool", async () => {
    const { url, gateway } = own(await startGateway({ target: MODERN_TARGET, poolMin: 1, poolMax: 1, authorize: byUser }));
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const alice = await caller(url, { "x-user": "alice", "x-key": "alice-key" });
    const bob = await caller(url, { "x-user": "bob", "x-key": "bob-key" });
    const carol = await caller(url, { "x-user": "carol" });

    const [a, b, c] = await Promise.all([whoami(alice), whoami(bob), whoami(carol)]);
    expect(a.value).toBe("alice-key");
    expect(b.value).toBe("bob-key");
    expect(c.value).toBeNull();
    expect(new Set([a.pid, b.pid, c.pid]).size).toBe(3);
    // Again: the same processes, so each principal keeps its own.
    expect(await whoami(alice)).toEqual(a);
    expect(await whoami(carol)).toEqual(c);
  }, 60_000);

  it("in --legacy stateless mode, a legacy caller's variables reach its own children too", async () => {
    const { url, gateway } = own(await startGateway({ target: PRINT_ENV_TARGET, poolMin: 1, legacy: "stateless", authorize: byUser }));
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const alice = own(await connect(url, { protocolVersion: "legacy", headers: { "x-user": "alice", "x-key": "alice-key" } }));
    const carol = own(await connect(url, { protocolVersion: "legacy", headers: { "x-user": "carol" } }));
    expect(alice.era).toBe("legacy");
    const environmentOf = async (client: McpClient) => {
      const [content] = (await client.callTool("env", {})).content as Array<{ text: string }>;
      return JSON.parse(content!.text) as Record<string, string>;
    };
    expect((await environmentOf(alice)).USER_KEY).toBe("alice-key");
    expect((await environmentOf(carol)).USER_KEY).toBeUndefined();
  }, 60_000);

  it("a rotated credential gets fresh children", async () => {
    const { url, gateway } = own(await startGateway({ target: MODERN_TARGET, poolMin: 1, authorize: byUser }));
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const before = await whoami(await caller(url, { "x-user": "alice", "x-key": "old" }));
    const after = await whoami(await caller(url, { "x-user": "alice", "x-key": "new" }));
    expect(before.value).toBe("old");
    expect(after.value).toBe("new");
    expect(after.pid).not.toBe(before.pid);
  }, 60_000);

  it("closes an idle principal's pool, its children stopped", async () => {
    const { url, gateway } = own(await startGateway({ target: MODERN_TARGET, poolMin: 1, sessionIdleMs: 300, authorize: byUser }));
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    // The child answered, so it ran; it is not checked alive here, since on a busy machine the
    // 300 ms of idleness may be over before such a check runs.
    const { pid } = await whoami(await caller(url, { "x-user": "alice", "x-key": "k" }));
    await expect.poll(() => alive(pid), { timeout: 30_000 }).toBe(false);
    expect(gateway.telemetry.metrics.childExits.get({ cause: "shutdown" }) + gateway.telemetry.metrics.childExits.get({ cause: "idle" })).toBeGreaterThan(0);
  }, 60_000);

  it("past maxSessions pools, all busy, a new principal gets 503 with Retry-After; a free one makes room", async () => {
    const { url, gateway } = own(await startGateway({ target: MODERN_TARGET, poolMin: 1, maxSessions: 1, authorize: byUser }));
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const alice = await caller(url, { "x-user": "alice", "x-key": "a" });
    const busy = alice.callTool("sleep", { ms: 600_000 }).catch((error: unknown) => error);
    own({ close: async () => void (await busy) });
    // The long call holds alice's pool.
    await expect.poll(() => gateway.requests.running, { timeout: 20_000 }).toBe(1);

    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "echo",
        "x-user": "bob",
        "x-key": "b",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "echo",
          arguments: { text: "x" },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toMatchObject({ id: 1, error: { data: { reason: "UNAVAILABLE" } } });

    await alice.close();
    await busy;
    // Alice's pool is free now: bob's takes its place.
    const bob = await caller(url, { "x-user": "bob", "x-key": "b" });
    expect((await whoami(bob)).value).toBe("b");
  }, 60_000);
});
