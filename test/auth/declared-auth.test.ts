/**
 * The `auth` block of a server declaration: checked when read, and turned into a login that uses
 * the tokens `mcpwire login` keeps; without them, a server that asks for a login fails at once,
 * naming the command.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpTransportError, connect, loadServerConfig, parseServerConfig } from "../../src/index.js";
import { startEndpoint, type ScriptedEndpoint } from "../fixtures/http-endpoint.js";
import { rejection } from "../helpers/failure.js";

const owned: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.allSettled(owned.splice(0).map((thing) => thing.close()));
});

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
      owned.push(endpoint);
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
