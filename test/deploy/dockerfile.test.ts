/**
 * deploy/Dockerfile, read (there is no Docker daemon here to build it): a slim Node LTS base,
 * mcpwire compiled in one stage and only its runtime dependencies in the last, the wrapped server
 * installed at build time (never `npx` at start), tini as PID 1, a numeric non-root user, nothing
 * written outside /tmp, and a build context that lets in only what the stages copy.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { envPairs, execForm, parseDockerfile, withKeyword, type Stage } from "./dockerfile.js";
import { gatewaySettings, portOf } from "./gateway-settings.js";
import { DEPLOY, gatewayVariables } from "./manifests.js";

const text = readFileSync(`${DEPLOY}Dockerfile`, "utf8");
const dockerfile = parseDockerfile(text);
const runtime = dockerfile.stages.at(-1)!;
const stage = (name: string): Stage => {
  const found = dockerfile.stages.find((s) => s.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
};
const runs = (s: Stage) => withKeyword(s, "RUN").map((i) => i.args);

describe("the Dockerfile", () => {
  it("starts every stage from one slim Node LTS image named by an exact tag", () => {
    const base = dockerfile.globalArgs.NODE_IMAGE;
    expect(base).toMatch(/^node:(\d*[02468])(\.\d+\.\d+)?-[a-z]+-slim$/);
    expect(base).not.toContain("@sha256");
    for (const s of dockerfile.stages) expect(s.from).toBe("${NODE_IMAGE}");
  });

  it("compiles mcpwire in a build stage and copies only dist/ from it", () => {
    const build = stage("build");
    expect(runs(build).some((r) => r.startsWith("npm ci"))).toBe(true);
    expect(runs(build)).toContain("npm run build");
    const copies = withKeyword(runtime, "COPY").map((i) => i.args);
    expect(copies).toContain("--from=build /src/dist ./dist");
    expect(copies.filter((c) => c.startsWith("--from=build"))).toHaveLength(1);
  });

  it("installs only mcpwire's runtime dependencies in the image that runs", () => {
    expect(runs(runtime).some((r) => /^npm ci --omit=dev\b/.test(r))).toBe(true);
  });

  it("installs the wrapped server at build time, from build arguments, into its own folder", () => {
    const server = stage("server");
    const args = withKeyword(server, "ARG").map((i) => i.args);
    expect(args).toContain("MCP_SERVER_PACKAGE=@modelcontextprotocol/server-everything");
    expect(args.some((a) => /^MCP_SERVER_VERSION=\d/.test(a))).toBe(true);
    expect(withKeyword(server, "WORKDIR").map((i) => i.args)).toEqual(["/opt/mcp-server"]);
    expect(runs(server).some((r) => r.includes('npm install --omit=dev') && r.includes('"${MCP_SERVER_PACKAGE}@${MCP_SERVER_VERSION}"'))).toBe(true);
    expect(runs(server).some((r) => r.includes("link-server-bin.mjs /opt/mcp-server"))).toBe(true);
    expect(withKeyword(runtime, "COPY").map((i) => i.args)).toContain("--from=server /opt/mcp-server /opt/mcp-server");
  });

  it("never runs npx, at build or at start", () => {
    for (const s of dockerfile.stages) for (const i of s.instructions) expect(i.args, `line ${i.line}`).not.toMatch(/\bnpx\b/);
    expect(readFileSync(`${DEPLOY}entrypoint.sh`, "utf8")).not.toMatch(/^[^#]*\bnpx\b/m);
  });

  it("runs tini from Debian's package as PID 1, in front of the entrypoint", () => {
    expect(runs(runtime).some((r) => /apt-get install -y --no-install-recommends tini\b/.test(r))).toBe(true);
    const entrypoint = withKeyword(runtime, "ENTRYPOINT");
    expect(entrypoint).toHaveLength(1);
    const argv = execForm(entrypoint[0]!);
    expect(argv.slice(0, 2)).toEqual(["/usr/bin/tini", "--"]);
    // The script it starts is the one copied in.
    expect(withKeyword(runtime, "COPY").map((i) => i.args)).toContain(`--chmod=0755 deploy/entrypoint.sh ${argv[2]}`);
    expect(withKeyword(runtime, "CMD")).toEqual([]);
  });

  it("runs as a numeric user and group other than root, created with those numbers", () => {
    const users = withKeyword(runtime, "USER");
    expect(users).toHaveLength(1);
    const [uid, gid] = users[0]!.args.split(":");
    expect(uid).toMatch(/^\d+$/);
    expect(gid).toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
    expect(Number(gid)).toBeGreaterThan(0);
    expect(runs(runtime).some((r) => r.includes(`useradd --system --uid ${uid} --gid ${gid}`))).toBe(true);
    // The user is the last word: nothing after it runs as root.
    expect(runtime.instructions.findIndex((i) => i.keyword === "USER")).toBeGreaterThan(runtime.instructions.findLastIndex((i) => i.keyword === "RUN" || i.keyword === "COPY"));
  });

  it("points HOME and npm's cache into /tmp, the one writable mount of a read-only root", () => {
    const env = Object.assign({}, ...withKeyword(runtime, "ENV").map(envPairs)) as Record<string, string>;
    expect(env.HOME).toBe("/tmp");
    expect(env.npm_config_cache?.startsWith("/tmp/")).toBe(true);
  });

  it("sets no variable the gateway would refuse, and listens where it EXPOSEs", () => {
    const env = Object.assign({}, ...withKeyword(runtime, "ENV").map(envPairs)) as Record<string, string>;
    const known = new Set(gatewayVariables().map((v) => v.name));
    const gatewayOnes = Object.keys(env).filter((name) => name.startsWith("MCPWIRE_GATEWAY_"));
    expect(gatewayOnes.filter((name) => !known.has(name))).toEqual([]);
    const exposed = withKeyword(runtime, "EXPOSE").flatMap((i) => i.args.split(/\s+/)).map(Number);
    expect(exposed.sort()).toEqual([portOf(env.MCPWIRE_GATEWAY_LISTEN!), portOf(env.MCPWIRE_GATEWAY_ADMIN_LISTEN!)].sort());
    // The manifests' ConfigMap listens on the same ports.
    const settings = gatewaySettings();
    expect(portOf(settings.listen)).toBe(portOf(env.MCPWIRE_GATEWAY_LISTEN!));
    expect(portOf(settings.adminListen!)).toBe(portOf(env.MCPWIRE_GATEWAY_ADMIN_LISTEN!));
  });

  it("has no HEALTHCHECK, and says Kubernetes would ignore one", () => {
    expect(withKeyword(runtime, "HEALTHCHECK")).toEqual([]);
    expect(text).toMatch(/No HEALTHCHECK: Kubernetes ignores it/);
  });

  it("copies from the context only what its ignore file lets in", () => {
    const ignore = readFileSync(`${DEPLOY}Dockerfile.dockerignore`, "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
    expect(ignore[0]).toBe("*");
    const allowed = ignore.filter((l) => l.startsWith("!")).map((l) => l.slice(1));
    const sources = dockerfile.stages
      .flatMap((s) => withKeyword(s, "COPY"))
      .filter((i) => !i.args.startsWith("--from="))
      .flatMap((i) => i.args.split(/\s+/).filter((word) => !word.startsWith("--")).slice(0, -1));
    for (const source of sources) {
      expect(allowed.some((a) => a === source || (a.endsWith("/") && `${source}/`.startsWith(a))), source).toBe(true);
    }
  });
});
