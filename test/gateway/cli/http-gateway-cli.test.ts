/**
 * `mcpwire gateway <target> --listen host:port` as a process (`node dist/cli/main.js`, built by
 * `npm run build`): it starts and says where it listens in a JSON log line, serves, refuses a
 * non-loopback listen without --allowed-hosts, an unknown flag and an unknown MCPWIRE_GATEWAY_*
 * variable (exit 2), takes its variables with a flag winning over its variable, and exits 0 on
 * SIGTERM with no child left. `gatewayOptionsFrom` is checked in process for every flag.
 */
import net from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { gatewayOptionsFrom, variableOf } from "../../../src/cli/gateway/http-gateway-cli.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { alive } from "../helpers/gateway-fixture.js";
import { adminGet, groupAlive, listening, runGateway, scrape, type GatewayProcess } from "../helpers/gateway-process.js";
import { post } from "../helpers/json-rpc-post.js";
import { modernCall } from "../helpers/modern-post.js";

const MINI = fileURLToPath(new URL("../../fixtures/stdio-exits-mid-call.mjs", import.meta.url));
const TARGET = `${process.execPath} ${MINI}`;
const MODERN = fileURLToPath(new URL("../../fixtures/modern-server.ts", import.meta.url));
const own = closedAfterEach(30_000);

async function listeningUrl(gateway: GatewayProcess): Promise<string> {
  return (await listening(gateway, 20_000)).url;
}

describe("mcpwire gateway <target>", () => {
  it("starts, logs where it listens, serves, and exits 0 on SIGTERM with no child left", async () => {
    const gateway = own(runGateway([TARGET, "--listen", "127.0.0.1:0", "--drain-delay", "0", "--pool-min", "0"]));
    const url = await listeningUrl(gateway);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect(url, { protocolVersion: "legacy" });
    expect(JSON.stringify((await client.callTool("echo", { text: "via the CLI" })).content)).toContain("via the CLI");
    const pids = gateway.lines.filter((line) => line.event === "child_spawned").map((line) => Number(line.pid));
    expect(pids.length).toBeGreaterThan(0);
    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    await client.close();
    for (const pid of pids) expect(alive(pid)).toBe(false);
  }, 60_000);

  it("reads its variables, a flag winning over its variable", async () => {
    const gateway = own(
      runGateway(["--path", "/from-flag", "--drain-delay", "0"], {
        MCPWIRE_GATEWAY_TARGET: TARGET,
        MCPWIRE_GATEWAY_LISTEN: "127.0.0.1:0",
        MCPWIRE_GATEWAY_PATH: "/from-variable",
        MCPWIRE_GATEWAY_POOL_MIN: "0",
      }),
    );
    expect(new URL(await listeningUrl(gateway)).pathname).toBe("/from-flag");
    gateway.child.kill("SIGTERM");
    expect((await gateway.exited).code).toBe(0);
  }, 60_000);

  it("shrinks its pool back to --pool-min after a burst, with MCPWIRE_GATEWAY_POOL_IDLE, counting the exits as idle", async () => {
    const gateway = own(
      runGateway(
        [`${process.execPath} --import tsx ${MODERN} stdio`, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--drain-delay", "0"],
        { MCPWIRE_GATEWAY_POOL_MIN: "1", MCPWIRE_GATEWAY_POOL_MAX: "3", MCPWIRE_GATEWAY_CHILD_MAX_IN_FLIGHT: "1", MCPWIRE_GATEWAY_POOL_IDLE: "300ms" },
      ),
    );
    const { port, adminUrl } = await listening(gateway, 20_000);
    await expect.poll(async () => (await adminGet(adminUrl!, "/readyz")).status, { timeout: 30_000 }).toBe(200);
    // Three calls that only end when their callers go: one child each.
    const callers = new AbortController();
    const held = [1, 2, 3].map((id) => post({ port, ...modernCall(id, "tools/call", { name: "sleep", arguments: { ms: 600_000 } }), signal: callers.signal }).catch(() => undefined));
    await expect.poll(async () => (await scrape(adminUrl!)).value("children"), { timeout: 30_000 }).toBe(3);
    await expect.poll(async () => (await scrape(adminUrl!)).value("requests_in_flight"), { timeout: 30_000 }).toBe(3);
    const burst = gateway.spawnedPids();
    callers.abort();
    await Promise.all(held);

    await expect.poll(async () => (await scrape(adminUrl!)).value("children"), { timeout: 30_000 }).toBe(1);
    await expect.poll(async () => (await scrape(adminUrl!)).value("child_exits_total", { cause: "idle" }), { timeout: 30_000 }).toBe(2);
    const retired = gateway.lines.filter((line) => line.event === "child_exited" && line.cause === "idle").map((line) => Number(line.pid));
    expect(retired).toHaveLength(2);
    for (const pid of retired) {
      expect(burst).toContain(pid);
      expect(groupAlive(pid), `group of ${pid}`).toBe(false);
    }
    const again = await post({ port, ...modernCall(4, "tools/call", { name: "echo", arguments: { text: "still served" } }) });
    expect(JSON.stringify(again.message?.result)).toContain("still served");

    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    for (const pid of gateway.spawnedPids()) expect(groupAlive(pid), `group of ${pid}`).toBe(false);
  }, 90_000);

  it("refuses a non-loopback --listen without --allowed-hosts (exit 2)", async () => {
    const gateway = own(runGateway([TARGET, "--listen", "0.0.0.0:0"]));
    expect((await gateway.exited).code).toBe(2);
    expect(gateway.stderr()).toMatch(/--listen 0\.0\.0\.0:0 is not a loopback address: give --allowed-hosts/);
  }, 30_000);

  it("refuses an unknown flag, with a did you mean (exit 2)", async () => {
    const gateway = own(runGateway([TARGET, "--pool-mix", "2"]));
    expect((await gateway.exited).code).toBe(2);
    expect(gateway.stderr()).toMatch(/unknown option --pool-mix \(did you mean "--pool-min"\?\)/);
  }, 30_000);

  it("refuses an unknown MCPWIRE_GATEWAY_* variable, with a did you mean (exit 2)", async () => {
    const gateway = own(runGateway([TARGET], { MCPWIRE_GATEWAY_POOL_MAXX: "2" }));
    expect((await gateway.exited).code).toBe(2);
    expect(gateway.stderr()).toMatch(/unknown variable MCPWIRE_GATEWAY_POOL_MAXX \(did you mean "MCPWIRE_GATEWAY_POOL_MAX"\?\)/);
  }, 30_000);

  it("exits 4, with no child left, when its address is taken", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    own({ close: () => new Promise<void>((resolve) => taken.close(() => resolve())) });
    const { port } = taken.address() as net.AddressInfo;
    const gateway = own(runGateway([TARGET, "--listen", `127.0.0.1:${port}`]));
    expect((await gateway.exited).code).toBe(4);
    expect(gateway.stderr()).toMatch(/cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/);
    for (const line of gateway.lines.filter((entry) => entry.event === "child_spawned")) expect(alive(Number(line.pid))).toBe(false);
  }, 30_000);

  it("exits 4 naming the --admin-listen address, not the MCP one, when the admin address is taken", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    own({ close: () => new Promise<void>((resolve) => taken.close(() => resolve())) });
    const { port } = taken.address() as net.AddressInfo;
    const gateway = own(runGateway([TARGET, "--listen", "127.0.0.1:0", "--admin-listen", `127.0.0.1:${port}`, "--pool-min", "0"]));
    expect((await gateway.exited).code).toBe(4);
    expect(gateway.stderr()).toContain(`cannot listen on 127.0.0.1:${port}, the --admin-listen address (EADDRINUSE)`);
    expect(gateway.stderr()).not.toContain("cannot listen on 127.0.0.1:0");
    for (const pid of gateway.spawnedPids()) expect(alive(pid)).toBe(false);
  }, 30_000);

  it("says in its log why the server cannot be started (no such command), not only that it crash-loops", async () => {
    const gateway = own(runGateway(["/nonexistent/mcp-server --token s3cret-arg", "--listen", "127.0.0.1:0", "--drain-delay", "0"]));
    await listening(gateway, 20_000);
    await expect.poll(() => gateway.lines.find((line) => line.event === "child_spawn_failed"), { timeout: 20_000 }).toMatchObject({
      era: "modern",
      code: "ENOENT",
      message: expect.stringContaining('"/nonexistent/mcp-server" was not found'),
    });
    // The command is named; its arguments (a token, say) are not.
    expect(gateway.stderr()).not.toContain("s3cret-arg");
    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it("prints its help and exits 0", async () => {
    const gateway = own(runGateway(["--help"]));
    let out = "";
    gateway.child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    expect((await gateway.exited).code).toBe(0);
    expect(out).toMatch(/Usage: mcpwire gateway <target> --listen host:port/);
  }, 30_000);
});

describe("gatewayOptionsFrom", () => {
  it("sets every option from its flag, durations and counts read", () => {
    const argv = [
      "node server.js",
      ...["--env-allow", "A,B", "--listen", "127.0.0.1:9000", "--path", "/p", "--pool-min", "2", "--pool-max", "3", "--recycle-after", "50"],
      ...["--pool-idle", "30s"],
      ...["--legacy", "stateless", "--allowed-hosts", "a.example,b.example", "--allowed-origins", "https://a.example", "--token-file", "/t"],
      ...["--admin-listen", "127.0.0.1:9001", "--drain-delay", "2s", "--drain-ms", "10000", "--max-body-bytes", "1000", "--max-requests", "5"],
      ...["--max-queue", "6", "--max-sessions", "7", "--max-sessions-per-principal", "8", "--max-listen-streams", "12", "--request-timeout", "1m", "--session-idle", "500ms"],
      ...["--max-stored-events", "9", "--child-max-message-bytes", "2048", "--child-read-timeout", "30s", "--child-max-in-flight", "4"],
      ...["--child-stderr", "drop"],
    ];
    expect(gatewayOptionsFrom(argv, {})).toEqual({
      target: { command: "node", args: ["server.js"], envAllow: ["A", "B"] },
      listen: "127.0.0.1:9000",
      path: "/p",
      poolMin: 2,
      poolMax: 3,
      recycleAfter: 50,
      poolIdleMs: 30_000,
      legacy: "stateless",
      allowedHosts: ["a.example", "b.example"],
      allowedOrigins: ["https://a.example"],
      tokenFile: "/t",
      adminListen: "127.0.0.1:9001",
      drainDelayMs: 2000,
      drainMs: 10_000,
      maxBodyBytes: 1000,
      maxRequests: 5,
      maxQueue: 6,
      maxSessions: 7,
      maxSessionsPerPrincipal: 8,
      maxListenStreams: 12,
      requestTimeoutMs: 60_000,
      sessionIdleMs: 500,
      maxStoredEvents: 9,
      childLimits: { maxMessageBytes: 2048, readTimeoutMs: 30_000, maxInFlight: 4 },
      childStderr: "drop",
    });
  });

  it("reads --child-stderr and MCPWIRE_GATEWAY_CHILD_STDERR, the flag winning, and refuses any value but log or drop", () => {
    expect(gatewayOptionsFrom(["node s.js"], {})).not.toHaveProperty("childStderr");
    expect(gatewayOptionsFrom(["node s.js"], { MCPWIRE_GATEWAY_CHILD_STDERR: "drop" })).toMatchObject({ childStderr: "drop" });
    expect(gatewayOptionsFrom(["node s.js", "--child-stderr", "log"], { MCPWIRE_GATEWAY_CHILD_STDERR: "drop" })).toMatchObject({ childStderr: "log" });
    expect(() => gatewayOptionsFrom(["node s.js", "--child-stderr", "loud"], {})).toThrow(/--child-stderr "loud" is not one of log, drop/);
    expect(() => gatewayOptionsFrom(["node s.js"], { MCPWIRE_GATEWAY_CHILD_STDERR: "off" })).toThrow(
      /MCPWIRE_GATEWAY_CHILD_STDERR "off" is not one of log, drop/,
    );
  });

  it("names the flag or variable of a bad value", () => {
    expect(() => gatewayOptionsFrom(["node s.js", "--pool-min", "two"], {})).toThrow(/--pool-min "two" is not a whole number/);
    expect(() => gatewayOptionsFrom(["node s.js"], { MCPWIRE_GATEWAY_SESSION_IDLE: "soon" })).toThrow(/MCPWIRE_GATEWAY_SESSION_IDLE "soon" is not a duration/);
    expect(() => gatewayOptionsFrom([], {})).toThrow(/give the stdio server to serve/);
    expect(() => gatewayOptionsFrom(["node a.js", "node b.js"], {})).toThrow(/takes one target/);
  });

  it("reads --pool-idle and MCPWIRE_GATEWAY_POOL_IDLE as a duration, 0 (never shrink) included, the flag winning", () => {
    expect(gatewayOptionsFrom(["node s.js"], { MCPWIRE_GATEWAY_POOL_IDLE: "2m" })).toMatchObject({ poolIdleMs: 120_000 });
    expect(gatewayOptionsFrom(["node s.js"], { MCPWIRE_GATEWAY_POOL_IDLE: "0" })).toMatchObject({ poolIdleMs: 0 });
    expect(gatewayOptionsFrom(["node s.js", "--pool-idle", "0s"], { MCPWIRE_GATEWAY_POOL_IDLE: "2m" })).toMatchObject({ poolIdleMs: 0 });
    expect(() => gatewayOptionsFrom(["node s.js", "--pool-idle", "soon"], {})).toThrow(/--pool-idle "soon" is not a duration/);
    expect(() => gatewayOptionsFrom(["node s.js"], { MCPWIRE_GATEWAY_POOL_IDLE: "-5s" })).toThrow(/MCPWIRE_GATEWAY_POOL_IDLE "-5s" is not a duration/);
  });

  it("derives each variable from its flag", () => {
    expect(variableOf("max-sessions-per-principal")).toBe("MCPWIRE_GATEWAY_MAX_SESSIONS_PER_PRINCIPAL");
    expect(variableOf("child-read-timeout")).toBe("MCPWIRE_GATEWAY_CHILD_READ_TIMEOUT");
  });
});
