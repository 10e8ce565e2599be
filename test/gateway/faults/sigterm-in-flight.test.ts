/**
 * SIGTERM to the built command while 100 calls are in flight through its pool (the 2026-07-28
 * fixture's `sleep`): `/readyz` fails at once, a new call is refused with 503, each call in
 * flight is answered (the short ones with their result, the ones still running after
 * `--drain-ms` with an UNAVAILABLE error in their own id), none hangs and none is lost, the
 * process exits 0, and no child and no process of a child's group is left. The same with 100
 * legacy calls in flight over two sessions, each to a tool that never answers.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { closedAfterEach } from "../../helpers/owned.js";
import { adminGet, alive, groupAlive, listening, runGateway, scrape } from "../helpers/gateway-process.js";
import { modernCall } from "../helpers/modern-post.js";
import { post, type PostAnswer } from "../helpers/json-rpc-post.js";
import { JSON_POST, initializeBody, rawRequest } from "../helpers/raw-http.js";

const MODERN = fileURLToPath(new URL("../../fixtures/modern-server.ts", import.meta.url));
const MODERN_COMMAND = `${process.execPath} --import tsx ${MODERN} stdio`;
/** A legacy server whose `sleep` never answers. */
const MINI_COMMAND = `${process.execPath} ${fileURLToPath(new URL("../../fixtures/stdio-exits-mid-call.mjs", import.meta.url))}`;
const own = closedAfterEach(60_000);

const CALLS = 100;
/** The short calls end well inside --drain-ms; the long ones outlast it. */
const SHORT_MS = 6_000;
const LONG_MS = 600_000;
const DRAIN_MS = "20s";

describe("SIGTERM under 100 calls in flight", () => {
  it("answers every call, fails /readyz at once, exits 0 and leaves no child", async () => {
    const gateway = own(runGateway([MODERN_COMMAND, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--drain-delay", "0", "--drain-ms", DRAIN_MS]));
    const { port, adminUrl } = await listening(gateway);
    await expect.poll(async () => (await adminGet(adminUrl!, "/readyz")).status, { timeout: 30_000 }).toBe(200);

    const calls = Array.from({ length: CALLS }, (_, index) => {
      const ms = index % 2 === 0 ? SHORT_MS : LONG_MS;
      const call = modernCall(index + 1, "tools/call", { name: "sleep", arguments: { ms } });
      return { id: index + 1, ms, answer: post({ port, ...call }) };
    });
    // Every call reached a child: the front counts them in flight, none waits in its queue.
    await expect.poll(async () => (await scrape(adminUrl!)).value("requests_in_flight"), { timeout: 30_000, interval: 100 }).toBe(CALLS);
    const children = gateway.spawnedPids();
    expect(children.length).toBeGreaterThan(0);

    gateway.child.kill("SIGTERM");
    await expect.poll(async () => adminGet(adminUrl!, "/readyz"), { timeout: 10_000, interval: 20 }).toEqual({ status: 503, text: expect.stringMatching(/draining/) });
    const late = await post({ port, ...modernCall(CALLS + 1, "tools/call", { name: "sleep", arguments: { ms: 1 } }) });
    expect(late.status).toBe(503);
    expect(late.headers["retry-after"]).toBeDefined();

    const answers: PostAnswer[] = await Promise.all(calls.map((call) => call.answer));
    for (const [index, answer] of answers.entries()) {
      const { id, ms } = calls[index]!;
      expect(answer.message?.id, `call ${id}`).toBe(id);
      if (ms === SHORT_MS) {
        expect(answer.status).toBe(200);
        expect(JSON.stringify(answer.message?.result)).toContain(`slept ${SHORT_MS}`);
      } else {
        expect((answer.message?.error as { data?: { reason?: string } } | undefined)?.data?.reason, `call ${id}`).toBe("UNAVAILABLE");
      }
    }

    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    // The gateway exits only once every child has been reaped and its group is empty.
    for (const pid of children) {
      expect(alive(pid), `child ${pid}`).toBe(false);
      expect(groupAlive(pid), `group of ${pid}`).toBe(false);
    }
  }, 120_000);

  it("answers every legacy call in flight in two sessions with UNAVAILABLE, exits 0 and leaves no child", async () => {
    const gateway = own(runGateway([MINI_COMMAND, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--drain-delay", "0", "--drain-ms", "1s"]));
    const { port, adminUrl } = await listening(gateway);
    await expect.poll(async () => (await adminGet(adminUrl!, "/readyz")).status, { timeout: 30_000 }).toBe(200);
    const sessions: string[] = [];
    for (let n = 0; n < 2; n++) {
      const opened = await rawRequest({ port, headers: JSON_POST, body: initializeBody() });
      const id = opened.headers["mcp-session-id"] as string;
      await rawRequest({ port, headers: { ...JSON_POST, "mcp-session-id": id }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
      sessions.push(id);
    }
    // Half the calls in each session: under the child's 64 in flight, so none is refused with LIMIT.
    const calls = Array.from({ length: CALLS }, (_, index) => ({
      id: index + 1,
      answer: post({
        port,
        headers: { ...JSON_POST, "mcp-session-id": sessions[index % 2]! },
        body: JSON.stringify({ jsonrpc: "2.0", id: index + 1, method: "tools/call", params: { name: "sleep", arguments: {} } }),
      }),
    }));
    await expect.poll(async () => (await scrape(adminUrl!)).value("requests_in_flight"), { timeout: 30_000, interval: 100 }).toBe(CALLS);
    const children = gateway.spawnedPids();
    expect(children.length).toBe(3); // the pool's child and one per session

    gateway.child.kill("SIGTERM");
    await expect.poll(async () => adminGet(adminUrl!, "/readyz"), { timeout: 10_000, interval: 20 }).toEqual({ status: 503, text: expect.stringMatching(/draining/) });
    const answers = await Promise.all(calls.map((call) => call.answer));
    for (const [index, answer] of answers.entries()) {
      expect(answer.message, `call ${index + 1}`).toMatchObject({ id: calls[index]!.id, error: { data: { reason: "UNAVAILABLE" } } });
    }
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    for (const pid of children) {
      expect(alive(pid), `child ${pid}`).toBe(false);
      expect(groupAlive(pid), `group of ${pid}`).toBe(false);
    }
  }, 120_000);
});
