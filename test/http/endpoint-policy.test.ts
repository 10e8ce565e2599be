import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../../src/errors.js";
import { backoffDelay } from "../../src/transport/http/backoff.js";
import {
  MAX_REDIRECTS,
  checkContentType,
  decideRedirect,
  exchange,
  failureForStatus,
  isUnreachable,
  mediaTypeOf,
  readBoundedBody,
} from "../../src/transport/http/endpoint-policy.js";
import type { HttpClient, HttpRequest, HttpResponse } from "../../src/transport/http/http-client.js";

const context = { what: 'request "tools/call"' };

function response(status: number, headers: Record<string, string> = {}, chunks: Uint8Array[] = []): HttpResponse & { discarded: boolean } {
  const result = {
    status,
    discarded: false,
    header: (name: string) => headers[name],
    async read(onChunk: (chunk: Uint8Array) => void) {
      for (const chunk of chunks) onChunk(chunk);
    },
    discard() {
      result.discarded = true;
    },
  };
  return result;
}

function thrown(fn: () => unknown): McpTransportError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(McpTransportError);
    return error as McpTransportError;
  }
  throw new Error("expected a failure");
}

describe("redirects", () => {
  const from = new URL("http://example.com:8080/mcp");

  it("follows a 307 or 308 to the same origin", () => {
    for (const status of [307, 308]) {
      const decision = decideRedirect(from, status, "/mcp/", "same-origin");
      expect(decision.url.href).toBe("http://example.com:8080/mcp/");
      expect(decision.sameOrigin).toBe(true);
    }
  });

  it("follows http to https on the same host, as another origin (credentials are dropped)", () => {
    const decision = decideRedirect(new URL("http://example.com/mcp"), 308, "https://example.com/mcp", "same-origin");
    expect(decision.url.href).toBe("https://example.com/mcp");
    expect(decision.sameOrigin).toBe(false);
  });

  it("refuses another host, another port, a downgrade to http, and 301/302/303 even to the same origin", () => {
    const cases: [URL, number, string][] = [
      [from, 307, "http://other.example.com:8080/mcp"],
      [from, 308, "http://example.com:9090/mcp"],
      [new URL("https://example.com/mcp"), 308, "http://example.com/mcp"],
      [new URL("http://example.com:8080/mcp"), 308, "https://example.com:8443/mcp"],
      [from, 301, "/mcp/"],
      [from, 302, "/mcp/"],
      [from, 303, "/mcp/"],
    ];
    for (const [origin, status, location] of cases) {
      const error = thrown(() => decideRedirect(origin, status, location, "same-origin"));
      expect(error.reason).toBe("PROTOCOL");
      expect(error.httpStatus).toBe(status);
      const target = new URL(location, origin).href;
      expect(error.message).toContain(`redirected to ${target}`);
      expect(error.message).toContain(`configure ${target} as the endpoint if it is the intended server`);
    }
  });

  it("names a refused target without its query or user:password, which may carry the user's secret", () => {
    // A common 301 to https keeps the query, and with it the API key the endpoint URL carried.
    const error = thrown(() => decideRedirect(new URL("http://example.com/mcp?api_key=SECRET"), 301, "https://user:PASSWORD@example.com/mcp?api_key=SECRET", "same-origin"));
    expect(error.message).not.toContain("SECRET");
    expect(error.message).not.toContain("PASSWORD");
    expect(error.message).toContain("redirected to https://example.com/mcp?… (HTTP 301)");
    expect(error.message).toContain("configure https://example.com/mcp?… as the endpoint");
  });

  it('refuses every redirect with redirect: "none"', () => {
    const error = thrown(() => decideRedirect(from, 308, "/mcp/", "none"));
    expect(error.message).toContain('redirect: "none"');
  });

  it("fails a redirect without a usable Location, and one a fetch implementation hides", () => {
    expect(thrown(() => decideRedirect(from, 307, undefined, "same-origin")).message).toContain("no usable Location");
    expect(thrown(() => decideRedirect(from, 0, undefined, "same-origin")).message).toContain("hides");
  });
});

describe("content types", () => {
  it("reads the media type without parameters, in any case", () => {
    expect(mediaTypeOf("Application/JSON; charset=utf-8")).toBe("application/json");
    expect(mediaTypeOf(" text/event-stream ")).toBe("text/event-stream");
    expect(mediaTypeOf(undefined)).toBeUndefined();
    expect(mediaTypeOf("")).toBeUndefined();
  });

  it("accepts only application/json and text/event-stream", () => {
    expect(checkContentType(response(200, { "content-type": "application/json; charset=utf-8" }), ["application/json"], context)).toBe(
      "application/json",
    );
    for (const type of ["text/html; charset=utf-8", "text/plain", "application/jsonx", undefined]) {
      const headers: Record<string, string> = type === undefined ? {} : { "content-type": type };
      const error = thrown(() => checkContentType(response(200, headers), ["application/json", "text/event-stream"], context));
      expect(error.reason).toBe("PROTOCOL");
      expect(error.message).toContain("not application/json or text/event-stream");
    }
  });

  it("does not echo a content type that does not look like one", () => {
    const error = thrown(() => checkContentType(response(200, { "content-type": "<script>x</script>" }), ["application/json"], context));
    expect(error.message).toContain("(unreadable)");
    expect(error.message).not.toContain("script");
  });
});

describe("statuses", () => {
  it("2xx is no failure", () => {
    expect(failureForStatus(response(200), context)).toBeUndefined();
    expect(failureForStatus(response(202), context)).toBeUndefined();
  });

  it("5xx is UNAVAILABLE (retryable) with the status", () => {
    for (const status of [500, 502, 503, 504]) {
      const error = failureForStatus(response(status), context)!;
      expect(error.reason).toBe("UNAVAILABLE");
      expect(error.retryable).toBe(true);
      expect(error.httpStatus).toBe(status);
    }
  });

  it("4xx is PROTOCOL with the status; 401 and 403 keep WWW-Authenticate", () => {
    const error = failureForStatus(response(400), context)!;
    expect(error.reason).toBe("PROTOCOL");
    expect(error.retryable).toBe(false);
    expect(error.httpStatus).toBe(400);
    for (const status of [401, 403]) {
      const challenge = 'Bearer resource_metadata="https://example.com/.well-known/oauth-protected-resource"';
      const auth = failureForStatus(response(status, { "www-authenticate": challenge }), context)!;
      expect(auth.httpHeaders).toEqual({ "www-authenticate": challenge });
      expect(auth.message).toContain("`headers` option");
    }
  });
});

describe("bounded bodies", () => {
  it("fails early on a Content-Length above the ceiling, without reading", async () => {
    const reply = response(200, { "content-length": "2000" }, [new Uint8Array(10)]);
    const error = (await readBoundedBody(reply, 1000, "streamable-http").then(
      () => undefined,
      (e: unknown) => e as McpTransportError,
    ))!;
    expect(error.reason).toBe("LIMIT");
    expect(error.limitBytes).toBe(1000);
    expect(reply.discarded).toBe(true);
  });

  it("fails as soon as a body without Content-Length grows past the ceiling", async () => {
    const reply = response(200, {}, [new Uint8Array(600), new Uint8Array(600), new Uint8Array(600)]);
    let chunks = 0;
    const error = (await readBoundedBody(reply, 1000, "streamable-http", () => chunks++).then(
      () => undefined,
      (e: unknown) => e as McpTransportError,
    ))!;
    expect(error.reason).toBe("LIMIT");
    expect(chunks).toBe(2);
  });

  it("reads a body within the ceiling", async () => {
    const text = "{\"é\":1}";
    await expect(readBoundedBody(response(200, {}, [Buffer.from(text)]), 1000, "streamable-http")).resolves.toBe(text);
    // A fetch implementation hands plain Uint8Arrays, views into larger buffers included.
    const whole = Buffer.from(`xx${text}yy`);
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 2, Buffer.byteLength(text));
    await expect(readBoundedBody(response(200, {}, [view]), 1000, "streamable-http")).resolves.toBe(text);
  });

  it("reads a body of many chunks, even cut inside a character", async () => {
    const text = '{"t":"é✓😀"}';
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length - 1; cut++) {
      const chunks = [bytes.subarray(0, cut), bytes.subarray(cut, cut + 1), bytes.subarray(cut + 1)];
      await expect(readBoundedBody(response(200, {}, chunks), 1000, "streamable-http")).resolves.toBe(text);
      const halves = [bytes.subarray(0, cut), bytes.subarray(cut)];
      await expect(readBoundedBody(response(200, {}, halves), 1000, "streamable-http")).resolves.toBe(text);
    }
    await expect(readBoundedBody(response(200, {}, []), 1000, "streamable-http")).resolves.toBe("");
  });
});

describe("backoff", () => {
  it("stays in the upper half of an exponential step, capped", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, random) => {
        const schedule = { baseMs: 200, maxMs: 2_000 };
        const step = Math.min(2_000, 200 * 2 ** (attempt - 1));
        const wait = backoffDelay(attempt, schedule, () => random);
        return wait >= Math.floor(step / 2) && wait <= step;
      }),
    );
  });

  it("spreads the waits of many clients (jitter)", () => {
    const waits = new Set(Array.from({ length: 50 }, () => backoffDelay(2, { baseMs: 200, maxMs: 2_000 })));
    expect(waits.size).toBeGreaterThan(5);
  });
});

describe("exchange", () => {
  type Answer = HttpResponse | McpTransportError;
  function fakeClient(answers: Answer[]): HttpClient & { seen: HttpRequest[] } {
    const seen: HttpRequest[] = [];
    return {
      seen,
      async request(request) {
        seen.push(request);
        const answer = answers.shift()!;
        if (answer instanceof McpTransportError) throw answer;
        return answer;
      },
      async close() {},
    };
  }
  const request = (headers: Record<string, string> = {}): HttpRequest => ({
    method: "POST",
    url: new URL("http://example.com/mcp"),
    headers,
    body: "{}",
    signal: new AbortController().signal,
  });
  const options = { redirect: "same-origin" as const, userHeaders: ["x-api-key"], what: "request" };

  it("tries an unreachable endpoint three times in all, then fails once with UNAVAILABLE", async () => {
    const refused = () => new McpTransportError("UNAVAILABLE", "refused");
    const client = fakeClient([refused(), refused(), refused(), response(200)]);
    const error = await exchange(client, request(), options).then(
      () => undefined,
      (e: unknown) => e as McpTransportError,
    );
    expect(error?.reason).toBe("UNAVAILABLE");
    expect(error?.message).toContain("after 3 attempts");
    expect(isUnreachable(error)).toBe(true);
    expect(client.seen).toHaveLength(3);
  });

  it("succeeds when a later attempt connects", async () => {
    const client = fakeClient([new McpTransportError("UNAVAILABLE", "refused"), response(200)]);
    await expect(exchange(client, request(), options)).resolves.toMatchObject({ response: { status: 200 } });
    expect(client.seen).toHaveLength(2);
  });

  it("never sends again a request whose connection was lost after it went out", async () => {
    const client = fakeClient([new McpTransportError("DISCONNECTED", "reset"), response(200)]);
    const error = await exchange(client, request(), options).then(
      () => undefined,
      (e: unknown) => e as McpTransportError,
    );
    expect(error?.reason).toBe("DISCONNECTED");
    expect(isUnreachable(error)).toBe(false);
    expect(client.seen).toHaveLength(1);
  });

  it("drops credentials and the user's headers when a redirect changes the origin (http to https)", async () => {
    const client = fakeClient([response(308, { location: "https://example.com/mcp" }), response(200)]);
    const result = await exchange(client, request({ authorization: "Bearer s", cookie: "c=1", "x-api-key": "k", accept: "a" }), options);
    expect(result.url.href).toBe("https://example.com/mcp");
    expect(result.movedTo).toBeUndefined(); // another origin is never adopted for later requests
    expect(client.seen[1]!.headers).toEqual({ accept: "a" });
  });

  it("sends a request to another origin than the configured one without credentials and the user's headers, as a redirect there", async () => {
    const headers = { authorization: "Bearer s", cookie: "c=1", "x-api-key": "k", accept: "a" };
    const elsewhere = fakeClient([response(202)]);
    await exchange(elsewhere, { ...request(headers), url: new URL("https://example.com/messages") }, { ...options, configuredOrigin: "http://example.com" });
    expect(elsewhere.seen[0]!.headers).toEqual({ accept: "a" });
    const configured = fakeClient([response(202)]);
    await exchange(configured, request(headers), { ...options, configuredOrigin: "http://example.com" });
    expect(configured.seen[0]!.headers).toEqual(headers);
  });

  it("keeps headers on a same-origin redirect and remembers a permanent one", async () => {
    const client = fakeClient([response(308, { location: "/mcp/" }), response(200)]);
    const result = await exchange(client, request({ authorization: "Bearer s" }), options);
    expect(result.movedTo?.href).toBe("http://example.com/mcp/");
    expect(client.seen[1]!.headers).toEqual({ authorization: "Bearer s" });
    const temporary = fakeClient([response(307, { location: "/mcp/" }), response(200)]);
    expect((await exchange(temporary, request(), options)).movedTo).toBeUndefined();
  });

  it("ends a redirect loop after MAX_REDIRECTS", async () => {
    const client = fakeClient(Array.from({ length: 10 }, () => response(307, { location: "/mcp" })));
    const error = await exchange(client, request(), options).then(
      () => undefined,
      (e: unknown) => e as McpTransportError,
    );
    expect(error?.message).toContain(`more than ${MAX_REDIRECTS} times`);
    expect(client.seen).toHaveLength(MAX_REDIRECTS + 1);
  });
});
