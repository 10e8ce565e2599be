/**
 * The bridge's headers come from a file (`--header-file`) or the environment
 * (`MCPWIRE_BRIDGE_HEADERS`), never from argv: they reach the remote on every request, and their
 * values appear in no line on stderr or stdout, not even in an error.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEndpoint, type ScriptedEndpoint } from "../../fixtures/http-endpoint.js";
import { exitOf, openLegacy, startBridge, type BridgeProcess } from "./bridge-process.js";

const SECRET = "bridge-secret-7f3a9c";
const dir = mkdtempSync(join(tmpdir(), "mcpwire-bridge-headers-"));

let endpoint: ScriptedEndpoint | undefined;
let bridge: BridgeProcess | undefined;
afterEach(async () => {
  await bridge?.stop();
  await endpoint?.close();
  bridge = endpoint = undefined;
});

describe("headers for the remote", () => {
  it("from --header-file reach every request, and show nowhere", async () => {
    endpoint = await startEndpoint();
    const file = join(dir, "headers");
    writeFileSync(file, `# for the remote\nX-Api-Key: ${SECRET}\n\nX-Tenant: blue\n`);
    bridge = startBridge(endpoint.url, ["--header-file", file]);
    await openLegacy(bridge);
    bridge.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } });
    await bridge.answer(1);
    bridge.closeStdin();
    expect((await exitOf(bridge)).code).toBe(0);
    const posts = endpoint.requests.filter((request) => request.method === "POST");
    expect(posts.length).toBeGreaterThanOrEqual(3);
    for (const request of [...posts, ...endpoint.requests.filter((request) => request.method === "DELETE")]) {
      expect(request.headers["x-api-key"]).toBe(SECRET);
      expect(request.headers["x-tenant"]).toBe("blue");
    }
    expect(bridge.stderr()).not.toContain(SECRET);
  });

  it("from MCPWIRE_BRIDGE_HEADERS, with the file winning per name", async () => {
    endpoint = await startEndpoint();
    const file = join(dir, "tenant");
    writeFileSync(file, "X-Tenant: from-the-file\n");
    bridge = startBridge(endpoint.url, ["--header-file", file], { MCPWIRE_BRIDGE_HEADERS: JSON.stringify({ "X-Api-Key": SECRET, "X-Tenant": "from-the-variable" }) });
    await openLegacy(bridge);
    const initialize = endpoint.requests.find((request) => request.body?.method === "initialize")!;
    expect(initialize.headers["x-api-key"]).toBe(SECRET);
    expect(initialize.headers["x-tenant"]).toBe("from-the-file");
    expect(bridge.stderr()).not.toContain(SECRET);
  });

  it("never from argv: --header is refused, pointing to the file and the variable, its value not repeated", async () => {
    bridge = startBridge("http://127.0.0.1:9/mcp", ["--header", `Authorization: Bearer ${SECRET}`]);
    const exit = await exitOf(bridge);
    expect(exit.code).toBe(2);
    expect(bridge.stderr()).toContain("--header-file");
    expect(bridge.stderr()).toContain("MCPWIRE_BRIDGE_HEADERS");
    expect(bridge.stderr()).not.toContain(SECRET);
    expect(bridge.messages).toEqual([]);
  });

  it("a malformed header file is a usage error naming the line, not its text", async () => {
    const file = join(dir, "broken");
    writeFileSync(file, `X-Good: fine\n${SECRET} without a colon\n`);
    bridge = startBridge("http://127.0.0.1:9/mcp", ["--header-file", file]);
    expect((await exitOf(bridge)).code).toBe(2);
    expect(bridge.stderr()).toContain("line 2");
    expect(bridge.stderr()).not.toContain(SECRET);
  });

  it("a bad MCPWIRE_BRIDGE_HEADERS is a usage error that does not repeat it", async () => {
    bridge = startBridge("http://127.0.0.1:9/mcp", [], { MCPWIRE_BRIDGE_HEADERS: `Authorization: ${SECRET}` });
    expect((await exitOf(bridge)).code).toBe(2);
    expect(bridge.stderr()).toContain("MCPWIRE_BRIDGE_HEADERS is not JSON");
    expect(bridge.stderr()).not.toContain(SECRET);
  });

  it("a header file value with a control byte or a byte that is not Latin-1 is refused at start, naming the file, line and header, not the value", async () => {
    for (const [name, bytes] of [
      ["control", Buffer.from(`X-Good: fine\nX-Api-Key: ${SECRET}\x01\n`)],
      ["not-utf8", Buffer.concat([Buffer.from(`X-Api-Key: ${SECRET}`), Buffer.from([0xe9]), Buffer.from("\n")])],
    ] as const) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      bridge = startBridge("http://127.0.0.1:9/mcp", ["--header-file", file]);
      expect((await exitOf(bridge)).code).toBe(2);
      expect(bridge.stderr()).toContain(file);
      expect(bridge.stderr()).toContain(name === "control" ? "line 2: the value of X-Api-Key" : "line 1: the value of X-Api-Key");
      expect(bridge.stderr()).not.toContain(SECRET);
      expect(bridge.messages).toEqual([]);
      await bridge.stop();
    }
  });

  it("an MCPWIRE_BRIDGE_HEADERS value with a control character is refused at start, not repeated", async () => {
    bridge = startBridge("http://127.0.0.1:9/mcp", [], { MCPWIRE_BRIDGE_HEADERS: JSON.stringify({ "X-Api-Key": `${SECRET}\u0001` }) });
    expect((await exitOf(bridge)).code).toBe(2);
    expect(bridge.stderr()).toContain("MCPWIRE_BRIDGE_HEADERS: the value of X-Api-Key");
    expect(bridge.stderr()).not.toContain(SECRET);
  });
});
