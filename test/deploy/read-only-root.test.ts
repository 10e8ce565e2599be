/**
 * The pod's filesystem and user, simulated on the host (there is no container runtime here): the
 * entrypoint runs in a mount namespace of its own (unshare), where the root filesystem is
 * read-only and /tmp is a fresh tmpfs, as uid and gid 10001 (setpriv), with mcpwire where the
 * image's /app would be and the server installed and linked as the image's /opt/mcp-server.
 * Everything the gateway, Node and server-everything write must then go to /tmp.
 *
 * It needs root, util-linux's unshare and setpriv, and the right to mount: elsewhere it is skipped.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/index.js";
import { RUN_DEADLINE_MS, killedAfterEach, startEntrypoint } from "./entrypoint-run.js";
import { configMapData } from "./gateway-settings.js";
import { envPairs, parseDockerfile, withKeyword } from "./dockerfile.js";
import { DEPLOY, ROOT, at, manifest } from "./manifests.js";

const GATEWAY_CLI_BUILT = existsSync(`${ROOT}dist/cli/main.js`);
/** The image's user (deploy/Dockerfile, USER). */
const IMAGE_UID = 10001;

/** Whether this process may make a mount namespace and mount in it. */
function canSandbox(): boolean {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  const probe = spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", "mount -t tmpfs tmpfs /media && command -v setpriv"], { stdio: "ignore" });
  return probe.status === 0;
}

/**
 * Mounts the image's layout in a private mount namespace, makes the root read-only, and execs the
 * entrypoint as the image's user: $1 is mcpwire's folder, shown at /media (the image's /app), $2
 * what the image holds in /opt (the installed server and, here, the Secret's token).
 */
/** Where mcpwire's folder is seen inside the sandbox (the image's /app). */
const SANDBOX_APP_DIR = "/media";

const SANDBOX = `set -eu
mount --bind "$1" ${SANDBOX_APP_DIR}
mount --bind "$2" /opt
mount -t tmpfs -o mode=1777,size=64m tmpfs /tmp
mount -o remount,bind,ro /
mount -o remount,bind,ro ${SANDBOX_APP_DIR}
mount -o remount,bind,ro /opt
exec setpriv --reuid=${IMAGE_UID} --regid=${IMAGE_UID} --clear-groups --no-new-privs ${SANDBOX_APP_DIR}/deploy/entrypoint.sh`;

/** The variables the image's last stage sets (deploy/Dockerfile, ENV). */
function imageEnv(): Record<string, string> {
  const runtime = parseDockerfile(readFileSync(`${DEPLOY}Dockerfile`, "utf8")).stages.at(-1)!;
  return Object.assign({}, ...withKeyword(runtime, "ENV").map(envPairs)) as Record<string, string>;
}

/** The mount points a process sees, each with its mount options (/proc/<pid>/mountinfo; the last mount on a point wins). */
function mountsOf(pid: number): Map<string, string> {
  const mounts = new Map<string, string>();
  for (const line of readFileSync(`/proc/${pid}/mountinfo`, "utf8").split("\n").filter(Boolean)) {
    const fields = line.split(" ");
    mounts.set(fields[4]!, fields[5]!);
  }
  return mounts;
}

killedAfterEach();

describe.skipIf(!GATEWAY_CLI_BUILT || !canSandbox())("the entrypoint on a read-only root, as the image's user", () => {
  let scratch: string;
  let opt: string;
  const token = String(at(manifest("Secret", "mcpwire-gateway-token"), "stringData").token);

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "mcpwire-ro-"));
    opt = join(scratch, "opt");
    // The image's /opt/mcp-server: the package in its node_modules (mcpwire's own copy), its
    // command linked by the script the build runs.
    const packageDir = join(opt, "mcp-server", "node_modules", "@modelcontextprotocol");
    mkdirSync(packageDir, { recursive: true });
    symlinkSync(realpathSync(`${ROOT}node_modules/@modelcontextprotocol/server-everything`), join(packageDir, "server-everything"));
    const linked = spawnSync(process.execPath, [`${DEPLOY}link-server-bin.mjs`, join(opt, "mcp-server"), "@modelcontextprotocol/server-everything"], { encoding: "utf8" });
    expect(linked.status, linked.stderr).toBe(0);
    // The script ran on the host, through the host's path; inside the sandbox the package is
    // reached through mcpwire's folder at /media, since a repository under /tmp (a CI clone) is
    // hidden there by the tmpfs. The command's link is relative, so it follows.
    rmSync(join(packageDir, "server-everything"));
    symlinkSync(`${SANDBOX_APP_DIR}/node_modules/@modelcontextprotocol/server-everything`, join(packageDir, "server-everything"));
    mkdirSync(join(opt, "secrets"));
    writeFileSync(join(opt, "secrets", "token"), token);
    for (const dir of [scratch, opt, join(opt, "secrets")]) chmodSync(dir, 0o755);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("serves the image's default server, writing nothing outside /tmp, and leaves no child after SIGTERM", async () => {
    const run = startEntrypoint(
      {
        // The image's ENV, then the pod's: the ConfigMap and the Secret's server key.
        ...imageEnv(),
        ...configMapData(),
        MCPWIRE_GATEWAY_LISTEN: "127.0.0.1:0",
        MCPWIRE_GATEWAY_ADMIN_LISTEN: "127.0.0.1:0",
        MCPWIRE_GATEWAY_TOKEN_FILE: "/opt/secrets/token",
        MCPWIRE_GATEWAY_DRAIN_DELAY: "1",
        MCPWIRE_IMAGE_APP_DIR: SANDBOX_APP_DIR,
        MCP_SERVER_API_KEY: String(at(manifest("Secret", "mcpwire-gateway-server"), "stringData")["api-key"]),
      },
      ["unshare", "--mount", "--propagation", "private", "sh", "-c", SANDBOX, "sandbox", ROOT, opt],
    );
    const spawned = run.stderrLine((line) => line.event === "child_spawned");
    const listening = await run.stderrLine((line) => line.event === "listening");
    const childPid = Number((await spawned).pid);
    // The gateway and its children run as the image's user, not as root.
    for (const pid of [run.child.pid!, childPid]) expect(readFileSync(`/proc/${pid}/status`, "utf8")).toMatch(new RegExp(`^Uid:\\s+${IMAGE_UID}\\s`, "m"));
    expect(readFileSync(`/proc/${childPid}/cmdline`, "utf8")).toContain("/opt/mcp-server/bin/mcp-server");
    // What the gateway sees: a read-only root and a writable tmpfs on /tmp.
    const mounts = mountsOf(run.child.pid!);
    expect(mounts.get("/")).toMatch(/^ro\b/);
    expect(mounts.get(SANDBOX_APP_DIR)).toMatch(/^ro\b/);
    expect(mounts.get("/tmp")).toMatch(/^rw\b/);

    await expect.poll(async () => (await fetch(`${String(listening.adminUrl)}/readyz`)).status, { timeout: RUN_DEADLINE_MS }).toBe(200);
    const client = await connect(String(listening.url), { headers: { authorization: `Bearer ${token}` } });
    try {
      const echoed = await client.callTool("echo", { message: "read-only" });
      expect(JSON.stringify(echoed.content)).toContain("read-only");
      const printed = (await client.callTool("get-env")).content[0] as { text: string };
      expect((JSON.parse(printed.text) as Record<string, string>).HOME).toBe("/tmp");
    } finally {
      await client.close();
    }

    run.child.kill("SIGTERM");
    const { code, signal, stderr } = await run.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // Nothing failed to write (EROFS, EACCES) on the way.
    expect(stderr).not.toMatch(/EROFS|EACCES|read-only file system/i);
    const pids = stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { event?: string; pid?: number })
      .filter((line) => line.event === "child_spawned")
      .map((line) => line.pid!);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) expect(existsSync(`/proc/${pid}`), `child ${pid} is gone`).toBe(false);
  });
});
