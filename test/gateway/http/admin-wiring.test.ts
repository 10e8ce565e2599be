/**
 * The operations wired into `createGateway`: `adminListen` serves `/healthz`, `/readyz` (ready
 * once the pool answered its probe) and `/metrics`, which counts the front's requests and
 * rejections by era, method, outcome and cause.
 */
import { expect, it } from "vitest";
import { closedAfterEach } from "../../helpers/owned.js";
import { MODERN_TARGET, SILENT_TARGET, startGateway } from "../helpers/gateway-fixture.js";
import { modernCall } from "../helpers/modern-post.js";
import { rawRequest } from "../helpers/raw-http.js";

const own = closedAfterEach(30_000);

it("serves the admin endpoints on adminListen, with the front's requests and rejections in /metrics", async () => {
  const running = own(await startGateway({ target: MODERN_TARGET, adminListen: "127.0.0.1:0" }));
  const admin = running.gateway.adminUrl!;
  expect(admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(running.logs.find((line) => line.event === "listening")).toMatchObject({ url: running.url, adminUrl: admin });
  expect((await fetch(`${admin}/healthz`)).status).toBe(200);
  await expect.poll(async () => (await fetch(`${admin}/readyz`)).status, { timeout: 30_000 }).toBe(200);

  const echo = modernCall(1, "tools/call", { name: "echo", arguments: { text: "counted" } });
  expect((await fetch(running.url, { method: "POST", headers: echo.headers, body: echo.body })).status).toBe(200);
  expect((await rawRequest({ port: running.port, headers: { host: "evil.example" }, body: "{}" })).status).toBe(403);

  const metrics = await (await fetch(`${admin}/metrics`)).text();
  expect(metrics).toMatch(/mcpwire_gateway_requests_total\{[^}]*era="modern"[^}]*method="tools\/call"[^}]*outcome="ok"[^}]*\} 1/);
  expect(metrics).toMatch(/mcpwire_gateway_rejections_total\{cause="host"\} 1/);
  expect(metrics).toMatch(/mcpwire_gateway_ready 1/);
}, 60_000);

it("says on /readyz, while the first probe is unanswered, that no server process answered it yet", async () => {
  const running = own(await startGateway({ target: SILENT_TARGET, adminListen: "127.0.0.1:0" }));
  const admin = running.gateway.adminUrl!;
  const readyz = async () => {
    const answer = await fetch(`${admin}/readyz`);
    return `${answer.status} ${await answer.text()}`;
  };
  // The README's words for this state, not the readiness's placeholder ("pool: not reported yet").
  await expect.poll(readyz, { timeout: 10_000 }).toBe("503 not ready: pool: no server process answered its probe yet\n");
}, 60_000);
