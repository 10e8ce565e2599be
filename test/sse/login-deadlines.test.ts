/**
 * The legacy HTTP+SSE transport's own deadlines (the stream's `endpoint` event, each POST's
 * acceptance, both `timeoutMs`) wait while a login waits for a person, as the session's do.
 */
import { describe, expect, it } from "vitest";
import { McpClient, SseTransport, type AuthProvider } from "../../src/index.js";
import { startSseEndpoint, type SseEndpoint } from "../fixtures/sse-endpoint.js";
import { failure } from "../helpers/failure.js";
import { closedAfterEach } from "../helpers/owned.js";

const own = closedAfterEach();

describe("HTTP+SSE deadlines during a login", () => {
  it("the stream's opening deadline waits for the login, then the connection opens", async () => {
    let refused = false;
    const endpoint: SseEndpoint = await startSseEndpoint({
      onStream: (res, request) => {
        if (request.headers.authorization === "Bearer granted") return false;
        refused = true;
        res.writeHead(401, { "www-authenticate": 'Bearer realm="test"' }).end();
        return true;
      },
    });
    own(endpoint);
    // A server that never sends its endpoint event, with the same deadline: its TIMEOUT says the deadline passed.
    const silent = await startSseEndpoint({ onStream: (res) => (res.writeHead(200, { "content-type": "text/event-stream" }), res.write(": hi\n\n"), true) });
    own(silent);

    let token: string | undefined;
    let loginStarted!: () => void;
    const waiting = new Promise<void>((resolve) => (loginStarted = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const login: AuthProvider = {
      headers: (): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` }),
      challenged: async (refusal) => {
        refusal.http.waitingForUser(true);
        loginStarted();
        try {
          await released;
        } finally {
          refusal.http.waitingForUser(false);
        }
        token = "granted";
        return true;
      },
    };
    // Generous enough for a loaded machine to reach the 401; the silent server then proves that a
    // whole deadline passed while the login waited, counted from after the login began.
    const timeoutMs = 1_000;
    const connecting = McpClient.connect(new SseTransport(endpoint.url, { auth: login }), { timeoutMs });
    let settled = false;
    void connecting.then(() => (settled = true), () => (settled = true));
    await waiting;
    const timedOut = await failure(McpClient.connect(new SseTransport(silent.url), { timeoutMs }));
    expect(timedOut.reason).toBe("TIMEOUT");
    expect(refused).toBe(true);
    expect(settled).toBe(false);
    release();
    const client = await connecting;
    own(client);
    await client.ping();
  });
});
