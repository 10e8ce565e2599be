/**
 * The TLS options: their shapes checked when a transport is made, their files read when a
 * connection opens, and `ca` added to the default trust rather than replacing it.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpTransportError, StreamableHttpTransport, WebSocketTransport, SseTransport, connect } from "../../src/index.js";
import { checkTlsOptions, loadTls } from "../../src/transport/net/tls-options.js";
import { failure } from "../helpers/failure.js";
import { testCertificates, type TestCertificates } from "../helpers/test-certificates.js";

let certs: TestCertificates;
let dir: string;
beforeAll(async () => {
  certs = await testCertificates();
  dir = await mkdtemp(join(tmpdir(), "mcpwire-tls-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the shapes, checked when the transport is made", () => {
  it("cert without key, and key without cert, are refused", () => {
    expect(() => checkTlsOptions({ cert: certs.clientCert }, "T")).toThrow(/"cert" needs its private key in "key"/);
    expect(() => checkTlsOptions({ key: certs.clientKey }, "T")).toThrow(/"key" needs the client certificate it belongs to in "cert"/);
  });

  it("a passphrase without a key is refused", () => {
    expect(() => checkTlsOptions({ passphrase: "x" }, "T")).toThrow(/"passphrase" unlocks "key", which is not given/);
  });

  it("text that is not PEM is refused, saying how to give a file", () => {
    expect(() => checkTlsOptions({ ca: "/etc/ssl/corp.pem" }, "T")).toThrow(/"ca" is not PEM text .* give \{ file: "<path>" \}/);
  });

  it("other values are refused naming the option and the shapes taken", () => {
    expect(() => checkTlsOptions({ ca: 42 as never }, "T")).toThrow(/"ca" must be PEM text \(a string or a Buffer\) or \{ file: "<path>" \}/);
    expect(() => checkTlsOptions({ ca: [certs.caCert, { path: "x" } as never] }, "T")).toThrow(/"ca\[1\]" must be PEM text/);
    expect(() => checkTlsOptions({ ca: [] }, "T")).toThrow(/"ca" is an empty list/);
  });

  it("every network transport checks them, and refuses them beside fetch", () => {
    expect(() => new StreamableHttpTransport("https://a.example/mcp", { cert: certs.clientCert })).toThrow(/StreamableHttpTransport: "cert" needs/);
    expect(() => new SseTransport("https://a.example/sse", { key: certs.clientKey })).toThrow(/SseTransport: "key" needs/);
    expect(() => new WebSocketTransport("wss://a.example/mcp", { cert: certs.clientCert })).toThrow(/WebSocketTransport: "cert" needs/);
    expect(() => new StreamableHttpTransport("https://a.example/mcp", { fetch: globalThis.fetch as never, ca: certs.caCert })).toThrow(
      /"ca" cannot be given beside "fetch": a fetch owns its own network/,
    );
    expect(() => new StreamableHttpTransport("https://a.example/mcp", { fetch: globalThis.fetch as never, proxy: false })).toThrow(
      /"proxy" cannot be given beside "fetch"/,
    );
  });

  it("a file that cannot be read is refused when the transport is made: a TypeError naming the option, the path and why", async () => {
    const missing = join(dir, "no-such-ca.pem");
    const present = join(dir, "present-ca.pem");
    await writeFile(present, certs.caCert);
    const unreadable = (option: string, path: string, code: string) =>
      new RegExp(`the "${option.replace(/[[\]]/g, "\\$&")}" file ${path.replace(/[.\\/]/g, "\\$&")} could not be read \\(${code}\\); give the path of a readable PEM file`);
    expect(() => new StreamableHttpTransport("https://a.example/mcp", { ca: { file: missing } })).toThrow(TypeError);
    expect(() => new StreamableHttpTransport("https://a.example/mcp", { ca: { file: missing } })).toThrow(unreadable("ca", missing, "ENOENT"));
    expect(() => new SseTransport("https://a.example/sse", { ca: [{ file: present }, { file: missing }] })).toThrow(unreadable("ca[1]", missing, "ENOENT"));
    expect(() => new WebSocketTransport("wss://a.example/mcp", { cert: { file: missing }, key: certs.clientKey })).toThrow(unreadable("cert", missing, "ENOENT"));
    expect(() => new StreamableHttpTransport("https://a.example/mcp", { cert: certs.clientCert, key: { file: dir } })).toThrow(unreadable("key", dir, "EISDIR"));
    // connect() refuses it the same way, before anything is sent: not UNAVAILABLE, as if the server could not be reached.
    const refused = await connect({ url: "https://a.example/mcp", ca: { file: missing } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TypeError);
    expect(refused).not.toBeInstanceOf(McpTransportError);
    expect((refused as Error).message).toMatch(unreadable("ca", missing, "ENOENT"));
  });

  it("a misspelled option is refused with the nearest name", () => {
    expect(() => new StreamableHttpTransport("https://a.example/mcp", { proxi: false } as never)).toThrow(/"proxi" is not an option \(did you mean "proxy"\?\)/);
    expect(() => new WebSocketTransport("wss://a.example/mcp", { certs: "x" } as never)).toThrow(/"certs" is not an option \(did you mean "cert"\?\)/);
  });
});

describe("the material, read when a connection opens", () => {
  it("ca adds to Node's default roots: the defaults stay, the given CA is added", async () => {
    const material = await loadTls(checkTlsOptions({ ca: certs.caCert }, "T"), {});
    // Node 22.15 and later list their defaults themselves, NODE_EXTRA_CA_CERTS of this process
    // included (set on many machines); older ones are the bundled roots (the env given is empty).
    const getCACertificates = (tls as { getCACertificates?: (kind: string) => string[] }).getCACertificates;
    const defaults = typeof getCACertificates === "function" ? getCACertificates("default") : tls.rootCertificates;
    expect(material!.ca!.length).toBe(defaults.length + 1);
    expect(material!.ca).toContain(tls.rootCertificates[0]);
    expect(material!.ca!.at(-1)!.trim()).toBe(certs.caCert.trim());
  });

  it("ca adds NODE_EXTRA_CA_CERTS too, when this Node cannot list its defaults itself", async () => {
    const extra = join(dir, "extra.pem");
    await writeFile(extra, certs.otherCaCert);
    const material = await loadTls(checkTlsOptions({ ca: certs.caCert }, "T"), { NODE_EXTRA_CA_CERTS: extra });
    const listsItself = typeof (tls as { getCACertificates?: unknown }).getCACertificates === "function";
    // Where Node lists its defaults, it read NODE_EXTRA_CA_CERTS itself, at start (the CLI test covers that).
    if (!listsItself) expect(material!.ca!.map((pem) => pem.trim())).toContain(certs.otherCaCert.trim());
    expect(material!.ca!.map((pem) => pem.trim())).toContain(certs.caCert.trim());
  });

  it("no options, no material: Node's default trust as it is", async () => {
    expect(await loadTls(checkTlsOptions({}, "T"))).toBeUndefined();
  });

  it("reads { file } sources, and a list of them", async () => {
    const path = join(dir, "ca.pem");
    await writeFile(path, certs.caCert);
    const material = await loadTls(checkTlsOptions({ ca: [{ file: path }, Buffer.from(certs.otherCaCert)] }, "T"), {});
    expect(material!.ca!.slice(-2).map((pem) => pem.trim())).toEqual([certs.caCert.trim(), certs.otherCaCert.trim()]);
  });

  it("a file that cannot be read when a connection opens (gone since the transport was made) is UNAVAILABLE naming it", async () => {
    const error = await failure(loadTls(checkTlsOptions({ ca: { file: join(dir, "missing.pem") } }, "T")));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.message).toContain(`the "ca" file ${join(dir, "missing.pem")} could not be read (ENOENT)`);
  });

  it("a file without PEM is UNAVAILABLE naming it", async () => {
    const path = join(dir, "empty.pem");
    await writeFile(path, "nothing here");
    const error = await failure(loadTls(checkTlsOptions({ cert: { file: path }, key: certs.clientKey }, "T")));
    expect(error.message).toContain(`the "cert" file ${path} holds no PEM text`);
  });

  it("a key that is not the certificate's is UNAVAILABLE, and the key is not in the message", async () => {
    const error = await failure(loadTls(checkTlsOptions({ cert: certs.clientCert, key: certs.serverKey }, "T")));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.message).toContain(`"key" is not the private key of "cert"`);
    expect(error.message).not.toContain("PRIVATE KEY");
  });
});
