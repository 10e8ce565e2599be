/**
 * Who may reach the gateway (basic/transports, "Security Warning"; issue 21, "Security"): the
 * Host must name it (a page whose name resolves to 127.0.0.1 is refused: DNS rebinding), an Origin
 * outside `allowedOrigins` gets 403, CORS answers those origins alone, the bearer of `tokenFile`
 * or the `authorize` hook decides who the caller is (else 401 with `WWW-Authenticate: Bearer`),
 * and the caller's `Authorization` reaches neither a child nor a log line.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { createGateway } from "../../../src/gateway/gateway.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { MINI_TARGET, startGateway } from "../helpers/gateway-fixture.js";
import { JSON_POST, initializeBody, rawRequest } from "../helpers/raw-http.js";

const own = closedAfterEach(30_000);
const directory = mkdtempSync(join(tmpdir(), "gateway-security-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const TOKEN = "s3cret-token-0123456789";
const tokenFile = join(directory, "token");
writeFileSync(tokenFile, `${TOKEN}\n`);

describe("Host", () => {
  it("answers loopback names and refuses a rebinding name that resolves to 127.0.0.1 (403)", async () => {
    const { port, logs } = own(await startGateway({ target: MINI_TARGET, poolMin: 0 }));
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const answer = await rawRequest({ port, headers: { ...JSON_POST, host }, body: initializeBody() });
      expect(answer.status, host).toBe(200);
    }
    const rebinding = await rawRequest({ port, headers: { ...JSON_POST, host: `evil.example:${port}` }, body: initializeBody() });
    expect(rebinding.status).toBe(403);
    expect(logs.some((line) => line.event === "rejected" && line.cause === "host")).toBe(true);
  }, 30_000);

  it("with allowedHosts, takes the names listed (with or without their port) and refuses others", async () => {
    const { port } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, allowedHosts: ["mcp.example.com", "api.example.com:9999"] }));
    const status = async (host: string) => (await rawRequest({ port, headers: { ...JSON_POST, host }, body: initializeBody() })).status;
    expect(await status(`mcp.example.com:${port}`)).toBe(200);
    expect(await status("api.example.com:9999")).toBe(200);
    expect(await status(`api.example.com:${port}`)).toBe(403);
    expect(await status("evil.example")).toBe(403);
  }, 30_000);

  it("refuses to start on a non-loopback address without allowedHosts", () => {
    expect(() => createGateway({ target: "node server.js", listen: "0.0.0.0:8080" })).toThrow(/not a loopback address, so "allowedHosts" must name/);
  });
});

describe("Origin and CORS", () => {
  it("refuses an Origin not listed with 403, and gives CORS headers to a listed one only", async () => {
    const { port } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, allowedOrigins: ["http://app.example"] }));
    const foreign = await rawRequest({ port, headers: { ...JSON_POST, origin: "http://evil.example" }, body: initializeBody() });
    expect(foreign.status).toBe(403);
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();

    const listed = await rawRequest({ port, headers: { ...JSON_POST, origin: "http://app.example" }, body: initializeBody() });
    expect(listed.status).toBe(200);
    expect(listed.headers["access-control-allow-origin"]).toBe("http://app.example");
    expect(listed.headers["access-control-expose-headers"]).toMatch(/Mcp-Session-Id/);

    const none = await rawRequest({ port, headers: JSON_POST, body: initializeBody() });
    expect(none.status).toBe(200);
    expect(none.headers["access-control-allow-origin"]).toBeUndefined();
  }, 30_000);

  it("answers a preflight from a listed origin with the MCP headers, and refuses one from elsewhere", async () => {
    const { port } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, allowedOrigins: ["http://app.example"], tokenFile }));
    const preflight = await rawRequest({
      port,
      method: "OPTIONS",
      headers: { origin: "http://app.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type, mcp-session-id, mcp-param-region" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("http://app.example");
    expect(preflight.headers["access-control-allow-headers"]).toMatch(/Mcp-Session-Id/);
    expect(preflight.headers["access-control-allow-headers"]).toMatch(/mcp-param-region/);
    const foreign = await rawRequest({ port, method: "OPTIONS", headers: { origin: "http://evil.example", "access-control-request-method": "POST" } });
    expect(foreign.status).toBe(403);
  }, 30_000);
});

describe("the bearer token", () => {
  it("lets in the token of tokenFile, and answers 401 with WWW-Authenticate: Bearer otherwise", async () => {
    const { port } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, tokenFile }));
    const cases: Array<[string | undefined, number]> = [
      [undefined, 401],
      [`Bearer ${TOKEN}x`, 401],
      [`Bearer ${TOKEN.slice(0, -1)}`, 401],
      [`Basic ${Buffer.from(`user:${TOKEN}`).toString("base64")}`, 401],
      [`Bearer ${TOKEN}`, 200],
      [`bearer ${TOKEN}`, 200],
    ];
    for (const [authorization, expected] of cases) {
      const answer = await rawRequest({ port, headers: { ...JSON_POST, ...(authorization === undefined ? {} : { authorization }) }, body: initializeBody() });
      expect(answer.status, authorization).toBe(expected);
      if (expected === 401) expect(answer.headers["www-authenticate"]).toMatch(/^Bearer/);
    }
  }, 30_000);

  it("checks the Host and the Origin before the token: a rebinding request is refused even with the token", async () => {
    const { port } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, tokenFile }));
    const answer = await rawRequest({ port, headers: { ...JSON_POST, host: "evil.example", authorization: `Bearer ${TOKEN}` }, body: initializeBody() });
    expect(answer.status).toBe(403);
  }, 30_000);

  it("never hands the caller's Authorization to the child or writes it in a log line", async () => {
    const printEnv = { command: process.execPath, args: [fileURLToPath(new URL("../../fixtures/stdio-print-env.mjs", import.meta.url))] };
    const running = own(await startGateway({ target: printEnv, poolMin: 0, tokenFile }));
    const client = own(await connect(running.url, { protocolVersion: "legacy", headers: { Authorization: `Bearer ${TOKEN}` } }));
    const result = await client.callTool("env", {});
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    await client.close();
    expect(running.logs.length).toBeGreaterThan(0);
    expect(JSON.stringify(running.logs)).not.toContain(TOKEN);
  }, 30_000);

  it("refuses a token file that is missing or empty when the gateway is created", () => {
    expect(() => createGateway({ target: "node s.js", tokenFile: join(directory, "missing") })).toThrow(/"tokenFile" .* cannot be read/);
    const empty = join(directory, "empty");
    writeFileSync(empty, "\n");
    expect(() => createGateway({ target: "node s.js", tokenFile: empty })).toThrow(/must hold one token/);
  });
});

describe("the authorize hook", () => {
  it("admits whom it names, refuses (401) whom it does not, and fails closed (500) when it throws", async () => {
    const { port } = own(
      await startGateway({
        target: MINI_TARGET,
        poolMin: 0,
        authorize: (request) => {
          const key = request.headers["x-api-key"];
          if (key === "throw") throw new Error("the directory is down: internal detail");
          return key === "alice-key" ? { principal: "alice" } : undefined;
        },
      }),
    );
    expect((await rawRequest({ port, headers: { ...JSON_POST, "x-api-key": "alice-key" }, body: initializeBody() })).status).toBe(200);
    const refused = await rawRequest({ port, headers: { ...JSON_POST, "x-api-key": "mallory" }, body: initializeBody() });
    expect(refused.status).toBe(401);
    expect(refused.headers["www-authenticate"]).toMatch(/^Bearer/);
    const broken = await rawRequest({ port, headers: { ...JSON_POST, "x-api-key": "throw" }, body: initializeBody() });
    expect(broken.status).toBe(500);
    expect(broken.text).not.toContain("internal detail");
  }, 30_000);
});
