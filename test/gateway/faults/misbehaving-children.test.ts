/**
 * Children that misbehave, through the built command: one that ignores SIGTERM and its stdin's
 * end, and one that leaves a grandchild which ignores SIGTERM too. After SIGTERM to the gateway it
 * exits 0 and nothing of theirs is left (the close ladder ends with SIGKILL to each group). A
 * server that exits at once crash-loops: `/readyz` says 503 with its reason and stays so, a call
 * is answered UNAVAILABLE with 503 and `Retry-After`, and `/healthz` stays 200. A pool child that
 * crashes with calls in flight fails those with DISCONNECTED, and is replaced.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { adminGet, alive, groupAlive, listening, runGateway, runs, scrape } from "../helpers/gateway-process.js";
import { modernCall } from "../helpers/modern-post.js";
import { post } from "../helpers/json-rpc-post.js";

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));
const own = closedAfterEach(30_000);

async function readyGateway(command: string, extra: string[] = []) {
  const gateway = own(runGateway([command, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--drain-delay", "0", "--drain-ms", "1s", ...extra]));
  const where = await listening(gateway);
  await expect.poll(async () => (await adminGet(where.adminUrl!, "/readyz")).status, { timeout: 30_000 }).toBe(200);
  return { gateway, ...where };
}

describe("children that misbehave, through the gateway", () => {
  it("a child that ignores SIGTERM and stdin EOF: SIGTERM to the gateway leaves nothing", async () => {
    const { gateway, url } = await readyGateway(`${process.execPath} ${fixture("stdio-ignores-sigterm.mjs")}`);
    const client = own(await connect(url, { protocolVersion: "legacy" }));
    expect(JSON.stringify((await client.callTool("echo", { text: "still here" })).content)).toContain("still here");
    const pids = gateway.spawnedPids();
    expect(pids.length).toBe(2); // the pool's child and the session's

    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    for (const pid of pids) {
      expect(alive(pid), `child ${pid}`).toBe(false);
      expect(groupAlive(pid), `group of ${pid}`).toBe(false);
    }
    const exits = gateway.lines.filter((line) => line.event === "child_exited");
    expect(exits.map((line) => line.pid).sort()).toEqual([...pids].sort());
  }, 90_000);

  it("a child leaving a grandchild that ignores SIGTERM: SIGTERM to the gateway leaves neither", async () => {
    const { gateway, url } = await readyGateway(`${process.execPath} ${fixture("stdio-spawns-grandchild.mjs")} --stubborn`);
    const client = own(await connect(url, { protocolVersion: "legacy" }));
    const content = (await client.callTool("pids", {})).content as Array<{ text: string }>;
    const { server, grandchild } = JSON.parse(content[0]!.text) as { server: number; grandchild: number };
    expect(gateway.spawnedPids()).toContain(server);
    expect(runs(grandchild)).toBe(true);
    const pids = gateway.spawnedPids();

    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(runs(grandchild), `grandchild ${grandchild}`).toBe(false);
    for (const pid of pids) expect(groupAlive(pid), `group of ${pid}`).toBe(false);
  }, 90_000);

  it("a server that exits at once: /readyz 503 with its reason, calls answered UNAVAILABLE, /healthz 200", async () => {
    const gateway = own(runGateway([`${process.execPath} -e 'process.exit(1)'`, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--drain-delay", "0"]));
    const { port, adminUrl } = await listening(gateway);
    await expect.poll(() => gateway.lines.some((line) => line.event === "crash_loop"), { timeout: 30_000 }).toBe(true);
    const metrics = await scrape(adminUrl!);
    expect(metrics.value("child_exits_total", { cause: "crash" })).toBeGreaterThanOrEqual(3);
    expect(metrics.value("ready")).toBe(0);

    expect(await adminGet(adminUrl!, "/readyz")).toEqual({ status: 503, text: expect.stringMatching(/^not ready: pool: .*\(crash loop\)/) });
    expect(await adminGet(adminUrl!, "/healthz")).toEqual({ status: 200, text: expect.stringMatching(/^ok/) });

    const answer = await post({ port, ...modernCall(7, "tools/call", { name: "echo", arguments: { text: "x" } }) });
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBeDefined();
    expect(answer.message).toMatchObject({ id: 7, error: { data: { reason: "UNAVAILABLE" } } });

    // It keeps trying at the backoff's pace, and stays out of the rotation while it fails.
    const spawned = gateway.spawnedPids().length;
    await expect.poll(() => gateway.spawnedPids().length, { timeout: 30_000 }).toBeGreaterThan(spawned);
    expect(await adminGet(adminUrl!, "/readyz")).toEqual({ status: 503, text: expect.stringMatching(/\(crash loop\)/) });
    expect((await adminGet(adminUrl!, "/healthz")).status).toBe(200);

    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    for (const pid of gateway.spawnedPids()) expect(groupAlive(pid), `group of ${pid}`).toBe(false);
  }, 90_000);

  it("a pool child that crashes with calls in flight: each is answered DISCONNECTED, and the child is replaced", async () => {
    const modern = fixture("modern-server.ts");
    const { gateway, port, adminUrl } = await readyGateway(`${process.execPath} --import tsx ${modern} stdio`, ["--pool-max", "1"]);
    const [first] = gateway.spawnedPids();
    const held = Array.from({ length: 10 }, (_, index) => post({ port, ...modernCall(index + 1, "tools/call", { name: "sleep", arguments: { ms: 600_000 } }) }));
    await expect.poll(async () => (await scrape(adminUrl!)).value("requests_in_flight"), { timeout: 20_000 }).toBe(10);
    const crash = await post({ port, ...modernCall(99, "tools/call", { name: "crash", arguments: {} }) });
    expect(crash.message).toMatchObject({ id: 99, error: { data: { reason: "DISCONNECTED" } } });
    for (const [index, answer] of (await Promise.all(held)).entries()) {
      expect(answer.message, `call ${index + 1}`).toMatchObject({ id: index + 1, error: { data: { reason: "DISCONNECTED" } } });
    }
    expect(groupAlive(first!)).toBe(false);

    // Replaced after its backoff; the replica serves again, with one child as before.
    await expect.poll(() => gateway.spawnedPids().length, { timeout: 30_000 }).toBe(2);
    await expect.poll(async () => (await adminGet(adminUrl!, "/readyz")).status, { timeout: 30_000 }).toBe(200);
    const again = await post({ port, ...modernCall(100, "tools/call", { name: "echo", arguments: { text: "back" } }) });
    expect(JSON.stringify(again.message?.result)).toContain("back");
    const metrics = await scrape(adminUrl!);
    expect(metrics.value("child_exits_total", { cause: "crash" })).toBe(1);
    expect(metrics.value("children")).toBe(1);

    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    for (const pid of gateway.spawnedPids()) expect(groupAlive(pid), `group of ${pid}`).toBe(false);
  }, 90_000);
});
