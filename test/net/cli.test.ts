/**
 * What only a fresh process shows: Node reads NODE_EXTRA_CA_CERTS when it starts, and the proxy
 * variables come from the environment. The built `mcpwire` is run with them set, against a
 * loopback TLS server and a forward proxy the test starts.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpContractServer } from "../fixtures/http-contract-server.js";
import { runBin } from "../cli/helpers.js";
import { netTestKit } from "./helpers.js";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { closedPort } from "../helpers/ports.js";

const kit = netTestKit();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mcpwire-net-cli-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** No proxy variable of the host leaks into a run unless the test sets it. */
const NO_PROXY_VARIABLES = { HTTP_PROXY: undefined, http_proxy: undefined, HTTPS_PROXY: undefined, https_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined };

async function server(): Promise<string> {
  return kit.own(await startHttpContractServer({ replies: "json", stateful: true })).url;
}

describe("NODE_EXTRA_CA_CERTS", () => {
  it("is respected: a server its CA signed is trusted without --ca", async () => {
    const { url, certs } = await kit.secured(await server());
    const extra = join(dir, "extra-ca.pem");
    await writeFile(extra, certs.caCert);
    const run = await runBin(["tools", url, "--no-proxy"], { env: { ...NO_PROXY_VARIABLES, NODE_EXTRA_CA_CERTS: extra } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("echo");
  });

  it("without it (and without --ca) the same server is refused: exit 4, the TLS cause in plain words", async () => {
    const { url } = await kit.secured(await server());
    const run = await runBin(["tools", url, "--no-proxy"], { env: { ...NO_PROXY_VARIABLES, NODE_EXTRA_CA_CERTS: undefined } });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("the server's certificate is not trusted: give its CA with `ca`");
  });

  it("stays trusted when --ca adds another CA: --ca adds, it does not replace", async () => {
    const { url, certs } = await kit.secured(await server());
    const extra = join(dir, "extra-ca-2.pem");
    const other = join(dir, "other-ca.pem");
    await writeFile(extra, certs.caCert);
    await writeFile(other, certs.otherCaCert);
    const run = await runBin(["tools", url, "--no-proxy", "--ca", other], { env: { ...NO_PROXY_VARIABLES, NODE_EXTRA_CA_CERTS: extra } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  it("--ca alone trusts the server", async () => {
    const { url, certs } = await kit.secured(await server());
    const ca = join(dir, "ca.pem");
    await writeFile(ca, certs.caCert);
    const run = await runBin(["tools", url, "--no-proxy", "--ca", ca], { env: NO_PROXY_VARIABLES });
    expect(run.code).toBe(0);
  });

  it("--cert and --key give the client certificate for mutual TLS", async () => {
    const { url, certs } = await kit.secured(await server(), { clientCa: true });
    const files = { ca: join(dir, "m-ca.pem"), cert: join(dir, "m-cert.pem"), key: join(dir, "m-key.pem") };
    await writeFile(files.ca, certs.caCert);
    await writeFile(files.cert, certs.clientCert);
    await writeFile(files.key, certs.clientKey);
    const withCert = await runBin(["tools", url, "--ca", files.ca, "--cert", files.cert, "--key", files.key], { env: NO_PROXY_VARIABLES });
    expect(withCert.stderr).toBe("");
    expect(withCert.code).toBe(0);
    const without = await runBin(["tools", url, "--ca", files.ca], { env: NO_PROXY_VARIABLES });
    expect(without.code).toBe(4);
    expect(without.stderr).toContain("give `cert` and `key`");
  });
});

describe("the proxy variables", () => {
  it("HTTP_PROXY sends the calls through the proxy", async () => {
    const url = await server();
    const proxy = await kit.proxy();
    const run = await runBin(["tools", url], { env: { ...NO_PROXY_VARIABLES, HTTP_PROXY: proxy.origin } });
    expect(run.code).toBe(0);
    expect(proxy.seen.length).toBeGreaterThan(0);
    expect(proxy.seen.every((seen) => seen.target === new URL(url).host)).toBe(true);
  });

  it("NO_PROXY bypasses it for the hosts it lists", async () => {
    const url = await server();
    const proxy = await kit.proxy();
    const run = await runBin(["tools", url], { env: { ...NO_PROXY_VARIABLES, HTTP_PROXY: proxy.origin, NO_PROXY: "localhost,127.0.0.1" } });
    expect(run.code).toBe(0);
    expect(proxy.seen).toEqual([]);
  });

  it("--no-proxy bypasses it whatever the variables say", async () => {
    const url = await server();
    const proxy = await kit.proxy();
    const run = await runBin(["tools", url, "--no-proxy"], { env: { ...NO_PROXY_VARIABLES, HTTP_PROXY: proxy.origin } });
    expect(run.code).toBe(0);
    expect(proxy.seen).toEqual([]);
  });

  it("a refusing proxy is exit 4, naming the proxy without its credentials", async () => {
    const { url } = await kit.secured(await server());
    const proxy = await kit.proxy();
    proxy.refuseWith(403);
    const run = await runBin(["tools", url, "--verbose"], { env: { ...NO_PROXY_VARIABLES, HTTPS_PROXY: `http://ada:hunter2@127.0.0.1:${proxy.port}` } });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(`the proxy ${proxy.origin} answered HTTP 403`);
    expect(run.stderr).not.toContain("hunter2");
    expect(run.stderr).not.toContain(Buffer.from("ada:hunter2").toString("base64"));
    expect(proxy.seen[0]!.proxyAuthorization).toBe(`Basic ${Buffer.from("ada:hunter2").toString("base64")}`);
  });

  it("a proxy variable that is not an http(s) URL is refused naming the variable", async () => {
    const url = await server();
    const run = await runBin(["tools", url], { env: { ...NO_PROXY_VARIABLES, HTTP_PROXY: "socks5://127.0.0.1:1080" } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("HTTP_PROXY must be an http: or https: URL");
  });
});

describe("TLS files that cannot be read", () => {
  it("a --ca, --cert or --key file that is not there: a configuration error (exit 3) naming the flag and the path, before connecting", async () => {
    const port = await closedPort();
    const missing = join(dir, "absent-ca.pem");
    const run = await runBin(["tools", `https://127.0.0.1:${port}/mcp`, "--no-proxy", "--ca", missing], { env: NO_PROXY_VARIABLES });
    expect(run.code).toBe(ExitCode.CONFIG);
    expect(run.stderr).toBe(`mcpwire: --ca ${missing}: the file could not be read (ENOENT); give the path of a readable PEM file\n`);

    const cert = join(dir, "absent-cert.pem");
    const key = join(dir, "absent-key.pem");
    const mutual = await runBin(["tools", `https://127.0.0.1:${port}/mcp`, "--no-proxy", "--cert", cert, "--key", key], { env: NO_PROXY_VARIABLES });
    expect(mutual.code).toBe(ExitCode.CONFIG);
    expect(mutual.stderr).toMatch(new RegExp(`^mcpwire: --cert ${escaped(cert)}: the file could not be read \\(ENOENT\\)`));
  });

  it("a declared cert or key file that is not there: a configuration error (exit 3) naming the key and the path", async () => {
    const port = await closedPort();
    const cert = join(dir, "declared-cert.pem");
    const key = join(dir, "declared-key.pem");
    await writeFile(cert, "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
    const config = join(dir, "tls-mcp.json");
    await writeFile(config, JSON.stringify({ mcpServers: { corp: { url: `https://127.0.0.1:${port}/mcp`, cert: { file: cert }, key: { file: key } } } }));
    const run = await runBin(["tools", "corp", "--config", config], { env: NO_PROXY_VARIABLES });
    expect(run.code).toBe(ExitCode.CONFIG);
    expect(run.stderr).toMatch(new RegExp(`^mcpwire: .*the "key" file ${escaped(key)} could not be read \\(ENOENT\\); give the path of a readable PEM file$`, "m"));
    expect(run.stderr.split("\n")).toHaveLength(2);
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
