/**
 * Legacy sessions (basic/transports, "Session Management"), with children that are not processes
 * so that what is counted is the front's own work: sessions opened within `maxSessions` (503) and
 * `maxSessionsPerPrincipal` (429), an unknown, ended or foreign session answered 404, DELETE, a
 * dead child's session 404, idle sessions reaped (ten thousand of them) but never one whose request
 * or initialize is still running, and the GET stream with its bounded `Last-Event-ID` store.
 */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { closedAfterEach } from "../../helpers/owned.js";
import { openEventStream } from "../helpers/event-stream.js";
import { MINI_TARGET, startGateway } from "../helpers/gateway-fixture.js";
import { inProcessChildren } from "../helpers/in-process-children.js";
import { JSON_POST, initializeBody, rawRequest } from "../helpers/raw-http.js";

const own = closedAfterEach(60_000);

async function initialize(port: number, headers: Record<string, string> = {}): Promise<{ status: number; sessionId?: string }> {
  const answer = await rawRequest({ port, headers: { ...JSON_POST, ...headers }, body: initializeBody() });
  return { status: answer.status, sessionId: answer.headers["mcp-session-id"] as string | undefined };
}

function call(port: number, sessionId: string, headers: Record<string, string> = {}) {
  return rawRequest({
    port,
    headers: { ...JSON_POST, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { n: 1 } } }),
  });
}

const byUser = (request: IncomingMessage) => {
  const user = request.headers["x-user"];
  return typeof user === "string" ? { principal: user } : undefined;
};

describe("opening sessions", () => {
  it("gives each initialize a session id of visible ASCII, and serves requests that carry it", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const first = await initialize(port);
    const second = await initialize(port);
    expect(first.sessionId).toMatch(/^[\x21-\x7e]{16,}$/);
    expect(second.sessionId).not.toBe(first.sessionId);
    const answer = await call(port, first.sessionId!);
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ id: 2, result: { content: [{ text: '{"n":1}' }] } });
  });

  it("answers 503 past maxSessions and 429 past maxSessionsPerPrincipal, each counted under its cause", async () => {
    const children = inProcessChildren();
    const running = own(await startGateway({ target: MINI_TARGET, maxSessions: 3, maxSessionsPerPrincipal: 2, authorize: byUser }, { children: children.factory }));
    expect((await initialize(running.port, { "x-user": "alice" })).status).toBe(200);
    expect((await initialize(running.port, { "x-user": "alice" })).status).toBe(200);
    expect((await initialize(running.port, { "x-user": "alice" })).status).toBe(429);
    expect((await initialize(running.port, { "x-user": "bob" })).status).toBe(200);
    const full = await rawRequest({ port: running.port, headers: { ...JSON_POST, "x-user": "carol" }, body: initializeBody() });
    expect(full.status).toBe(503);
    expect(full.headers["retry-after"]).toBe("1");
    const causes = running.logs.filter((line) => line.event === "rejected").map((line) => line.cause);
    expect(causes).toEqual(["principal_sessions_full", "sessions_full"]);
  });

  it("refuses a legacy request without Mcp-Session-Id (400), and GET or DELETE without one (405)", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const bare = await rawRequest({ port, headers: JSON_POST, body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }) });
    expect(bare.status).toBe(400);
    expect(bare.json()).toMatchObject({ id: 3, error: { code: -32600 } });
    expect((await rawRequest({ port, method: "GET", headers: { accept: "text/event-stream" } })).status).toBe(405);
    expect((await rawRequest({ port, method: "DELETE" })).status).toBe(405);
  });
});

describe("finding a session", () => {
  it("answers 404 to an unknown session id and to another principal's", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET, authorize: byUser }, { children: children.factory }));
    const { sessionId } = await initialize(port, { "x-user": "alice" });
    expect((await call(port, sessionId!, { "x-user": "alice" })).status).toBe(200);
    expect((await call(port, sessionId!, { "x-user": "mallory" })).status).toBe(404);
    const unknown = await call(port, "no-such-session", { "x-user": "alice" });
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: -32001 } });
  });

  it("DELETE ends the session and stops its child; the id then answers 404", async () => {
    const children = inProcessChildren();
    const { port, gateway } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const { sessionId } = await initialize(port);
    expect(gateway.sessionCount).toBe(1);
    const deleted = await rawRequest({ port, method: "DELETE", headers: { "mcp-session-id": sessionId! } });
    expect(deleted.status).toBe(200);
    expect(children.sessions[0]!.closed).toBe(true);
    expect(gateway.sessionCount).toBe(0);
    expect((await call(port, sessionId!)).status).toBe(404);
    expect((await rawRequest({ port, method: "DELETE", headers: { "mcp-session-id": sessionId! } })).status).toBe(404);
  });

  it("answers 404 once the session's child died by itself", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const { sessionId } = await initialize(port);
    children.sessions[0]!.die();
    expect((await call(port, sessionId!)).status).toBe(404);
  });
});

describe("idle sessions", () => {
  it("reaps ten thousand abandoned sessions, children stopped, none left", async () => {
    const children = inProcessChildren();
    const { port, gateway } = own(await startGateway({ target: MINI_TARGET, maxSessions: 20_000, maxSessionsPerPrincipal: 20_000, sessionIdleMs: 200 }, { children: children.factory }));
    const total = 10_000;
    for (let sent = 0; sent < total; sent += 100) {
      const batch = await Promise.all(Array.from({ length: 100 }, () => initialize(port)));
      expect(batch.every((answer) => answer.status === 200)).toBe(true);
    }
    expect(children.sessions).toHaveLength(total);
    await expect.poll(() => gateway.sessionCount, { timeout: 30_000, interval: 100 }).toBe(0);
    expect(children.open()).toBe(0);
  }, 120_000);

  it("keeps a session that is used", async () => {
    const children = inProcessChildren();
    const { port, gateway } = own(await startGateway({ target: MINI_TARGET, sessionIdleMs: 300 }, { children: children.factory }));
    const used = await initialize(port);
    await initialize(port);
    // The second session goes idle and is reaped while the first is used every so often.
    await expect
      .poll(
        async () => {
          expect((await call(port, used.sessionId!)).status).toBe(200);
          return gateway.sessionCount;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(1);
    expect((await call(port, used.sessionId!)).status).toBe(200);
  }, 30_000);

  it("keeps a session whose request is still running, however long it runs", async () => {
    const children = inProcessChildren();
    const { port, gateway, url } = own(await startGateway({ target: MINI_TARGET, sessionIdleMs: 300 }, { children: children.factory }));
    const busy = await initialize(port);
    await initialize(port);
    const caller = new AbortController();
    const hanging = fetch(url, {
      method: "POST",
      headers: { ...JSON_POST, "mcp-session-id": busy.sessionId!, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "hang" } }),
      signal: caller.signal,
    }).catch(() => undefined);
    // The idle one is reaped; the busy one, idle as long, is not.
    await expect.poll(() => gateway.sessionCount, { timeout: 20_000, interval: 50 }).toBe(1);
    expect((await call(port, busy.sessionId!)).status).toBe(200);
    caller.abort();
    await hanging;
  }, 30_000);
  it("keeps a session whose initialize is still running (a server slow to start)", async () => {
    const children = inProcessChildren();
    const { port, gateway } = own(await startGateway({ target: MINI_TARGET, sessionIdleMs: 300 }, { children: children.factory }));
    children.holdInitialize = true;
    const slow = initialize(port);
    await expect.poll(() => children.sessions.length).toBe(1);
    children.holdInitialize = false;
    await initialize(port);
    // The second session, opened later, goes idle and is reaped; the first, idle as long, is not.
    await expect.poll(() => children.sessions[1]!.closed, { timeout: 20_000, interval: 50 }).toBe(true);
    expect(children.sessions[0]!.closed).toBe(false);
    expect(gateway.sessionCount).toBe(1);
    children.sessions[0]!.answerInitialize();
    const { status, sessionId } = await slow;
    expect(status).toBe(200);
    expect(sessionId).toBeDefined();
    expect((await call(port, sessionId!)).status).toBe(200);
  }, 30_000);
});

describe("the GET stream", () => {
  it("carries what the child says outside requests, with ids, and resumes after Last-Event-ID", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const { sessionId } = await initialize(port);
    const child = children.sessions[0]!;
    const stream = await openEventStream(port, { "mcp-session-id": sessionId! });
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toBe("text/event-stream");
    child.say({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    child.say({ jsonrpc: "2.0", id: "s1", method: "roots/list" });
    await expect.poll(() => stream.events.length).toBe(2);
    expect(stream.events.map((event) => JSON.parse(event.data).method)).toEqual(["notifications/tools/list_changed", "roots/list"]);
    const [first] = stream.events;
    stream.close();
    await stream.ended;
    // Said while no stream was open: kept, and sent to the caller that resumes.
    child.say({ jsonrpc: "2.0", method: "notifications/resources/list_changed" });
    const resumed = await openEventStream(port, { "mcp-session-id": sessionId!, "last-event-id": first!.id! });
    await expect.poll(() => resumed.events.length).toBe(2);
    expect(resumed.events.map((event) => JSON.parse(event.data).method)).toEqual(["roots/list", "notifications/resources/list_changed"]);
    resumed.close();
  });

  it("keeps at most maxStoredEvents for a caller that is away", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET, maxStoredEvents: 3 }, { children: children.factory }));
    const { sessionId } = await initialize(port);
    for (let n = 1; n <= 10; n++) children.sessions[0]!.say({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: n } });
    const stream = await openEventStream(port, { "mcp-session-id": sessionId!, "last-event-id": "0" });
    await expect.poll(() => stream.events.length).toBe(3);
    expect(stream.events.map((event) => JSON.parse(event.data).params.data)).toEqual([8, 9, 10]);
    stream.close();
  });

  it("answers 404 to a GET for an unknown session", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const stream = await openEventStream(port, { "mcp-session-id": "nope" });
    expect(stream.status).toBe(404);
    stream.close();
  });
});
