/**
 * The JSON log lines: one object per line with the fields of its report and nothing else. The
 * reports below are built next to secrets a gateway holds (a caller's headers, a request body,
 * the children's environment), some of them put on the report objects themselves; none may
 * reach a line, and a session id appears only as its keyed hash.
 */
import { describe, expect, it } from "vitest";
import { createGatewayTelemetry } from "../../../src/gateway/ops/gateway-telemetry.js";
import { MAX_CHILD_STDERR_LINE } from "../../../src/gateway/ops/log-lines.js";
import { createSessionHasher, SESSION_HASH_HEX_LENGTH } from "../../../src/gateway/ops/session-hash.js";
import type { RequestReport } from "../../../src/gateway/ops/telemetry.js";

const SECRETS = {
  authorization: "Bearer tok-4f1e9c2a77d0",
  cookie: "sid=cookie-secret-93ab",
  body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"card":"4111111111111111"}}}',
  bodyFragment: "4111111111111111",
  env: "AWS_SECRET_ACCESS_KEY=env-secret-55c1",
  envValue: "env-secret-55c1",
  sessionId: "c0ffee00-session-secret-1234",
  methodSecret: "tools/call?token=method-secret-77",
};

function capture() {
  const lines: string[] = [];
  const telemetry = createGatewayTelemetry({ log: (line) => lines.push(line), processMetrics: false });
  return { lines, telemetry, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("the gateway's log lines", () => {
  it("hold none of the secrets beside a report, and the session id only hashed", () => {
    const { lines, telemetry, parsed } = capture();
    // A caller's own report object with extra members, as a careless front might pass it.
    const leaky = {
      requestId: "req-1",
      era: "legacy",
      method: SECRETS.methodSecret,
      outcome: "ok",
      status: 200,
      durationMs: 5.25,
      sessionId: SECRETS.sessionId,
      principal: "alice",
      childPid: 4242,
      headers: { authorization: SECRETS.authorization, cookie: SECRETS.cookie },
      body: SECRETS.body,
      env: { AWS_SECRET_ACCESS_KEY: SECRETS.envValue },
    } as RequestReport;
    telemetry.requestDone(leaky);
    telemetry.rejected("unauthorized", 401, SECRETS.authorization);
    telemetry.childExited(4242, "crash", 1, SECRETS.env);
    telemetry.note("drain_started", { drainMs: 30_000, phase: "x", "Bad Key": SECRETS.cookie, time: SECRETS.cookie });
    telemetry.note(`crash loop ${SECRETS.cookie}`);

    const text = lines.join("\n");
    for (const [name, secret] of Object.entries(SECRETS)) expect(text, name).not.toContain(secret);
    for (const line of lines) expect(line).not.toContain("\n");

    const [request, rejected, exited, note, badNote] = parsed();
    expect(request).toEqual({
      time: expect.any(String),
      event: "request",
      requestId: "req-1",
      era: "legacy",
      method: "other",
      outcome: "ok",
      status: 200,
      durationMs: 5.3,
      session: expect.stringMatching(new RegExp(`^[0-9a-f]{${SESSION_HASH_HEX_LENGTH}}$`)),
      principal: "alice",
      childPid: 4242,
    });
    expect(rejected).toEqual({ time: expect.any(String), event: "rejected", requestId: "invalid", cause: "unauthorized", status: 401 });
    expect(exited).toEqual({ time: expect.any(String), event: "child_exited", pid: 4242, cause: "crash", exitCode: 1 });
    expect(note).toEqual({ time: expect.any(String), event: "drain_started", drainMs: 30_000, phase: "x" });
    expect(badNote).toEqual({ time: expect.any(String), event: "note" });
  });

  it("hashes a session the same way within the process, differently across sessions and keys, never as given", () => {
    const key = Buffer.alloc(32, 9);
    const { telemetry, parsed } = capture();
    const sessionOf = (sessionId: string) => {
      telemetry.requestDone({ requestId: "r", era: "legacy", method: "ping", outcome: "ok", status: 200, durationMs: 1, sessionId });
      return parsed().at(-1)!.session as string;
    };
    const first = sessionOf(SECRETS.sessionId);
    expect(sessionOf(SECRETS.sessionId)).toBe(first);
    expect(sessionOf(`${SECRETS.sessionId}x`)).not.toBe(first);
    expect(first).not.toContain(SECRETS.sessionId.slice(0, 8));
    // Keyed: the hash depends on the key, so nobody without it can match a known id to a line.
    expect(createSessionHasher(key)(SECRETS.sessionId)).toBe(createSessionHasher(key)(SECRETS.sessionId));
    expect(createSessionHasher(key)(SECRETS.sessionId)).not.toBe(createSessionHasher(Buffer.alloc(32, 8))(SECRETS.sessionId));
    // Two telemetries draw their own keys.
    const other = capture();
    other.telemetry.requestDone({ requestId: "r", era: "legacy", method: "ping", outcome: "ok", status: 200, durationMs: 1, sessionId: SECRETS.sessionId });
    expect(other.parsed()[0]!.session).not.toBe(first);
  });

  it("keeps a principal short and on one line, and writes each child's spawn and exit", () => {
    const { lines, telemetry, parsed } = capture();
    telemetry.requestDone({ requestId: "r", era: "modern", method: "tools/list", outcome: "ok", status: 200, durationMs: 1, principal: `x\ny${"z".repeat(500)}` });
    telemetry.childSpawned(77);
    telemetry.childExited(77, "shutdown", null, "SIGTERM");
    expect(lines).toHaveLength(3);
    const [request, spawned, exited] = parsed();
    expect((request!.principal as string).length).toBeLessThanOrEqual(201);
    expect(request!.method).toBe("tools/list");
    expect(spawned).toEqual({ time: expect.any(String), event: "child_spawned", pid: 77 });
    expect(exited).toEqual({ time: expect.any(String), event: "child_exited", pid: 77, cause: "shutdown", signal: "SIGTERM" });
  });

  it("writes a child's stderr line as the server wrote it, on one line, its session hashed, a long one cut and marked", () => {
    const { lines, telemetry, parsed } = capture();
    const text = 'warn: "quoted" \u001b[31mred\u001b[0m\ttab\u0000nul \u2028 \u2029 end';
    telemetry.childStderr({ pid: 4242, era: "modern", text, truncated: false });
    telemetry.childStderr({ pid: 4243, era: "legacy", sessionId: SECRETS.sessionId, text: "from a session", truncated: false });
    telemetry.childStderr({ pid: 4242, era: "modern", text: "x".repeat(MAX_CHILD_STDERR_LINE), truncated: true });
    // A report longer than the bound (not made by the children's splitter) is cut all the same.
    telemetry.childStderr({ pid: 4242, era: "modern", text: "y".repeat(MAX_CHILD_STDERR_LINE * 3), truncated: false });
    telemetry.requestDone({ requestId: "r", era: "legacy", method: "ping", outcome: "ok", status: 200, durationMs: 1, sessionId: SECRETS.sessionId });

    expect(lines.join("\n")).not.toContain(SECRETS.sessionId);
    // Not one character below U+0020, nor a line or paragraph separator, as it is: all escaped.
    for (const line of lines) expect([...line].filter((char) => char < " " || char === "\u2028" || char === "\u2029")).toEqual([]);
    const [plain, session, cut, long, request] = parsed();
    expect(plain).toEqual({ time: expect.any(String), event: "child_stderr", pid: 4242, era: "modern", text });
    expect(session).toEqual({ time: expect.any(String), event: "child_stderr", pid: 4243, era: "legacy", session: request!.session, text: "from a session" });
    expect(cut).toMatchObject({ text: `${"x".repeat(MAX_CHILD_STDERR_LINE)}…`, truncated: true });
    expect(long).toMatchObject({ text: `${"y".repeat(MAX_CHILD_STDERR_LINE)}…`, truncated: true });
  });

  it("says how many stderr lines of a child were dropped, and counts them in the metrics", () => {
    const { telemetry, parsed } = capture();
    telemetry.childStderrDropped({ pid: 7, era: "modern", dropped: 1_200 });
    telemetry.childStderrDropped({ pid: 8, era: "legacy", sessionId: SECRETS.sessionId, dropped: 30 });
    const [first, second] = parsed();
    expect(first).toEqual({ time: expect.any(String), event: "child_stderr_dropped", pid: 7, era: "modern", dropped: 1_200 });
    expect(second).toMatchObject({ event: "child_stderr_dropped", pid: 8, era: "legacy", session: expect.stringMatching(/^[0-9a-f]+$/), dropped: 30 });
    expect(telemetry.metrics.childStderrDropped.get()).toBe(1_230);
    expect(telemetry.metricsText()).toMatch(/^mcpwire_gateway_child_stderr_dropped_total 1230$/m);
  });

  it("says whether a request's caller left before its answer, in one of two words and nothing else", () => {
    const { telemetry, parsed } = capture();
    const report = { requestId: "r", era: "legacy", method: "tools/call", outcome: "ok", status: 200, durationMs: 1 } as const;
    telemetry.requestDone({ ...report, caller: "resumed" });
    telemetry.requestDone({ ...report, caller: "gone" });
    telemetry.requestDone({ ...report, caller: SECRETS.cookie } as unknown as RequestReport);
    telemetry.requestDone(report);
    expect(parsed().map((line) => line.caller)).toEqual(["resumed", "gone", undefined, undefined]);
    // The metrics count the outcome alone: the label set stays as it was.
    expect(telemetry.metrics.requests.get({ era: "legacy", method: "tools/call", outcome: "ok" })).toBe(4);
  });

  it("stamps each line with the clock it is given, as ISO 8601", () => {
    const lines: string[] = [];
    const telemetry = createGatewayTelemetry({ log: (line) => lines.push(line), processMetrics: false, now: () => new Date(Date.UTC(2026, 11, 1, 19, 0, 0)) });
    telemetry.note("listening", { url: "http://127.0.0.1:8080/mcp", adminUrl: "http://127.0.0.1:9090" });
    expect(lines).toEqual(['{"time":"2026-12-01T19:00:00.000Z","event":"listening","url":"http://127.0.0.1:8080/mcp","adminUrl":"http://127.0.0.1:9090"}']);
  });

  it("goes on when the writer throws", () => {
    const telemetry = createGatewayTelemetry({
      log: () => {
        throw new Error("stderr closed");
      },
      processMetrics: false,
    });
    expect(() => telemetry.note("listening", { url: "http://127.0.0.1:1/mcp" })).not.toThrow();
    expect(() => telemetry.requestDone({ requestId: "r", era: "modern", method: "ping", outcome: "ok", status: 200, durationMs: 1 })).not.toThrow();
    expect(telemetry.metrics.requests.get({ era: "modern", method: "ping", outcome: "ok" })).toBe(1);
  });

  it("refuses an option nobody reads", () => {
    expect(() => createGatewayTelemetry({ logg: () => {} } as never)).toThrow(/createGatewayTelemetry: unknown option "logg" \(did you mean "log"\?\)/);
  });
});
