/**
 * The `auth` block of a server declaration: checked when read, and turned into a login that uses
 * the tokens `mcpwire login` keeps; without them, a server that asks for a login fails at once,
 * naming the command.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { McpTransportError, connect, loadServerConfig, parseServerConfig } from "../../src/index.js";
import { startEndpoint, type ScriptedEndpoint } from "../fixtures/http-endpoint.js";
import { rejection } from "../helpers/failure.js";
import { closedAfterEach } from "../helpers/owned.js";

const own = closedAfterEach();

const where = "mcp.json: server \"hosted\"";

describe("a declaration's auth block", () => {
  it("takes a client, a metadata document and a scope, as strings", () => {
    const config = parseServerConfig(
      { name: "hosted", transport: "http", url: "https://example.com/mcp", auth: { clientId: "id", clientSecret: "s", scope: "read" } },
      where,
    );
    expect(config.auth).toEqual({ clientId: "id", clientSecret: "s", scope: "read" });
  });

  it.each([
    [{ type: "client_credentials", clientId: "svc", clientSecret: "s", dpop: true }],
    [{ type: "client_credentials", clientId: "svc", privateKey: { kty: "EC", crv: "P-256", d: "x", x: "y", y: "z" }, signingAlgorithm: "ES256" }],
    [{ type: "workload_identity", assertion: { file: "/var/run/secrets/mcp/token" }, scope: "read" }],
    [{ type: "enterprise_managed", idToken: "t", idpTokenEndpoint: "https://idp.example/token", idpClientId: "idp", clientId: "app", clientSecret: "s" }],
  ])("takes the machine flow %j", (auth) => {
    const config = parseServerConfig({ name: "hosted", transport: "http", url: "https://example.com/mcp", auth }, where);
    expect(config.auth).toEqual(auth);
  });

  it.each([
    [{ type: "browser" }, /"auth.type" must be one of oauth, client_credentials, workload_identity, enterprise_managed/],
    [{ type: "client_credentials", clientId: "svc" }, /exactly one of "clientSecret" and "privateKey"/],
    [{ type: "client_credentials", clientSecret: "s" }, /needs "clientId"/],
    [{ type: "workload_identity", assertion: { file: "" } }, /"auth.assertion" must be a non-empty string or \{ "file": "<path>" \}/],
    [{ type: "workload_identity", assertion: "jwt", clientSecret: "s" }, /unknown key "clientSecret"/],
    [{ type: "client_credentials", clientId: "svc", clientSecret: "s", dpop: "yes" }, /"auth.dpop" must be true or false/],
  ])("refuses the machine flow %j", (auth, message) => {
    expect(() => parseServerConfig({ name: "hosted", transport: "http", url: "https://example.com/mcp", auth }, where)).toThrow(message);
  });

  it("never shows a value it refuses: it may be a secret", () => {
    const refused = () =>
      parseServerConfig({ name: "hosted", transport: "http", url: "https://example.com/mcp", auth: { type: "client_credentials", clientId: "svc", clientSecret: 42, privateKey: "x" } }, where);
    expect(refused).toThrow(/"auth.clientSecret" must be a non-empty string/);
    expect(refused).not.toThrow(/42/);
  });

  it("MCPWIRE_SERVER_<NAME>_AUTH replaces the file's block with the environment's", async () => {
    const folder = mkdtempSync(join(tmpdir(), "mcpwire-auth-env-"));
    const configFile = join(folder, "mcp.json");
    writeFileSync(configFile, JSON.stringify({ mcpServers: { hosted: { url: "https://example.com/mcp", auth: { clientId: "laptop" } } } }));
    const env = { MCPWIRE_SERVER_HOSTED_AUTH: JSON.stringify({ type: "workload_identity", assertion: { file: "/var/run/secrets/mcp/token" } }) };
    const config = await loadServerConfig("hosted", { configFile, env });
    expect(config.auth).toEqual({ type: "workload_identity", assertion: { file: "/var/run/secrets/mcp/token" } });
    await expect(loadServerConfig("hosted", { configFile, env: { MCPWIRE_SERVER_HOSTED_AUTH: "{not json, secret-value" } })).rejects.toThrow(
      /MCPWIRE_SERVER_HOSTED_AUTH must be a JSON object/,
    );
    await expect(loadServerConfig("hosted", { configFile, env: { MCPWIRE_SERVER_HOSTED_AUTH: "{not json, secret-value" } })).rejects.not.toThrow(/secret-value/);
  });

  it.each([
    [{ clientID: "x" }, /unknown key "clientID".*did you mean "clientId"/],
    [{ clientId: 7 }, /"auth.clientId" must be a non-empty string/],
    [{ clientSecret: "s" }, /"auth.clientSecret" needs the "auth.clientId"/],
    ["token", /"auth" must be an object/],
  ])("refuses %j", (auth, message) => {
    expect(() => parseServerConfig({ name: "hosted", transport: "http", url: "https://example.com/mcp", auth }, where)).toThrow(message);
  });

  it("is refused beside an Authorization header, and for a stdio server", () => {
    expect(() =>
      parseServerConfig({ name: "hosted", transport: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" }, auth: {} }, where),
    ).toThrow(/"auth" and an Authorization header/);
    expect(() => parseServerConfig({ name: "local", transport: "stdio", command: "node", auth: {} }, where)).toThrow(/"auth"/);
  });

  it("reads ${env:NAME} in an mcpServers file", async () => {
    const folder = mkdtempSync(join(tmpdir(), "mcpwire-auth-config-"));
    const configFile = join(folder, "mcp.json");
    writeFileSync(configFile, JSON.stringify({ mcpServers: { hosted: { url: "https://example.com/mcp", auth: { clientId: "app", clientSecret: "${env:APP_SECRET}" } } } }));
    const config = await loadServerConfig("hosted", { configFile, env: { APP_SECRET: "from-env" } });
    expect(config.auth).toEqual({ clientId: "app", clientSecret: "from-env" });
  });

  it("without stored tokens, a server asking for a login fails at once naming `mcpwire login`", async () => {
    const folder = mkdtempSync(join(tmpdir(), "mcpwire-auth-home-"));
    const previous = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = folder;
    let endpoint: ScriptedEndpoint | undefined;
    try {
      let metadataUrl = "";
      endpoint = await startEndpoint((request, res) => {
        if (request.path === "/.well-known/oauth-protected-resource/mcp") {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ resource: endpoint!.url, authorization_servers: [endpoint!.origin] }));
          return true;
        }
        if (request.path === "/.well-known/oauth-authorization-server") {
          const issuer = endpoint!.origin;
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, registration_endpoint: `${issuer}/register`, code_challenge_methods_supported: ["S256"] }),
          );
          return true;
        }
        if (request.method !== "POST") return false;
        res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${metadataUrl}"` }).end();
        return true;
      });
      own(endpoint);
      metadataUrl = `${endpoint.origin}/.well-known/oauth-protected-resource/mcp`;
      const error = (await rejection(connect({ name: "hosted", transport: "http", url: endpoint.url, fallback: false, auth: {} }))) as McpTransportError;
      expect(error).toBeInstanceOf(McpTransportError);
      expect(error.authStep).toBe("authorization");
      expect(error.message).toContain("mcpwire login hosted");
      // Nothing was registered: the login stopped before the registration endpoint.
      expect(endpoint.requests.filter((request) => request.path === "/register")).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = previous;
    }
  });
});
