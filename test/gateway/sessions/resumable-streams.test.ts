/**
 * A legacy session's request streams, resumable (basic/transports, revisions 2025-03-26 to
 * 2025-11-25, "Sending Messages to the Server" point 6 and "Resumability and Redelivery"):
 * "Disconnection SHOULD NOT be interpreted as the client cancelling its request". Each event of a
 * POST's SSE reply has an id naming its stream; a caller whose connection dropped resumes with GET
 * and `Last-Event-ID`, and gets what came after it on that stream, then the rest live. The request
 * runs on meanwhile, bounded by the request timeout and the session's life; an explicit
 * `notifications/cancelled` still cancels it. Without a session (stateless mode), and in the
 * 2026-07-28 era, a dropped connection still cancels.
 *
 * The child is the echoing fixture: `hold` sends some progress, waits for `release`, sends the
 * rest and answers; `cancels` lists every `notifications/cancelled` it got.
 */
import { describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { startCuttingRelay } from "../helpers/cutting-relay.js";
import { openEventStream, postEventStream, type OpenedStream } from "../helpers/event-stream.js";
import { ECHO_TARGET, startGateway, type RunningGateway } from "../helpers/gateway-fixture.js";
import { rawRequest } from "../helpers/raw-http.js";

const own = closedAfterEach(60_000);

interface Session {
  headers: Record<string, string>;
}

/** A session opened with `initialize` at `version`; its later requests carry that version's header. */
async function openSession(port: number, version = "2025-06-18", accept = "application/json, text/event-stream"): Promise<Session> {
  const initialize = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } },
  };
  const answer = await rawRequest({ port, headers: { "content-type": "application/json", accept }, body: JSON.stringify(initialize) });
  const id = answer.headers["mcp-session-id"] as string;
  expect(id).toBeDefined();
  const headers = { "mcp-session-id": id, "mcp-protocol-version": version };
  await rawRequest({
    port,
    headers: { ...headers, "content-type": "application/json", accept },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  return { headers };
}

/** `hold`: `before` progress steps, then a wait for `release`, then `after` more and the answer. */
function hold(id: number, tag: string, before: number, after: number): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "hold", params: { tag, before, after, _meta: { progressToken: `token-${tag}` } } });
}

/** One request of the session answered as JSON. */
async function call(port: number, session: Session, id: number, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const answer = await rawRequest({
    port,
    headers: { ...session.headers, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
  return answer.json() as Record<string, unknown>;
}

/** The `notifications/cancelled` the session's child received. */
async function cancelsAtChild(port: number, session: Session): Promise<Array<{ requestId: unknown; reason?: string }>> {
  const answer = await call(port, session, 900, "cancels");
  return (answer.result as { cancels: Array<{ requestId: unknown; reason?: string }> }).cancels;
}

function messages(stream: OpenedStream): Array<Record<string, unknown>> {
  return stream.events.filter((event) => event.data !== "").map((event) => JSON.parse(event.data) as Record<string, unknown>);
}

function progressOf(stream: OpenedStream): unknown[] {
  return messages(stream)
    .filter((message) => message.method === "notifications/progress")
    .map((message) => (message.params as { progress: unknown }).progress);
}

function callerLeft(running: RunningGateway): boolean {
  return running.logs.some((line) => line.event === "caller_left");
}

/** The log lines of the request whose caller left (the first to), once it ended: there must be one. */
function heldLines(running: RunningGateway): Array<Record<string, unknown>> {
  const left = running.logs.find((line) => line.event === "caller_left");
  return left === undefined ? [] : running.logs.filter((line) => line.event === "request" && line.requestId === left.requestId);
}

function heldLine(running: RunningGateway): Record<string, unknown> | undefined {
  return heldLines(running)[0];
}

/** A POSTed `hold` whose stream has brought its first `before` progress events. */
async function heldStream(running: RunningGateway, session: Session, id: number, tag: string, before: number, after: number): Promise<OpenedStream> {
  const stream = await postEventStream(running.port, session.headers, hold(id, tag, before, after));
  expect(stream.status).toBe(200);
  expect(stream.headers["content-type"]).toBe("text/event-stream");
  await expect.poll(() => progressOf(stream).length, { timeout: 20_000 }).toBe(before);
  return stream;
}

/** The caller's connection drops; resolves once the gateway saw it go. */
async function drop(running: RunningGateway, stream: OpenedStream): Promise<void> {
  stream.close();
  await stream.ended;
  await expect.poll(() => callerLeft(running), { timeout: 20_000 }).toBe(true);
}

describe("a legacy session's dropped request stream", () => {
  it("is not a cancellation: resumed after the answer, the GET gets the rest of the progress and the answer, in order, once", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0 }));
    const session = await openSession(running.port);
    const post = await heldStream(running, session, 7, "a", 2, 2);
    const ids = post.events.map((event) => event.id);
    // Each event names its stream; no priming event before 2025-11-25.
    expect(ids).toEqual([expect.stringMatching(/^r\d+-1$/), expect.stringMatching(/^r\d+-2$/)]);
    await drop(running, post);

    // The child goes on: the rest of the progress and the answer are said while nobody listens.
    expect(await call(running.port, session, 8, "release", { tag: "a" })).toMatchObject({ result: { released: true } });
    await expect.poll(() => heldLine(running), { timeout: 20_000 }).toMatchObject({ outcome: "ok", status: 200, caller: "gone" });

    const resumed = await openEventStream(running.port, { ...session.headers, "last-event-id": ids[1]! });
    expect(resumed.status).toBe(200);
    await resumed.ended;
    expect(progressOf(resumed)).toEqual([3, 4]);
    expect(messages(resumed).at(-1)).toMatchObject({ id: 7, result: { tag: "a" } });
    expect(messages(resumed)).toHaveLength(3);
    const resumedIds = resumed.events.map((event) => event.id!);
    const stream = ids[0]!.split("-")[0];
    expect(resumedIds).toEqual([`${stream}-3`, `${stream}-4`, `${stream}-5`]);
    // The progress tokens are the caller's own.
    expect(
      messages(resumed)
        .filter((message) => "method" in message)
        .every((message) => (message.params as { progressToken: unknown }).progressToken === "token-a"),
    ).toBe(true);
    expect(await cancelsAtChild(running.port, session)).toEqual([]);
    // Reported once, when it ended.
    expect(heldLines(running)).toHaveLength(1);
  }, 60_000);

  it("resumed before the answer, continues live until the answer, then ends", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0 }));
    const session = await openSession(running.port);
    const post = await heldStream(running, session, 7, "b", 1, 3);
    const lastSeen = post.events.at(-1)!.id!;
    await drop(running, post);

    const resumed = await openEventStream(running.port, { ...session.headers, "last-event-id": lastSeen });
    expect(resumed.status).toBe(200);
    expect(await call(running.port, session, 8, "release", { tag: "b" })).toMatchObject({ result: { released: true } });
    await resumed.ended;
    expect(progressOf(resumed)).toEqual([2, 3, 4]);
    expect(messages(resumed).at(-1)).toMatchObject({ id: 7, result: { tag: "b" } });
    expect(new Set(resumed.events.map((event) => event.id)).size).toBe(4);
    expect(heldLine(running)).toMatchObject({ outcome: "ok", caller: "resumed" });
    expect(await cancelsAtChild(running.port, session)).toEqual([]);
  }, 60_000);

  it("leaves the session's GET stream alone: a resume does not replace it, and neither stream gets the other's messages", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0 }));
    const session = await openSession(running.port);
    const listening = await openEventStream(running.port, session.headers);
    expect(listening.status).toBe(200);
    const post = await heldStream(running, session, 7, "l", 1, 1);
    const lastSeen = post.events.at(-1)!.id!;
    await drop(running, post);
    const resumed = await openEventStream(running.port, { ...session.headers, "last-event-id": lastSeen });
    expect(resumed.status).toBe(200);
    // A log message of no request goes to the GET stream, still open.
    await call(running.port, session, 8, "log", { text: "for the GET stream" });
    await expect.poll(() => messages(listening).length, { timeout: 20_000 }).toBe(1);
    expect(messages(listening)[0]).toMatchObject({ method: "notifications/message", params: { data: "for the GET stream" } });
    expect(listening.events[0]!.id).toMatch(/^\d+$/);
    await call(running.port, session, 9, "release", { tag: "l" });
    await resumed.ended;
    expect(messages(resumed).map((message) => message.method ?? message.id)).toEqual(["notifications/progress", 7]);
    expect(messages(listening)).toHaveLength(1);
    listening.close();
  }, 60_000);

  it("opens with the priming event (an id, empty data) for a 2025-11-25 caller, from which the whole stream resumes", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0 }));
    const session = await openSession(running.port, "2025-11-25");
    const post = await heldStream(running, session, 7, "c", 1, 1);
    const [priming, first] = post.events;
    expect(priming).toEqual({ id: expect.stringMatching(/^r\d+-0$/), data: "" });
    expect(first!.id).toBe(priming!.id!.replace(/-0$/, "-1"));
    await drop(running, post);

    const resumed = await openEventStream(running.port, { ...session.headers, "last-event-id": priming!.id! });
    expect(await call(running.port, session, 8, "release", { tag: "c" })).toMatchObject({ result: { released: true } });
    await resumed.ended;
    expect(progressOf(resumed)).toEqual([1, 2]);
    expect(messages(resumed).at(-1)).toMatchObject({ id: 7, result: { tag: "c" } });
  }, 60_000);

  it("a resume takes the stream from a connection that still carries it; refuses with 400 an id no stream holds or whose events were dropped", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0, maxStoredEvents: 2 }));
    const session = await openSession(running.port);
    const resume = (lastEventId: string) => openEventStream(running.port, { ...session.headers, "last-event-id": lastEventId });

    const unknown = await resume("r99-1");
    expect(unknown.status).toBe(400);
    await unknown.ended;
    expect(JSON.parse(unknown.text())).toMatchObject({ id: null, error: { code: -32000, message: expect.stringMatching(/no stream of the session/) } });

    // Still open on its POST (as a half-open connection would look): the resume takes it, and the
    // POST's connection is ended without the answer.
    const post = await heldStream(running, session, 7, "d", 1, 1);
    const first = await resume(post.events[0]!.id!);
    expect(first.status).toBe(200);
    await post.ended;
    await expect.poll(() => callerLeft(running), { timeout: 20_000 }).toBe(true);
    expect(messages(post).some((message) => "result" in message)).toBe(false);
    // Taken again from the first resume: only the last connection gets the rest, once.
    const second = await resume(post.events[0]!.id!);
    expect(second.status).toBe(200);
    await first.ended;
    expect(await call(running.port, session, 8, "release", { tag: "d" })).toMatchObject({ result: { released: true } });
    await second.ended;
    expect(messages(first).some((message) => "result" in message)).toBe(false);
    expect(progressOf(second)).toEqual([2]);
    expect(messages(second).filter((message) => "result" in message)).toEqual([{ jsonrpc: "2.0", id: 7, result: expect.objectContaining({ tag: "d" }) }]);
    // Its answer went out in full: the stream is done with.
    await expect.poll(async () => (await resume(post.events[0]!.id!)).status, { timeout: 20_000 }).toBe(400);
    expect(await cancelsAtChild(running.port, session)).toEqual([]);

    // Five events said while the caller is away, two kept: the resume from before them would miss three.
    const evicted = await heldStream(running, session, 9, "e", 1, 4);
    const lastSeen = evicted.events.at(-1)!.id!;
    const leftAt = running.logs.filter((line) => line.event === "caller_left").length;
    evicted.close();
    await evicted.ended;
    await expect.poll(() => running.logs.filter((line) => line.event === "caller_left").length, { timeout: 20_000 }).toBe(leftAt + 1);
    expect(await call(running.port, session, 10, "release", { tag: "e" })).toMatchObject({ result: { released: true } });
    const tooLate = await resume(lastSeen);
    expect(tooLate.status).toBe(400);
    await tooLate.ended;
    expect(JSON.parse(tooLate.text())).toMatchObject({ error: { message: expect.stringMatching(/no longer kept/) } });
    expect(await cancelsAtChild(running.port, session)).toEqual([]);
  }, 60_000);

  it("still times out: past requestTimeoutMs the child gets notifications/cancelled, and the TIMEOUT answer waits for the resume", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0, requestTimeoutMs: 1_500 }));
    const session = await openSession(running.port);
    const post = await heldStream(running, session, 7, "f", 1, 1);
    const lastSeen = post.events.at(-1)!.id!;
    await drop(running, post);
    await expect.poll(() => heldLine(running), { timeout: 20_000 }).toMatchObject({ outcome: "timeout", caller: "gone" });
    await expect
      .poll(() => cancelsAtChild(running.port, session), { timeout: 20_000 })
      .toEqual([expect.objectContaining({ reason: "the gateway's request timeout passed" })]);
    const resumed = await openEventStream(running.port, { ...session.headers, "last-event-id": lastSeen });
    await resumed.ended;
    expect(messages(resumed)).toEqual([expect.objectContaining({ id: 7, error: expect.objectContaining({ code: -32001, data: { reason: "TIMEOUT" } }) })]);
    expect(running.gateway.requests).toEqual({ running: 0, queued: 0 });
  }, 60_000);

  it("is cancelled by the caller's notifications/cancelled, which reaches the child", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0 }));
    const session = await openSession(running.port);
    const post = await heldStream(running, session, 7, "g", 1, 1);
    await drop(running, post);
    const cancelled = await rawRequest({
      port: running.port,
      headers: { ...session.headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "the user stopped it" } }),
    });
    expect(cancelled.status).toBe(202);
    await expect.poll(() => heldLine(running), { timeout: 20_000 }).toMatchObject({ outcome: "cancelled", caller: "gone" });
    expect(await cancelsAtChild(running.port, session)).toEqual([expect.objectContaining({ reason: "the user stopped it" })]);
    // The hold is gone at the child: a release finds nothing.
    expect(await call(running.port, session, 8, "release", { tag: "g" })).toMatchObject({ result: { released: false } });
  }, 60_000);

  it("ends with the session: DELETE answers the request that runs on, and nothing is left in flight", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0 }));
    const session = await openSession(running.port);
    const post = await heldStream(running, session, 7, "h", 1, 1);
    await drop(running, post);
    expect(running.gateway.requests.running).toBe(1);
    const deleted = await rawRequest({ port: running.port, method: "DELETE", headers: session.headers });
    expect(deleted.status).toBe(200);
    await expect.poll(() => heldLine(running), { timeout: 20_000 }).toMatchObject({ outcome: "error", caller: "gone" });
    expect(running.gateway.requests).toEqual({ running: 0, queued: 0 });
    expect(running.gateway.sessionCount).toBe(0);
  }, 60_000);

  it("ends with its child: the child's death answers the request that runs on, and the session is gone", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0 }));
    const session = await openSession(running.port);
    const post = await heldStream(running, session, 7, "m", 1, 1);
    const lastSeen = post.events.at(-1)!.id!;
    await drop(running, post);
    await rawRequest({
      port: running.port,
      headers: { ...session.headers, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "exit", params: { code: 3 } }),
    });
    await expect.poll(() => heldLine(running), { timeout: 20_000 }).toMatchObject({ outcome: "error", caller: "gone" });
    expect(running.gateway.requests).toEqual({ running: 0, queued: 0 });
    await expect.poll(() => running.gateway.sessionCount, { timeout: 20_000 }).toBe(0);
    // The session is over: its streams with it.
    expect((await openEventStream(running.port, { ...session.headers, "last-event-id": lastSeen })).status).toBe(404);
  }, 60_000);

  it("is answered by the drain: closing the gateway ends it with UNAVAILABLE on the stream that resumed it", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0, drainMs: 0 }));
    const session = await openSession(running.port);
    const post = await heldStream(running, session, 7, "i", 1, 1);
    const lastSeen = post.events.at(-1)!.id!;
    await drop(running, post);
    const resumed = await openEventStream(running.port, { ...session.headers, "last-event-id": lastSeen });
    expect(resumed.status).toBe(200);
    await running.close();
    await resumed.ended;
    expect(messages(resumed)).toEqual([expect.objectContaining({ id: 7, error: expect.objectContaining({ data: { reason: "UNAVAILABLE" } }) })]);
    expect(heldLine(running)).toMatchObject({ outcome: "error", caller: "resumed" });
  }, 60_000);
});

describe("a dropped request that cannot be resumed", () => {
  it("runs on in a session when its answer was to be JSON: the answer is dropped, the child never told to cancel", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0 }));
    const session = await openSession(running.port, "2025-06-18", "application/json");
    const caller = new AbortController();
    const pending = fetch(running.url, {
      method: "POST",
      headers: { ...session.headers, "content-type": "application/json", accept: "application/json" },
      body: hold(7, "j", 1, 1),
      signal: caller.signal,
    }).catch(() => undefined);
    await expect.poll(() => running.gateway.requests.running, { timeout: 20_000 }).toBe(1);
    caller.abort();
    await pending;
    await expect.poll(() => callerLeft(running), { timeout: 20_000 }).toBe(true);
    expect(await call(running.port, session, 8, "release", { tag: "j" })).toMatchObject({ result: { released: true } });
    await expect.poll(() => heldLine(running), { timeout: 20_000 }).toMatchObject({ outcome: "ok", caller: "gone" });
    expect(await cancelsAtChild(running.port, session)).toEqual([]);
  }, 60_000);

  it("is cancelled in stateless mode, where no session tells its caller apart: the stream has no ids, and the child is told", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, legacy: "stateless", poolMin: 1, poolMax: 1 }));
    await expect.poll(() => running.gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const headers = { "mcp-protocol-version": "2025-06-18" };
    const post = await postEventStream(running.port, headers, hold(7, "k", 1, 1));
    await expect.poll(() => post.events.length, { timeout: 20_000 }).toBe(1);
    expect(post.events[0]!.id).toBeUndefined();
    post.close();
    await post.ended;
    const held = () => running.logs.find((line) => line.event === "request" && line.method === "other");
    await expect.poll(held, { timeout: 20_000 }).toMatchObject({ outcome: "cancelled", status: 499 });
    expect(held()!.caller).toBeUndefined();
    expect(callerLeft(running)).toBe(false);
    const cancels = await rawRequest({
      port: running.port,
      headers: { ...headers, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "cancels" }),
    });
    expect((cancels.json() as { result: { cancels: unknown[] } }).result.cancels).toEqual([expect.objectContaining({ reason: "the caller went away" })]);
  }, 60_000);
});

describe("mcpwire's client through a network that drops", () => {
  it("resumes the cut stream with Last-Event-ID: every progress step once, the result, and no cancel at the child", async () => {
    const running = own(await startGateway({ target: ECHO_TARGET, poolMin: 0 }));
    const relay = own(await startCuttingRelay(running.port));
    const client = own(await connect(`http://127.0.0.1:${relay.port}/mcp`, { protocolVersion: "legacy" }));
    const progress: number[] = [];
    let cutThen = 0;
    const result = client.request(
      "hold",
      { tag: "z", before: 2, after: 2 },
      {
        onProgress: ({ progress: value }) => {
          progress.push(value);
          // The second step reached the client: the connection that carried it is cut.
          if (value === 2) cutThen = relay.cutWhere('"progress":2');
        },
      },
    );
    await expect.poll(() => progress.length, { timeout: 20_000 }).toBe(2);
    await expect.poll(() => callerLeft(running), { timeout: 20_000 }).toBe(true);
    expect(await client.request("release", { tag: "z" })).toMatchObject({ released: true });
    expect(await result).toMatchObject({ tag: "z" });
    expect(progress).toEqual([1, 2, 3, 4]);
    expect([cutThen, relay.cut]).toEqual([1, 1]);
    expect(await client.request("cancels")).toEqual({ cancels: [] });
    expect(heldLine(running)).toMatchObject({ outcome: "ok" });
  }, 60_000);
});
