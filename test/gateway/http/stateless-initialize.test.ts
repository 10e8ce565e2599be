/**
 * A legacy caller's `initialize` in `--legacy stateless` mode, answered by the pool: "If the
 * server supports the requested protocol version, it MUST respond with the same version.
 * Otherwise, the server MUST respond with another protocol version it supports" (2025-11-25
 * basic/lifecycle, "Version Negotiation"). The gateway answers the caller's revision once the
 * wrapped server answered it with that same revision, and the version it holds otherwise.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ECHO_TARGET, startGateway, type RunningGateway } from "../helpers/gateway-fixture.js";
import { JSON_POST, rawRequest } from "../helpers/raw-http.js";

/** A server that answers every `initialize` with 2025-11-25 (it supports no other revision). */
const LATEST_ONLY_TARGET = { command: "/bin/sh", args: [fileURLToPath(new URL("../../fixtures/stdio-sh-session-server.sh", import.meta.url))] };

const running: RunningGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});

function initialize(protocolVersion: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } } });
}

describe("initialize in --legacy stateless mode", () => {
  it.each(["2025-03-26", "2025-06-18", "2025-11-25"])("answers %s to a caller asking for it when the server supports it", async (revision) => {
    const gateway = await startGateway({ target: ECHO_TARGET, legacy: "stateless" });
    running.push(gateway);
    const answer = await rawRequest({ port: gateway.port, headers: JSON_POST, body: initialize(revision) });
    expect(answer.json()).toMatchObject({ id: 1, result: { protocolVersion: revision, serverInfo: { name: "gateway-echo" } } });
    // Asked once per revision: a second caller gets the same answer.
    const again = await rawRequest({ port: gateway.port, headers: JSON_POST, body: initialize(revision) });
    expect(again.json()).toMatchObject({ id: 1, result: { protocolVersion: revision } });
  });

  it("answers the version the server speaks when it does not support the one asked", async () => {
    const gateway = await startGateway({ target: LATEST_ONLY_TARGET, legacy: "stateless" });
    running.push(gateway);
    const answer = await rawRequest({ port: gateway.port, headers: JSON_POST, body: initialize("2025-06-18") });
    expect(answer.json()).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25", serverInfo: { name: "sh-session-server" } } });
  });
});
