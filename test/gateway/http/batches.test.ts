/**
 * JSON-RPC batches POSTed to the gateway. Revision 2025-03-26 alone has them: implementations
 * "MUST support receiving JSON-RPC batches" (basic/index, "Batching"), and a POST body may be "an
 * array batching one or more requests and/or notifications" or "one or more responses"
 * (transports, "Sending Messages to the Server"); "The initialize request MUST NOT be part of a
 * JSON-RPC batch" (lifecycle). 2025-06-18 removed batches, so its sessions keep refusing them.
 * A real gateway on 127.0.0.1 with a real stdio child (stdio-gateway-echo.mjs).
 */
import { describe, expect, it } from "vitest";
import { closedAfterEach } from "../../helpers/owned.js";
import { ECHO_TARGET, startGateway, type RunningGateway } from "../helpers/gateway-fixture.js";
import { postEventStream } from "../helpers/event-stream.js";
import { JSON_POST, rawRequest, type RawAnswer } from "../helpers/raw-http.js";

const own = closedAfterEach(30_000);

function initialize(revision: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } } });
}

/** A session of `revision` on the gateway, initialized: the headers of its POSTs. */
async function openSession(port: number, revision: string): Promise<Record<string, string>> {
  const opened = await rawRequest({ port, headers: JSON_POST, body: initialize(revision) });
  expect(opened.json()).toMatchObject({ result: { protocolVersion: revision } });
  const headers = { ...JSON_POST, "mcp-session-id": opened.headers["mcp-session-id"] as string };
  // 2025-03-26 has no MCP-Protocol-Version header; later revisions send it on every request.
  if (revision !== "2025-03-26") Object.assign(headers, { "mcp-protocol-version": revision });
  const initialized = await rawRequest({ port, headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  expect(initialized.status).toBe(202);
  return headers;
}

const request = (id: number | string, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id, method, params });

/**
 * The gateway's log lines of the made-up methods (they log as "other", ops/method-label.ts) its
 * child answered in this session, read once a last `echo` request, the barrier, is answered. The
 * child answers in order and a request's line is written as its answer goes out, so a request
 * handed on before the barrier has its line by then; and the barrier's own line, always there,
 * shows that the filter sees a forwarded request at all.
 */
async function forwardedAfterBarrier(running: Pick<RunningGateway, "port" | "logs">, headers: Record<string, string>): Promise<Array<Record<string, unknown>>> {
  const barrier = await rawRequest({ port: running.port, headers, body: JSON.stringify(request("barrier", "echo")) });
  expect(barrier.json()).toMatchObject({ id: "barrier", result: { line: expect.any(String) } });
  return running.logs.filter((line) => line.event === "request" && line.method === "other" && line.outcome !== "rejected");
}

/** The messages of an SSE body that has ended. */
function events(answer: RawAnswer): Array<Record<string, unknown>> {
  return answer.text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line.length > "data: ".length)
    .map((line) => JSON.parse(line.slice("data: ".length)) as Record<string, unknown>);
}

describe("a 2025-03-26 session", () => {
  it("answers a batch of requests with one JSON array of their answers, each request handed to the child as if posted alone", async () => {
    const { port } = own(await startGateway({ target: ECHO_TARGET }));
    const headers = await openSession(port, "2025-03-26");
    const body = JSON.stringify([request(1, "echo", { n: 1 }), { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1 } }, request("two", "echo", { n: 2 })]);
    const answer = await rawRequest({ port, headers, body });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    const answers = answer.json() as Array<{ id: unknown; result: { line: string } }>;
    expect(answers.map((a) => a.id).sort()).toEqual([1, "two"]);
    // Each reached the child as a message of its own, not as a batch.
    for (const a of answers) expect(JSON.parse(a.result.line)).toMatchObject({ method: "echo", params: { n: a.id === 1 ? 1 : 2 } });
  }, 30_000);

  it("streams a batch's answers on one SSE reply when a child speaks about its request first", async () => {
    const { port } = own(await startGateway({ target: ECHO_TARGET }));
    const headers = await openSession(port, "2025-03-26");
    const body = JSON.stringify([request(1, "progress", { steps: 2, tag: "a", _meta: { progressToken: "p1" } }), request(2, "echo")]);
    const answer = await rawRequest({ port, headers, body });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("text/event-stream");
    const sent = events(answer);
    const answers = sent.filter((m) => "result" in m);
    expect(answers.map((m) => m.id).sort()).toEqual([1, 2]);
    expect(answers.find((m) => m.id === 1)).toMatchObject({ result: { tag: "a" } });
    expect(sent.filter((m) => m.method === "notifications/progress").map((m) => (m.params as { progressToken: unknown }).progressToken)).toEqual(["p1", "p1"]);
  }, 30_000);

  it("answers 202, no body, to a batch of notifications only, and hands each to the child", async () => {
    const { port } = own(await startGateway({ target: ECHO_TARGET }));
    const headers = await openSession(port, "2025-03-26");
    // A request running at the child (its reply a stream once its first progress came), for the batch to cancel.
    const held = await postEventStream(port, headers, JSON.stringify(request(7, "hold", { tag: "h", before: 1, _meta: { progressToken: "h" } })));
    expect(held.status).toBe(200);
    const cancelled = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "test" } };
    const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "none", progress: 1 } };
    const answer = await rawRequest({ port, headers, body: JSON.stringify([progress, cancelled]) });
    expect([answer.status, answer.text]).toEqual([202, ""]);
    await held.ended;
    const seen = await rawRequest({ port, headers, body: JSON.stringify(request(3, "cancels")) });
    expect((seen.json() as { result: { cancels: unknown[] } }).result.cancels).toEqual([expect.objectContaining({ reason: "test" })]);
  }, 30_000);

  it("refuses an empty batch (one error, not an array), a batch holding initialize, and one mixing responses with requests: 400, -32600, nothing handed on", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET }));
    const { port } = running;
    const headers = await openSession(port, "2025-03-26");
    const bodies = [[], [JSON.parse(initialize("2025-03-26")) as unknown, request(1, "echo")], [request(1, "echo"), { jsonrpc: "2.0", id: "s1", result: {} }]];
    for (const batch of bodies) {
      const answer = await rawRequest({ port, headers, body: JSON.stringify(batch) });
      expect(answer.status, JSON.stringify(batch)).toBe(400);
      expect(answer.json()).toMatchObject({ id: null, error: { code: -32600 } });
    }
    // initialize in a batch is refused without a session too: it opens none.
    const opening = await rawRequest({ port, headers: JSON_POST, body: JSON.stringify([JSON.parse(initialize("2025-03-26"))]) });
    expect(opening.status).toBe(400);
    expect(running.gateway.sessionCount).toBe(1);
    // Only the barrier reached the child.
    expect(await forwardedAfterBarrier(running, headers)).toEqual([expect.objectContaining({ outcome: "ok" })]);
  }, 30_000);
});

describe("a 2025-03-26 batch with invalid members", () => {
  // JSON-RPC 2.0, "Batch": "The Server should respond with an Array containing the corresponding
  // Response objects"; its example answers `{"foo": "boo"}` among valid requests with an Invalid
  // Request error (id null) beside their responses. "Response object": the id "MUST be the same as
  // the value of the id member in the Request Object. If there was an error in detecting the id
  // ... it MUST be Null."
  const invalidRequest = (id: unknown) => ({ jsonrpc: "2.0", id, error: { code: -32600, message: expect.stringMatching(/not one JSON-RPC 2\.0 message/) } });

  it("answers each invalid member with its own Invalid Request error and hands the valid ones on", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET }));
    const { port } = running;
    const headers = await openSession(port, "2025-03-26");
    const body = JSON.stringify([
      request(1, "echo", { n: 1 }),
      { foo: "boo" },
      5,
      { jsonrpc: "2.0", id: "no-method", params: {} },
      { jsonrpc: "2.0", id: { not: "an id" }, method: "echo" },
      { jsonrpc: "2.0", id: 9, method: 1 },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "none", progress: 1 } },
      request("two", "echo", { n: 2 }),
    ]);
    const answer = await rawRequest({ port, headers, body });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    const answers = answer.json() as Array<{ id: unknown; result?: { line: string } }>;
    expect(answers).toHaveLength(7);
    // The invalid members' answers first, in the batch's order; an id of the right type is kept.
    expect(answers.slice(0, 5)).toEqual([invalidRequest(null), invalidRequest(null), invalidRequest("no-method"), invalidRequest(null), invalidRequest(9)]);
    // The valid requests' answers after them, each request handed to the child as if posted alone.
    const results = answers.slice(5);
    expect(results.map((a) => a.id).sort()).toEqual([1, "two"]);
    for (const a of results) expect(JSON.parse(a.result!.line)).toMatchObject({ method: "echo", params: { n: a.id === 1 ? 1 : 2 } });
    // Each member counted once: the requests done, the invalid members rejected (a made-up method logs as "other").
    const outcomes = () => running.logs.filter((line) => line.event === "request" && line.method === "other").map((line) => line.outcome);
    await expect.poll(() => outcomes().sort()).toEqual(["ok", "ok", "rejected", "rejected", "rejected", "rejected", "rejected"]);
  }, 30_000);

  it("puts the invalid members' errors first on the stream when the reply becomes one", async () => {
    const { port } = own(await startGateway({ target: ECHO_TARGET }));
    const headers = await openSession(port, "2025-03-26");
    const body = JSON.stringify([request(1, "progress", { steps: 1, tag: "a", _meta: { progressToken: "p1" } }), { jsonrpc: "2.0", method: 7, id: 2 }]);
    const answer = await rawRequest({ port, headers, body });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("text/event-stream");
    const sent = events(answer);
    expect(sent[0]).toEqual(invalidRequest(2));
    expect(sent.filter((m) => "result" in m)).toEqual([expect.objectContaining({ id: 1, result: expect.objectContaining({ tag: "a" }) })]);
  }, 30_000);

  it("answers notifications with an invalid member among them with the member's error alone, and hands the notifications on", async () => {
    const { port } = own(await startGateway({ target: ECHO_TARGET }));
    const headers = await openSession(port, "2025-03-26");
    const held = await postEventStream(port, headers, JSON.stringify(request(7, "hold", { tag: "h", before: 1, _meta: { progressToken: "h" } })));
    expect(held.status).toBe(200);
    const cancelled = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "test" } };
    const answer = await rawRequest({ port, headers, body: JSON.stringify([{ jsonrpc: "1.0", method: "notifications/progress" }, cancelled]) });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual([invalidRequest(null)]);
    await held.ended;
    const seen = await rawRequest({ port, headers, body: JSON.stringify(request(3, "cancels")) });
    expect((seen.json() as { result: { cancels: unknown[] } }).result.cancels).toEqual([expect.objectContaining({ reason: "test" })]);
  }, 30_000);

  it("hands a batch's responses to the child and answers its invalid member; a malformed response's id is not echoed", async () => {
    const { port } = own(await startGateway({ target: ECHO_TARGET }));
    const headers = await openSession(port, "2025-03-26");
    // The child asks the caller something on the reply stream of request 4, and answers 4 with the caller's answer.
    const asking = await postEventStream(port, headers, JSON.stringify(request(4, "ask", { method: "roots/list" })));
    await expect.poll(() => asking.events.length).toBeGreaterThan(0);
    const asked = JSON.parse(asking.events[0]!.data) as { id: string | number; method: string };
    expect(asked.method).toBe("roots/list");
    const body = JSON.stringify([{ jsonrpc: "2.0", id: asked.id, result: { roots: [] } }, { jsonrpc: "2.0", id: "r2", result: "not an object" }]);
    const answer = await rawRequest({ port, headers, body });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual([invalidRequest(null)]);
    await asking.ended;
    const last = JSON.parse(asking.events.at(-1)!.data) as Record<string, unknown>;
    expect(last).toMatchObject({ id: 4, result: { answer: { result: { roots: [] } } } });
  }, 30_000);

  it("does the same in stateless mode for a caller that names no revision", async () => {
    const { port } = own(await startGateway({ target: ECHO_TARGET, legacy: "stateless" }));
    const answer = await rawRequest({ port, headers: JSON_POST, body: JSON.stringify([request(1, "echo"), { jsonrpc: "2.0", id: 2 }]) });
    expect(answer.status).toBe(200);
    const answers = answer.json() as Array<Record<string, unknown>>;
    expect(answers[0]).toEqual(invalidRequest(2));
    expect(answers[1]).toMatchObject({ id: 1, result: { line: expect.any(String) } });
  }, 30_000);

  it("answers a batch of invalid members only with an array of errors, all in id null: 200, nothing handed on", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET }));
    const { port } = running;
    const headers = await openSession(port, "2025-03-26");
    const answer = await rawRequest({ port, headers, body: "[1,2,3]" });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual([invalidRequest(null), invalidRequest(null), invalidRequest(null)]);
    const requests = () => running.logs.filter((line) => line.event === "request" && line.method === "other").map((line) => line.outcome);
    await expect.poll(requests).toEqual(["rejected", "rejected", "rejected"]);
  }, 30_000);
});

describe("other revisions", () => {
  it("refuses a batch in a 2025-06-18 session: 400, -32600, saying batches are 2025-03-26's", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET }));
    const { port } = running;
    const headers = await openSession(port, "2025-06-18");
    const answer = await rawRequest({ port, headers, body: JSON.stringify([request(1, "echo")]) });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/2025-03-26/) } });
    // An invalid member does not make a batch acceptable there: refused whole, as before.
    const withInvalid = await rawRequest({ port, headers, body: JSON.stringify([request(1, "echo"), { foo: "boo" }]) });
    expect(withInvalid.status).toBe(400);
    expect(withInvalid.json()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/2025-03-26/) } });
    // Only the barrier reached the child.
    expect(await forwardedAfterBarrier(running, headers)).toEqual([expect.objectContaining({ outcome: "ok" })]);
  }, 30_000);
});

describe("stateless mode", () => {
  it("takes a batch from a caller that names no revision (so 2025-03-26) and refuses one from a 2025-06-18 caller", async () => {
    const { port } = own(await startGateway({ target: ECHO_TARGET, legacy: "stateless" }));
    const body = JSON.stringify([request(1, "echo"), request(2, "echo")]);
    const taken = await rawRequest({ port, headers: JSON_POST, body });
    expect(taken.status).toBe(200);
    expect((taken.json() as Array<{ id: number }>).map((a) => a.id).sort()).toEqual([1, 2]);
    const refused = await rawRequest({ port, headers: { ...JSON_POST, "mcp-protocol-version": "2025-06-18" }, body });
    expect(refused.status).toBe(400);
    const refusedWithInvalid = await rawRequest({ port, headers: { ...JSON_POST, "mcp-protocol-version": "2025-06-18" }, body: JSON.stringify([request(1, "echo"), 5]) });
    expect(refusedWithInvalid.status).toBe(400);
    expect(refusedWithInvalid.json()).toMatchObject({ id: null, error: { code: -32600 } });
  }, 30_000);
});
