/**
 * The built command SIGKILLed: it gets no chance to stop its children, so what ends them is the
 * end of their stdin, the pipe the dead gateway held. Checked with server-everything (a legacy
 * session's child) and with the 2026-07-28 fixture (pool children): every child's
 * process group is gone, polled, with no signal sent by the test to any child.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { adminGet, groupAlive, listening, runGateway } from "../helpers/gateway-process.js";
import { modernCall } from "../helpers/modern-post.js";
import { post } from "../helpers/json-rpc-post.js";

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const EVERYTHING_COMMAND = `${process.execPath} ${path("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js")} stdio`;
const MODERN_COMMAND = `${process.execPath} --import tsx ${path("../../fixtures/modern-server.ts")} stdio`;
const own = closedAfterEach(30_000);

/** Whether any of these children still runs something; kept for the failure message. */
const running = (pids: number[]) => pids.filter((pid) => groupAlive(pid));

/**
 * SIGKILL leaves the children orphaned; if one outlived its stdin, this kills its group so the
 * test leaves nothing behind (the assertion has failed by then).
 */
function reapAfter(pids: () => number[]) {
  return {
    close: async () => {
      for (const pid of pids()) {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // gone, as it should be
        }
      }
    },
  };
}

describe("the gateway SIGKILLed", () => {
  it("server-everything's session child exits on its stdin's end", async () => {
    const gateway = runGateway([EVERYTHING_COMMAND, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--pool-min", "1"]);
    own(reapAfter(() => gateway.spawnedPids()));
    own(gateway);
    const { url, adminUrl } = await listening(gateway);
    await expect.poll(async () => (await adminGet(adminUrl!, "/readyz")).status, { timeout: 30_000 }).toBe(200);
    const client = own(await connect(url, { protocolVersion: "legacy" }));
    expect((await client.listTools()).length).toBeGreaterThan(0);
    // The modern pool's probe child learnt that server-everything speaks only the legacy era and
    // was closed (README, "A legacy-only server behind the modern pool"); what runs is the
    // session's own child.
    await expect.poll(() => running(gateway.spawnedPids()).length, { timeout: 20_000 }).toBe(1);
    const pids = running(gateway.spawnedPids());

    gateway.child.kill("SIGKILL");
    expect((await gateway.exited).signal).toBe("SIGKILL");
    await expect.poll(() => running(pids), { timeout: 20_000 }).toEqual([]);
  }, 90_000);

  it("the 2026-07-28 fixture's pool children exit on their stdin's end", async () => {
    const gateway = runGateway([MODERN_COMMAND, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--pool-min", "2"]);
    own(reapAfter(() => gateway.spawnedPids()));
    own(gateway);
    const { port, adminUrl } = await listening(gateway);
    await expect.poll(async () => (await adminGet(adminUrl!, "/readyz")).status, { timeout: 30_000 }).toBe(200);
    const answer = await post({ port, ...modernCall(1, "tools/call", { name: "echo", arguments: { text: "alive" } }) });
    expect(JSON.stringify(answer.message?.result)).toContain("alive");
    await expect.poll(() => gateway.spawnedPids().length, { timeout: 30_000 }).toBe(2);
    const pids = gateway.spawnedPids();
    expect(running(pids)).toEqual(pids);

    gateway.child.kill("SIGKILL");
    expect((await gateway.exited).signal).toBe("SIGKILL");
    await expect.poll(() => running(pids), { timeout: 20_000 }).toEqual([]);
  }, 90_000);
});
