/**
 * A legacy-only server (server-everything) behind the gateway in `--legacy session` mode: the
 * modern pool learns from its probe that the server does not speak 2026-07-28 and keeps no
 * child; the replica is ready; a modern caller gets the server's own answer to `server/discover`
 * and falls back to a legacy session. The 2026-07-28 fixture keeps its warm children.
 */
import { Client as SdkV2Client, StreamableHTTPClientTransport as SdkV2Transport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { alive, EVERYTHING_TARGET, MODERN_TARGET, startGateway } from "../helpers/gateway-fixture.js";
import { modernCall } from "../helpers/modern-post.js";
import { rawRequest } from "../helpers/raw-http.js";

const own = closedAfterEach(30_000);

describe("a legacy-only server behind the modern pool", () => {
  it("is ready once probed, and no modern child stays running", async () => {
    const running = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 2 }));
    await expect.poll(() => running.gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    await expect.poll(() => running.logs.some((line) => line.event === "era_legacy_only"), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => running.spawnedPids().filter(alive), { timeout: 30_000 }).toEqual([]);
    expect(running.spawnedPids().length).toBeGreaterThan(0);
    expect(running.gateway.readiness.state().ready).toBe(true);
  }, 60_000);

  it("answers a modern server/discover with the server's own error in the caller's id, spawning nothing", async () => {
    const running = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 1 }));
    await expect.poll(() => running.logs.some((line) => line.event === "era_legacy_only"), { timeout: 30_000 }).toBe(true);
    const spawned = running.spawnedPids().length;
    const discover = modernCall(21, "server/discover");
    const answer = await rawRequest({ port: running.port, headers: discover.headers, body: discover.body });
    // 400, as a legacy HTTP server answers a modern request: the caller falls back (streamable-http, "Backward Compatibility").
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ jsonrpc: "2.0", id: 21, error: { code: -32601, message: "Method not found" } });
    expect(running.spawnedPids().length).toBe(spawned);
  }, 60_000);

  it("mcpwire's connect() with the default era negotiation falls back to a legacy session and calls a tool", async () => {
    const running = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 1 }));
    await expect.poll(() => running.logs.some((line) => line.event === "era_legacy_only"), { timeout: 30_000 }).toBe(true);
    const client = own(await connect(running.url));
    expect(client.era).toBe("legacy");
    const result = await client.callTool("echo", { message: "fell back" });
    expect(JSON.stringify(result.content)).toContain("fell back");
  }, 60_000);

  it("the official v2 client in auto mode probes, falls back to a legacy session and calls a tool", async () => {
    const running = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 1 }));
    const client = new SdkV2Client({ name: "v2-auto", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    const transport = new SdkV2Transport(new URL(running.url));
    await client.connect(transport);
    own({ close: () => client.close() });
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
    const result = await client.callTool({ name: "echo", arguments: { message: "auto fell back" } });
    expect(JSON.stringify(result.content)).toContain("auto fell back");
  }, 60_000);
});

describe("a 2026-07-28 server behind the modern pool", () => {
  it("keeps its warm children after serving", async () => {
    const running = own(await startGateway({ target: MODERN_TARGET, poolMin: 2, poolMax: 2 }));
    await expect.poll(() => running.gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const client = own(await connect(running.url));
    expect(client.era).toBe("modern");
    await client.callTool("echo", { text: "warm" });
    expect(running.logs.some((line) => line.event === "era_legacy_only")).toBe(false);
    expect(running.spawnedPids()).toHaveLength(2);
    expect(running.spawnedPids().filter(alive)).toHaveLength(2);
  }, 60_000);
});
