/**
 * deploy/entrypoint.sh, run on the host as the image runs it (there is no Docker daemon here):
 * it replaces itself with `node <app>/dist/cli/main.js gateway <target>` (exec: same pid, so the
 * SIGTERM tini forwards reaches the gateway), passes the target as one argument, never read
 * again by a shell, and defaults it to the server installed in the image.
 *
 * The first tests run it in front of a stand-in for mcpwire's CLI that reports what it was given;
 * the last ones in front of the real gateway and server-everything, once the gateway's CLI is
 * built (dist/cli/gateway/http-gateway-cli.js), the last of all with the ConfigMap's variables and
 * the Secrets' as the pod gets them.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/index.js";
import { configMapData } from "./gateway-settings.js";
import { ENTRYPOINT, RUN_DEADLINE_MS, killedAfterEach, processesWith, startEntrypoint } from "./entrypoint-run.js";
import { ROOT, at, manifest } from "./manifests.js";

const EVERYTHING_ENTRY = `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const GATEWAY_CLI_BUILT = existsSync(`${ROOT}dist/cli/main.js`);

/** Stands in for dist/cli/main.js: says its pid and argv on stdout, and how it was stopped. */
const STAND_IN = `
process.on("SIGTERM", () => {
  process.stdout.write(JSON.stringify({ stoppedBy: "SIGTERM" }) + "\\n");
  process.exit(0);
});
process.stdout.write(JSON.stringify({ pid: process.pid, argv: process.argv.slice(2) }) + "\\n");
setInterval(() => {}, 1 << 30);
`;

killedAfterEach();

describe("the entrypoint, in front of a stand-in for the CLI", () => {
  let appDir: string;
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "mcpwire-entrypoint-"));
    appDir = join(scratch, "app");
    mkdirSync(join(appDir, "dist", "cli"), { recursive: true });
    writeFileSync(join(appDir, "dist", "cli", "main.js"), STAND_IN);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("execs `node <app>/dist/cli/main.js gateway <target>`: the same process, the target one argument", async () => {
    const run = startEntrypoint({ MCPWIRE_IMAGE_APP_DIR: appDir, MCPWIRE_GATEWAY_TARGET: "node /srv/server.js stdio" });
    const seen = await run.stdoutLine();
    expect(seen.pid).toBe(run.child.pid);
    expect(seen.argv).toEqual(["gateway", "node /srv/server.js stdio"]);
  });

  it("passes a target's quotes, globs, variables and command substitutions through unread", async () => {
    const marker = join(scratch, "substituted");
    const target = `node '/srv/my server.js' --files=* "$HOME" $(touch ${marker}) \`touch ${marker}\`; touch ${marker}`;
    const run = startEntrypoint({ MCPWIRE_IMAGE_APP_DIR: appDir, MCPWIRE_GATEWAY_TARGET: target, HOME: "/home/nobody" });
    expect((await run.stdoutLine()).argv).toEqual(["gateway", target]);
    expect(existsSync(marker)).toBe(false);
  });

  it("runs the server installed in the image when MCPWIRE_GATEWAY_TARGET is unset or empty", async () => {
    const unset = startEntrypoint({ MCPWIRE_IMAGE_APP_DIR: appDir });
    expect((await unset.stdoutLine()).argv).toEqual(["gateway", "/opt/mcp-server/bin/mcp-server"]);
    const empty = startEntrypoint({ MCPWIRE_IMAGE_APP_DIR: appDir, MCPWIRE_GATEWAY_TARGET: "", MCPWIRE_IMAGE_SERVER_BIN: "/srv/bin/server" });
    expect((await empty.stdoutLine()).argv).toEqual(["gateway", "/srv/bin/server"]);
  });

  it("leaves the SIGTERM sent to its pid to the CLI, which exits by itself", async () => {
    const run = startEntrypoint({ MCPWIRE_IMAGE_APP_DIR: appDir });
    await run.stdoutLine();
    run.child.kill("SIGTERM");
    expect(await run.stdoutLine()).toEqual({ stoppedBy: "SIGTERM" });
    expect(await run.exited).toMatchObject({ code: 0, signal: null });
  });

  it("refuses arguments with the usage code, naming the variables to set instead", async () => {
    const run = startEntrypoint({ MCPWIRE_IMAGE_APP_DIR: appDir }, [ENTRYPOINT, "--pool-max", "8"]);
    const { code, stderr } = await run.exited;
    expect(code).toBe(2);
    expect(stderr).toContain("takes no arguments, got 2; set MCPWIRE_GATEWAY_* variables instead");
  });

  it("fails, without hanging, when mcpwire is not where MCPWIRE_IMAGE_APP_DIR says", async () => {
    const run = startEntrypoint({ MCPWIRE_IMAGE_APP_DIR: join(scratch, "nowhere") });
    const { code, stderr } = await Promise.race([
      run.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the entrypoint did not end")), RUN_DEADLINE_MS).unref()),
    ]);
    expect(code).not.toBe(0);
    expect(stderr).toContain(join(scratch, "nowhere", "dist", "cli", "main.js"));
  });
});

describe.skipIf(!GATEWAY_CLI_BUILT)("the entrypoint, in front of the built gateway and server-everything", () => {
  it("serves the server on a loopback port, then drains and exits 0 on SIGTERM", async () => {
    const run = startEntrypoint({
      MCPWIRE_IMAGE_APP_DIR: ROOT,
      MCPWIRE_GATEWAY_TARGET: `'${process.execPath}' '${EVERYTHING_ENTRY}' stdio`,
      MCPWIRE_GATEWAY_LISTEN: "127.0.0.1:0",
      MCPWIRE_GATEWAY_POOL_MIN: "1",
      MCPWIRE_GATEWAY_POOL_MAX: "1",
      MCPWIRE_GATEWAY_DRAIN_DELAY: "1ms",
      MCPWIRE_GATEWAY_DRAIN_MS: "5000",
    });
    const listening = await run.stderrLine((line) => line.event === "listening");
    const client = await connect(String(listening.url));
    try {
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("echo");
    } finally {
      await client.close();
    }
    // The process listening is the one the entrypoint started: the gateway, not a shell above it.
    run.child.kill("SIGTERM");
    expect(await run.exited).toMatchObject({ code: 0, signal: null });
  });
});

describe.skipIf(!GATEWAY_CLI_BUILT || process.platform !== "linux")("the entrypoint with the pod's environment", () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "mcpwire-pod-"));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("starts on the ConfigMap's variables, asks for the Secret's token, hands the children only the allowlisted secret, and leaves no child after SIGTERM", async () => {
    // The pod's environment: the ConfigMap (envFrom) and the Deployment's env from the Secrets,
    // on loopback ports; the token file where the Secret's volume would put it.
    const tokenFile = join(scratch, "token");
    const token = String(at(manifest("Secret", "mcpwire-gateway-token"), "stringData").token);
    writeFileSync(tokenFile, token);
    const serverKey = String(at(manifest("Secret", "mcpwire-gateway-server"), "stringData")["api-key"]);
    const marker = `pod-run-${process.pid}-${Date.now()}`;
    const run = startEntrypoint({
      ...configMapData(),
      MCPWIRE_GATEWAY_LISTEN: "127.0.0.1:0",
      MCPWIRE_GATEWAY_ADMIN_LISTEN: "127.0.0.1:0",
      MCPWIRE_GATEWAY_TOKEN_FILE: tokenFile,
      // The drain delay waits for endpoints that are not there; the ConfigMap's 5s is still read at start by every other run.
      MCPWIRE_GATEWAY_DRAIN_DELAY: "1",
      MCPWIRE_GATEWAY_TARGET: `'${process.execPath}' '${EVERYTHING_ENTRY}' stdio ${marker}`,
      MCPWIRE_IMAGE_APP_DIR: ROOT,
      MCP_SERVER_API_KEY: serverKey,
      UNLISTED_SECRET: "never-for-a-child",
    });
    const listening = await run.stderrLine((line) => line.event === "listening");
    const url = String(listening.url);
    const adminUrl = String(listening.adminUrl);

    await expect.poll(async () => (await fetch(`${adminUrl}/readyz`)).status, { timeout: RUN_DEADLINE_MS }).toBe(200);
    expect((await fetch(`${adminUrl}/healthz`)).status).toBe(200);

    // No token, no answer.
    const anonymous = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
    });
    expect(anonymous.status).toBe(401);

    const client = await connect(url, { headers: { authorization: `Bearer ${token}` } });
    try {
      const result = await client.callTool("get-env");
      const childEnv = JSON.parse(String((result.content[0] as { text: string }).text)) as Record<string, string>;
      expect(childEnv.MCP_SERVER_API_KEY).toBe(serverKey);
      expect(childEnv.UNLISTED_SECRET).toBeUndefined();
      expect(Object.keys(childEnv).filter((name) => name.startsWith("MCPWIRE_"))).toEqual([]);
    } finally {
      await client.close();
    }
    // The children (the gateway's own command line holds the marker too, inside its target).
    expect(processesWith(marker).filter((pid) => pid !== run.child.pid).length).toBeGreaterThan(0);

    run.child.kill("SIGTERM");
    expect(await run.exited).toMatchObject({ code: 0, signal: null });
    expect(processesWith(marker)).toEqual([]);
  });
});
