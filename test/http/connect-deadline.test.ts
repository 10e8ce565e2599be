/**
 * The connect deadline of the default (undici) HTTP client: an endpoint whose host drops the connection
 * attempt (a firewall that drops packets) fails UNAVAILABLE at the deadline instead of after the
 * operating system's minutes of retries.
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpTransportError } from "../../src/errors.js";
import { directHttpClient } from "../helpers/direct-http-client.js";
import { unansweredPort } from "../helpers/ports.js";

let stop: (() => void) | undefined;
afterEach(() => stop?.());

describe("UndiciHttpClient connect deadline", () => {
  it("fails UNAVAILABLE, retryable, when no connection is made within the deadline", async () => {
    const endpoint = await unansweredPort();
    stop = endpoint.stop;
    const client = directHttpClient(300);
    const started = performance.now();
    const failure = await client
      .request({
        method: "POST",
        url: new URL(`http://127.0.0.1:${endpoint.port}/mcp`),
        headers: { "content-type": "application/json" },
        body: "{}",
        signal: new AbortController().signal,
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    // Not before the deadline: it is the deadline that ended the attempt.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(failure).toBeInstanceOf(McpTransportError);
    const error = failure as McpTransportError;
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.retryable).toBe(true);
    // The message names the endpoint and the deadline that ended the attempt.
    expect(error.message).toBe(`http://127.0.0.1:${endpoint.port} could not be reached (no connection within 300 ms)`);
    await client.close();
  });
});
