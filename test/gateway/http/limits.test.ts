/**
 * The limits of the front (issue 21, "Limits"), each breach its own status and rejection cause:
 * a body past `maxBodyBytes` is 413 before it is read whole; requests past `maxRequests` wait in a
 * queue of `maxQueue`, and past that get 503 with `Retry-After`, exactly the excess; a request
 * past `requestTimeoutMs` is answered with an error and the child is told.
 */
import http from "node:http";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { closedAfterEach } from "../../helpers/owned.js";
import { MINI_TARGET, MODERN_TARGET, startGateway } from "../helpers/gateway-fixture.js";
import { modernCall } from "../helpers/modern-post.js";
import { JSON_POST, initializeBody, rawRequest } from "../helpers/raw-http.js";

const own = closedAfterEach(30_000);

/** Sends a POST's head and a first part of its body, then waits for the answer's first bytes; says how much was sent. */
function sendPartly(port: number, head: string, firstPart: Buffer): Promise<{ answer: string; closed: Promise<void>; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.on("error", () => {});
    socket.once("connect", () => {
      socket.write(head);
      socket.write(firstPart);
    });
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n\r\n")) resolve({ answer, closed, socket });
    });
    socket.once("close", () => reject(new Error(`closed without an answer: ${answer}`)));
  });
}

describe("maxBodyBytes", () => {
  it("answers 413 to a declared length past the ceiling before the body is sent, and closes the connection", async () => {
    const { port, logs } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, maxBodyBytes: 1024 }));
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n`;
    // Only 10 bytes of the 10 MB are ever sent: the answer cannot have waited for the rest.
    const { answer, closed } = await sendPartly(port, head, Buffer.from('{"jsonrpc"'));
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    await closed;
    expect(logs.some((line) => line.event === "rejected" && line.cause === "body_too_large" && line.status === 413)).toBe(true);
  }, 30_000);

  it("answers 413 without a 100 Continue to a declared length past the ceiling that expects one, so the body is never sent", async () => {
    const { port } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, maxBodyBytes: 1024 }));
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\nExpect: 100-continue\r\n\r\n`;
    // Not a byte of the body: the first answer must be the final one (RFC 9110, 10.1.1).
    const { answer, closed } = await sendPartly(port, head, Buffer.alloc(0));
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    await closed;
  }, 30_000);

  it("sends 100 Continue to a body within the ceiling that expects one, and answers it", async () => {
    const { port } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, maxBodyBytes: 4096 }));
    const body = initializeBody();
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = http.request(
        { host: "127.0.0.1", port, method: "POST", path: "/mcp", agent: false, headers: { ...JSON_POST, "content-length": Buffer.byteLength(body), expect: "100-continue" } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      // The body goes only once the gateway asked for it.
      outgoing.once("continue", () => outgoing.end(body));
      outgoing.on("error", reject);
    });
    expect(status).toBe(200);
  }, 30_000);

  it("counts a chunked body as it comes and answers 413 once it passes the ceiling, without reading the rest", async () => {
    const { port } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, maxBodyBytes: 1024 }));
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = Buffer.from(`800\r\n${"x".repeat(0x800)}\r\n`);
    // 2 KiB of an endless body: the last chunk is never sent.
    const { answer, closed } = await sendPartly(port, head, chunk);
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    await closed;
  }, 30_000);

  it("takes a body at the ceiling", async () => {
    const body = initializeBody();
    const { port } = own(await startGateway({ target: MINI_TARGET, poolMin: 0, maxBodyBytes: Buffer.byteLength(body) }));
    expect((await rawRequest({ port, headers: JSON_POST, body })).status).toBe(200);
  }, 30_000);
});

describe("maxRequests and maxQueue", () => {
  it("holds maxRequests in flight, queues maxQueue more, and answers 503 with Retry-After to exactly the excess", async () => {
    const running = own(await startGateway({ target: MODERN_TARGET, maxRequests: 2, maxQueue: 1, requestTimeoutMs: 120_000 }));
    const { gateway, url } = running;
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const callers = Array.from({ length: 5 }, () => new AbortController());
    const settled: Array<{ status: number; retryAfter: string | null; body: string }> = [];
    const sent = callers.map((caller, index) => {
      const { headers, body } = modernCall(index + 1, "tools/call", { name: "sleep", arguments: { ms: 600_000 } });
      return fetch(url, { method: "POST", headers, body, signal: caller.signal }).then(
        async (response) => settled.push({ status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.text() }),
        () => {},
      );
    });
    // Whichever three come first hold the two slots and the queue's one place; the other two are the excess.
    await expect.poll(() => gateway.requests, { timeout: 20_000 }).toEqual({ running: 2, queued: 1 });
    await expect.poll(() => settled.length, { timeout: 20_000 }).toBe(2);
    for (const answer of settled) {
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toBe("1");
      expect(JSON.parse(answer.body).error.code).toBe(-32000);
    }
    expect(running.logs.filter((line) => line.event === "rejected" && line.cause === "queue_full")).toHaveLength(2);
    // The callers that wait give up: their places are freed, and nothing is left in flight.
    for (const caller of callers) caller.abort();
    await Promise.all(sent);
    expect(settled).toHaveLength(2);
    await expect.poll(() => gateway.requests, { timeout: 20_000 }).toEqual({ running: 0, queued: 0 });
  }, 60_000);
});

describe("requestTimeoutMs", () => {
  it("answers a request past its deadline with a JSON-RPC error in the gateway's words, and the child keeps serving", async () => {
    const { url, gateway } = own(await startGateway({ target: MODERN_TARGET, requestTimeoutMs: 1_000 }));
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const slow = modernCall(7, "tools/call", { name: "sleep", arguments: { ms: 600_000 } });
    const answer = await fetch(url, { method: "POST", headers: slow.headers, body: slow.body });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { id: number; error: { code: number; message: string; data: { reason: string } } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32001);
    expect(body.error.data.reason).toBe("TIMEOUT");
    expect(body.error.message).toMatch(/timed out in the gateway after 1000 ms/);
    const echo = modernCall(8, "tools/call", { name: "echo", arguments: { text: "still here" } });
    const next = (await (await fetch(url, { method: "POST", headers: echo.headers, body: echo.body })).json()) as { result: { content: unknown } };
    expect(next.result.content).toEqual([{ type: "text", text: "still here" }]);
  }, 60_000);
});
