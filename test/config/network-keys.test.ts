/**
 * `proxy`, `ca`, `cert`, `key` and `passphrase` in declarations, mcpServers files and the
 * environment overrides: checked when read, refused on a stdio server, and handed to the
 * transport that `transportFor` builds.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { applyEnvOverrides } from "../../src/config/env-overrides.js";
import { parseServerConfig } from "../../src/config/server-config.js";
import { transportFor } from "../../src/index.js";

const where = 'mcp.json: server "handbook"';

describe("declarations", () => {
  it("take proxy and the TLS keys on http, sse and websocket servers, a file as { file }", () => {
    for (const [transport, url] of [["http", "https://h/mcp"], ["sse", "https://h/sse"], ["websocket", "wss://h/mcp"]] as const) {
      const declared = { name: "handbook", transport, url, proxy: "http://proxy.corp:3128", ca: { file: "/etc/corp-ca.pem" }, cert: { file: "c.pem" }, key: { file: "k.pem" }, passphrase: "pw" };
      expect(parseServerConfig(declared, where)).toEqual(declared);
    }
    expect(parseServerConfig({ name: "h", transport: "http", url: "https://h/mcp", proxy: false, ca: [{ file: "a.pem" }, { file: "b.pem" }] }, where)).toMatchObject({
      proxy: false,
      ca: [{ file: "a.pem" }, { file: "b.pem" }],
    });
  });

  it.each([
    [{ transport: "stdio", command: "x", proxy: false }, 'a stdio server takes no "proxy"'],
    [{ transport: "http", url: "https://h/mcp", proxy: "socks5://p:1" }, '"proxy" must be an http: or https: URL'],
    [{ transport: "http", url: "https://h/mcp", proxy: true }, '"proxy" must be a proxy URL (http://host:port) or false'],
    [{ transport: "http", url: "https://h/mcp", cert: { file: "c.pem" } }, '"cert" needs its private key in "key"'],
    [{ transport: "http", url: "https://h/mcp", ca: "/etc/corp-ca.pem" }, '"ca" is not PEM text (no "-----BEGIN" line); to read a file give { file: "<path>" }'],
    [{ transport: "websocket", url: "wss://h/mcp", proxie: "http://p:1" }, 'unknown key "proxie" (did you mean "proxy"?)'],
  ])("refuse %j", (declared, message) => {
    expect(() => parseServerConfig({ name: "handbook", ...declared }, where)).toThrow(`${where}: ${message}`);
  });

  it("never repeat a proxy URL's password when refusing it", () => {
    expect(() => parseServerConfig({ name: "h", transport: "http", url: "https://h/mcp", proxy: "ftp://ada:hunter2@p" }, where)).toThrow(/^(?!.*hunter2)/);
  });

  it("reach the transport: a declared proxy and TLS keys are checked again there", () => {
    const folder = mkdtempSync(join(tmpdir(), "mcpwire-network-keys-"));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const ca = join(folder, "ca.pem");
    writeFileSync(ca, "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
    const config = parseServerConfig({ name: "h", transport: "http", url: "https://h/mcp", proxy: false, ca: { file: ca } }, where);
    expect(transportFor(config).kind).toBe("streamable-http");
    // A declared file is only a path when read; the transport refuses one it cannot read.
    const missing = parseServerConfig({ name: "h", transport: "http", url: "https://h/mcp", ca: { file: `${ca}.missing` } }, where);
    expect(() => transportFor(missing)).toThrow(/the "ca" file .*ca\.pem\.missing could not be read \(ENOENT\)/);
    // An option given in code is the most specific word, and is checked as the transport checks it.
    expect(() => transportFor(config, { cert: { file: "c.pem" } })).toThrow(/"cert" needs its private key/);
  });
});

describe("environment overrides", () => {
  it("PROXY (or false), CA, CERT, KEY (paths) and PASSPHRASE set the keys", () => {
    const env = {
      MCPWIRE_SERVER_HANDBOOK_PROXY: "http://proxy.corp:3128",
      MCPWIRE_SERVER_HANDBOOK_CA: "/etc/corp-ca.pem",
      MCPWIRE_SERVER_HANDBOOK_CERT: "/run/secrets/client.pem",
      MCPWIRE_SERVER_HANDBOOK_KEY: "/run/secrets/client-key.pem",
      MCPWIRE_SERVER_HANDBOOK_PASSPHRASE: "pw",
    };
    const result = applyEnvOverrides({ name: "handbook", transport: "http", url: "https://h/mcp" }, "handbook", env);
    expect(result).toMatchObject({
      proxy: "http://proxy.corp:3128",
      ca: { file: "/etc/corp-ca.pem" },
      cert: { file: "/run/secrets/client.pem" },
      key: { file: "/run/secrets/client-key.pem" },
      passphrase: "pw",
    });
    expect(() => parseServerConfig(result, where)).not.toThrow();
    expect(applyEnvOverrides({ name: "handbook", transport: "http", url: "https://h/mcp", proxy: "http://p:1" }, "handbook", { MCPWIRE_SERVER_HANDBOOK_PROXY: "false" }).proxy).toBe(false);
  });
});
