/**
 * The children's stderr through the built command (`npm run build` first): a pool child's and a
 * session child's lines are the gateway's own JSON log lines on its stderr, with the child's pid
 * (and the session, hashed as the request lines hash it); a child flooding its stderr leaves the
 * log bounded, the rest counted in `child_stderr_dropped` lines and in `/metrics`;
 * `MCPWIRE_GATEWAY_CHILD_STDERR=drop` logs none of it; a bad `--child-stderr` is exit 2.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { CHILD_STDERR_BURST_LINES, CHILD_STDERR_LINES_PER_SECOND } from "../../../src/gateway/children/index.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { listening, runGateway, scrape } from "../helpers/gateway-process.js";

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));
const ECHO = `${process.execPath} ${fixture("stdio-gateway-echo.mjs")} --stderr "hello from the server"`;
const FLOOD = `${process.execPath} ${fixture("stdio-stderr-flood.mjs")}`;
const own = closedAfterEach(30_000);

const stderrLinesOf = (lines: Array<Record<string, unknown>>) => lines.filter((line) => line.event === "child_stderr");

describe("mcpwire gateway: the children's stderr", () => {
  it("logs each line of a pool child and of a session's child, with its pid and the session", async () => {
    const gateway = own(runGateway([ECHO, "--listen", "127.0.0.1:0", "--drain-delay", "0", "--pool-min", "1"]));
    const { url } = await listening(gateway);
    await expect.poll(() => stderrLinesOf(gateway.lines).length, { timeout: 20_000 }).toBe(1);
    const [poolChild] = gateway.spawnedPids();
    expect(stderrLinesOf(gateway.lines)[0]).toEqual({
      time: expect.any(String),
      event: "child_stderr",
      pid: poolChild,
      era: "modern",
      text: "hello from the server",
    });

    // A legacy client's initialize opens a session, whose own child says the same at its start.
    const client = own(await connect(url, { protocolVersion: "legacy" }));
    await expect.poll(() => stderrLinesOf(gateway.lines).length, { timeout: 20_000 }).toBe(2);
    const sessionLine = stderrLinesOf(gateway.lines)[1]!;
    const initialize = gateway.lines.find((line) => line.event === "request" && line.method === "initialize")!;
    expect(sessionLine).toEqual({
      time: expect.any(String),
      event: "child_stderr",
      pid: initialize.childPid,
      era: "legacy",
      session: initialize.session,
      text: "hello from the server",
    });
    expect(gateway.spawnedPids()).toContain(sessionLine.pid);
    await client.close();

    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(stderrLinesOf(gateway.lines)).toHaveLength(2);
  }, 60_000);

  it("keeps the log bounded when a child floods its stderr, and says how many lines it dropped", async () => {
    const gateway = own(runGateway([FLOOD, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--drain-delay", "0", "--pool-min", "0"]));
    const { url, adminUrl } = await listening(gateway);
    const startedAt = performance.now();
    const client = own(await connect(url, { protocolVersion: "legacy" }));
    // 8 MiB of 109-byte lines in blocks of 1000, then a last line; answered once all are written.
    expect(JSON.stringify((await client.callTool("flood", { mb: 8 })).content)).toContain("flooded 8");
    await expect.poll(async () => (await scrape(adminUrl!)).value("child_stderr_dropped_total"), { timeout: 20_000 }).toBeGreaterThan(0);
    await client.close();
    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    const seconds = (performance.now() - startedAt) / 1000;

    const written = Math.ceil(Math.ceil((8 * 1024 * 1024) / 109) / 1000) * 1000 + 1;
    const logged = stderrLinesOf(gateway.lines).length;
    const dropped = gateway.lines.filter((line) => line.event === "child_stderr_dropped").reduce((sum, line) => sum + Number(line.dropped), 0);
    expect(logged + dropped).toBe(written);
    expect(logged).toBeLessThan(written / 10);
    expect(logged).toBeLessThanOrEqual(CHILD_STDERR_BURST_LINES + Math.ceil(CHILD_STDERR_LINES_PER_SECOND * seconds) + 1);
    // At most one report of the dropped lines a second, and one at the child's end.
    expect(gateway.lines.filter((line) => line.event === "child_stderr_dropped").length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
  }, 90_000);

  it("logs none of it with MCPWIRE_GATEWAY_CHILD_STDERR=drop", async () => {
    const gateway = own(runGateway([ECHO, "--listen", "127.0.0.1:0", "--drain-delay", "0", "--pool-min", "1"], { MCPWIRE_GATEWAY_CHILD_STDERR: "drop" }));
    const { url } = await listening(gateway);
    const client = own(await connect(url, { protocolVersion: "legacy" }));
    await client.close();
    // Once it exited, every child's stderr has ended and been read.
    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(gateway.spawnedPids()).toHaveLength(2);
    expect(stderrLinesOf(gateway.lines)).toEqual([]);
    expect(gateway.stderr()).not.toContain("hello from the server");
  }, 60_000);

  it("refuses a --child-stderr that is neither log nor drop (exit 2)", async () => {
    const gateway = own(runGateway([ECHO, "--child-stderr", "loud"]));
    expect((await gateway.exited).code).toBe(2);
    expect(gateway.stderr()).toMatch(/--child-stderr "loud" is not one of log, drop/);
  }, 30_000);
});
