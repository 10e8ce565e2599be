/**
 * `close()` drains (gateway/ops/drain.ts over the front's hooks): requests are still served for
 * `drainDelayMs`, new ones then get 503, those in flight get `drainMs` and are then answered with
 * an error; the port closes, every child is stopped, and it resolves once nothing is left.
 */
import net from "node:net";
import { describe, expect, it } from "vitest";
import { closedAfterEach } from "../../helpers/owned.js";
import { alive, MODERN_TARGET, SILENT_TARGET, startGateway } from "../helpers/gateway-fixture.js";
import { modernCall } from "../helpers/modern-post.js";

// close() is idempotent: what a test closed itself is closed again, at no cost, after it.
const own = closedAfterEach(30_000);

describe("close()", () => {
  it("answers a request still in flight past drainMs with an error, stops every child, and closes the port", async () => {
    const running = own(await startGateway({ target: MODERN_TARGET, drainDelayMs: 0, drainMs: 200 }));
    await expect.poll(() => running.gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const slow = modernCall(1, "tools/call", { name: "sleep", arguments: { ms: 600_000 } });
    const answer = fetch(running.url, { method: "POST", headers: slow.headers, body: slow.body }).then(async (response) => ({ status: response.status, body: await response.json() }));
    await expect.poll(() => running.gateway.requests.running, { timeout: 20_000 }).toBe(1);
    const pids = running.spawnedPids();
    await running.close();
    const { body } = (await answer) as { body: { id: number; error: { data: { reason: string } } } };
    expect(body.id).toBe(1);
    expect(body.error.data.reason).toBe("UNAVAILABLE");
    for (const pid of pids) expect(alive(pid)).toBe(false);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(running.port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", () => resolve(true));
    });
    expect(refused).toBe(true);
  }, 60_000);

  it("ends, with no child left, while the server has not answered its first probe yet", async () => {
    const running = own(await startGateway({ target: SILENT_TARGET, drainDelayMs: 0 }));
    await expect.poll(() => running.spawnedPids().length, { timeout: 20_000 }).toBe(1);
    const [pid] = running.spawnedPids();
    // The probe waits up to 30 s and the pool then spawns the server again: nothing but the close
    // may end the pool's start, so the close must not wait for the start first.
    await running.close();
    expect(alive(pid!)).toBe(false);
    expect(running.spawnedPids()).toEqual([pid]);
  }, 20_000);

  it("refuses new requests with 503 once the drain delay is over, and waits for those in flight", async () => {
    const running = own(await startGateway({ target: MODERN_TARGET, drainDelayMs: 0, drainMs: 60_000 }));
    await expect.poll(() => running.gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const caller = new AbortController();
    const slow = modernCall(1, "tools/call", { name: "sleep", arguments: { ms: 600_000 } });
    const inFlight = fetch(running.url, { method: "POST", headers: slow.headers, body: slow.body, signal: caller.signal }).catch(() => undefined);
    await expect.poll(() => running.gateway.requests.running, { timeout: 20_000 }).toBe(1);
    let closedYet = false;
    const closed = running.close().then(() => (closedYet = true));
    await expect.poll(() => running.gateway.drain.phase, { timeout: 20_000 }).toBe("refusing");
    const late = modernCall(2, "tools/call", { name: "echo", arguments: { text: "late" } });
    const refused = await fetch(running.url, { method: "POST", headers: late.headers, body: late.body });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    // The request in flight is still being served: the drain waits for it.
    expect(running.gateway.requests.running).toBe(1);
    expect(closedYet).toBe(false);
    caller.abort();
    await inFlight;
    await closed;
    expect(running.gateway.requests.running).toBe(0);
  }, 60_000);
});
