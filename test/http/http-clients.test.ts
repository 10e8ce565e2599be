/**
 * The two HTTP clients under the transports (undici, and a user's fetch) read a body the same
 * way: chunk by chunk to its end, and a body that does not reach its end never reads as whole.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchHttpClient } from "../../src/transport/http/fetch-http-client.js";
import type { HttpClient, HttpResponse } from "../../src/transport/http/http-client.js";
import { directHttpClient } from "../helpers/direct-http-client.js";

const BIG_BYTES = 4 * 1024 * 1024;
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/headers") {
      res.setHeader("X-Multi", ["a", "b"]);
      res.setHeader("X-Single", "one");
      res.setHeader("Content-Type", "text/plain");
      return void res.end();
    }
    res.writeHead(200, { "content-type": "text/plain" });
    if (req.url === "/whole") {
      res.write("one,");
      setTimeout(() => res.end("two"), 20);
    } else if (req.url === "/big") {
      res.end(Buffer.alloc(BIG_BYTES, 0x61));
    } else if (req.url === "/silent") {
      return; // never answers
    } else if (req.url === "/cut") {
      res.write("partial");
      setTimeout(() => res.socket?.destroy(), 20);
    } else {
      res.write("first"); // "/open": never ends
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const clients: [string, () => HttpClient][] = [
  ["undici", () => directHttpClient()],
  ["fetch", () => new FetchHttpClient(fetch as never)],
];

describe.each(clients)("HttpResponse.read with %s", (_name, makeClient) => {
  async function get(path: string): Promise<{ client: HttpClient; response: HttpResponse }> {
    const client = makeClient();
    const response = await client.request({ method: "GET", url: new URL(path, base), headers: {}, signal: new AbortController().signal });
    return { client, response };
  }

  it("hands over every chunk and resolves at the end of the body", async () => {
    const { client, response } = await get("/whole");
    let text = "";
    await response.read((chunk) => (text += Buffer.from(chunk).toString("utf8")));
    expect(text).toBe("one,two");
    await client.close();
  });

  it("rejects when the connection is lost before the end of the body", async () => {
    const { client, response } = await get("/cut");
    let text = "";
    await expect(response.read((chunk) => (text += Buffer.from(chunk).toString("utf8")))).rejects.toThrow();
    expect(text).toBe("partial");
    await client.close();
  });

  it("rejects when the body is discarded while it is read, and when it was discarded before", async () => {
    const first = await get("/open");
    const reading = first.response.read(() => first.response.discard());
    await expect(reading).rejects.toThrow();
    const second = await get("/open");
    second.response.discard();
    await expect(second.response.read(() => {})).rejects.toThrow();
    await first.client.close();
    await second.client.close();
  });

  it("rejects with what onChunk threw, and stops reading", async () => {
    const { client, response } = await get("/open");
    const failure = new Error("too large");
    await expect(
      response.read(() => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    await client.close();
  });

  it("keeps a body that arrived before read() and hands all of it over, however large", async () => {
    const { client, response } = await get("/big");
    // The whole body is sent before it is read: it must be held (and the socket paused), not lost.
    await new Promise((resolve) => setImmediate(resolve));
    let bytes = 0;
    await response.read((chunk) => (bytes += chunk.byteLength));
    expect(bytes).toBe(BIG_BYTES);
    await client.close();
  });

  it("rejects with the abort's reason at once while the response is awaited, and can be used again after", async () => {
    const client = makeClient();
    const controller = new AbortController();
    const pending = client.request({ method: "GET", url: new URL("/silent", base), headers: {}, signal: controller.signal });
    const reason = new Error("stopped by the caller");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const next = await client.request({ method: "GET", url: new URL("/whole", base), headers: {}, signal: new AbortController().signal });
    let text = "";
    await next.read((chunk) => (text += Buffer.from(chunk).toString("utf8")));
    expect(text).toBe("one,two");
    await client.close();
  });

  it("finds a header by its lower-case name, whatever case it came in, joining repeated ones with \", \"", async () => {
    const { client, response } = await get("/headers");
    expect(response.header("x-single")).toBe("one");
    expect(response.header("x-multi")).toBe("a, b");
    expect(response.header("x-absent")).toBeUndefined();
    expect(response.header("content-type")).toBe("text/plain");
    response.discard();
    await client.close();
  });
});
