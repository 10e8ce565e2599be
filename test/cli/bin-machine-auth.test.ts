/**
 * The real `mcpwire` bin with a server whose declaration holds a machine flow: a CI job without
 * a terminal gets its token by the declared client credentials (the secret from the environment
 * through `${env:NAME}`), and a refused secret fails with the token step named and the secret
 * nowhere in the output.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import type { ScriptedEndpoint } from "../fixtures/http-endpoint.js";
import { startProtectedEndpoint } from "../fixtures/oauth/protected-endpoint.js";
import { startScriptedAuthorizationServer, type ScriptedAuthorizationServer } from "../fixtures/oauth/scripted-authorization-server.js";
import { leaksIn } from "../helpers/redaction.js";
import { runBin } from "./helpers.js";

const SECRET = "handbook-secret-value";
let as: ScriptedAuthorizationServer;
let endpoint: ScriptedEndpoint;
let configFile: string;
const home = mkdtempSync(join(tmpdir(), "mcpwire-machine-"));

beforeAll(async () => {
  as = await startScriptedAuthorizationServer({ clients: { "handbook-agent": SECRET } });
  endpoint = await startProtectedEndpoint(as);
  configFile = join(home, "mcp.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        handbook: { url: endpoint.url, auth: { type: "client_credentials", clientId: "handbook-agent", clientSecret: "${env:HANDBOOK_SECRET}" } },
      },
    }),
  );
});
afterAll(async () => {
  await Promise.all([endpoint?.close(), as?.close()]);
});

describe("mcpwire with a declared machine flow", () => {
  it("gets its token by client credentials without a terminal, before the first request", async () => {
    const { code, stdout, stderr } = await runBin(["tools", "handbook", "--config", configFile], { env: { HANDBOOK_SECRET: SECRET, XDG_CONFIG_HOME: home } });
    expect(stderr).toBe("");
    expect(code).toBe(ExitCode.OK);
    expect(stdout).toMatch(/^echo/m);
    expect(as.requests.filter((request) => request.form.grant_type === "client_credentials")).toHaveLength(1);
    expect(as.requests.filter((request) => request.path === "/authorize")).toEqual([]);
    expect(endpoint.requests.filter((request) => request.path === "/mcp" && request.headers.authorization === undefined)).toEqual([]);
  });

  it("a refused secret fails at the token step, naming the OAuth error, never the secret", async () => {
    const wrong = "wrong-secret-value";
    const { code, stdout, stderr } = await runBin(["tools", "handbook", "--config", configFile, "--verbose"], { env: { HANDBOOK_SECRET: wrong, XDG_CONFIG_HOME: home } });
    expect(code).toBe(ExitCode.PROTOCOL);
    expect(stderr).toContain("invalid_client");
    expect(leaksIn([wrong, SECRET, "leak-check", ...as.issued.map((token) => token.access)], [stdout, stderr])).toEqual([]);
  });
});
