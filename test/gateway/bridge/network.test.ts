/**
 * The bridge takes the proxy and TLS flags as the other commands do: `--ca`, `--cert` and `--key`
 * reach a remote behind mutual TLS, `--proxy` sends its requests through a forward proxy, and
 * `--no-proxy` keeps them away from the proxy the environment names.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startHttpContractServer } from "../../fixtures/http-contract-server.js";
import { netTestKit } from "../../net/helpers.js";
import { exitOf, openLegacy, startBridge, type BridgeProcess } from "./bridge-process.js";

const kit = netTestKit();
let dir: string;
const bridges: BridgeProcess[] = [];
const started = (running: BridgeProcess): BridgeProcess => (bridges.push(running), running);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mcpwire-bridge-net-"));
});
afterEach(async () => {
  await Promise.all(bridges.splice(0).map((running) => running.stop()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NO_PROXY_VARIABLES = { HTTP_PROXY: undefined, http_proxy: undefined, HTTPS_PROXY: undefined, https_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined };

async function server(): Promise<string> {
  return kit.own(await startHttpContractServer({ replies: "sse", stateful: true })).url;
}

async function echoes(running: BridgeProcess): Promise<void> {
  await openLegacy(running);
  running.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "secured" } } });
  expect((await running.answer(1)).result?.content).toEqual([{ type: "text", text: "secured" }]);
  running.closeStdin();
  expect((await exitOf(running)).code).toBe(0);
}

describe("the bridge's network flags", () => {
  it("--ca, --cert and --key reach a remote behind mutual TLS; without --cert the handshake fails into an error answer", async () => {
    const { url, front, certs } = await kit.secured(await server(), { clientCa: true });
    const files = { ca: join(dir, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem") };
    await writeFile(files.ca, certs.caCert);
    await writeFile(files.cert, certs.clientCert);
    await writeFile(files.key, certs.clientKey);
    await echoes(started(startBridge(url, ["--ca", files.ca, "--cert", files.cert, "--key", files.key], NO_PROXY_VARIABLES)));
    expect(front.handshakes).toBeGreaterThan(0);

    const withoutCert = started(startBridge(url, ["--ca", files.ca], NO_PROXY_VARIABLES));
    withoutCert.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "h", version: "1" } } });
    expect((await withoutCert.answer(0)).error?.data?.reason).toBe("UNAVAILABLE");
  });

  it("--proxy sends the requests through the proxy; --no-proxy overrides HTTP_PROXY", async () => {
    const url = await server();
    const proxy = await kit.proxy();
    await echoes(started(startBridge(url, ["--proxy", proxy.origin], NO_PROXY_VARIABLES)));
    const target = new URL(url).host;
    expect(proxy.seen.some((request) => request.target === target)).toBe(true);

    const seen = proxy.seen.length;
    await echoes(started(startBridge(url, ["--no-proxy"], { ...NO_PROXY_VARIABLES, HTTP_PROXY: proxy.origin })));
    expect(proxy.seen.length).toBe(seen);
  });
});
