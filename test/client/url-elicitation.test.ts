/**
 * URL-mode elicitation (client/elicitation, 2025-11-25) against a real server over stdio and
 * Streamable HTTP: the `elicitation.url` capability follows a URL handler; an `elicitation/create`
 * in URL mode reaches it with the URL checked and its domain; `notifications/elicitation/complete`
 * settles the elicitation's `completed` and reaches `onElicitationComplete` for known ids only;
 * a -32042 error ("URL Elicitation Required Error") runs the listed elicitations through the
 * handler and sends the request once more, and only once.
 */
import { describe, expect, it } from "vitest";
import {
  connect,
  type ConnectOptions,
  type McpClient,
  type UrlElicitationHandler,
  type UrlElicitationRequest,
} from "../../src/index.js";
import { failure } from "../helpers/failure.js";
import { textOf, useUrlElicitationServer } from "../helpers/url-elicitation-fixture.js";
import { acceptingUrlHandler } from "../helpers/url-handlers.js";

const wires = useUrlElicitationServer();

const accept: UrlElicitationHandler = () => ({ action: "accept" });
const formOnly = () => ({ action: "decline" as const });

describe.each(wires)("URL-mode elicitation over %s", (_, target) => {
  const open = (options: ConnectOptions = {}) => connect(target(), { timeoutMs: 20_000, ...options });

  it("declares elicitation.url beside form for { form, url }, url alone for { url }, and form alone for a function", async () => {
    const declared = async (elicitation: NonNullable<ConnectOptions["handlers"]>["elicitation"]) => {
      await using client = await open({ handlers: { elicitation } });
      return JSON.parse(textOf(await client.callTool("client_capabilities"))) as Record<string, unknown>;
    };
    expect((await declared({ form: formOnly, url: accept })).elicitation).toEqual({ form: {}, url: {} });
    expect((await declared({ url: accept })).elicitation).toEqual({ url: {} });
    expect((await declared(formOnly)).elicitation).toEqual({ form: {} });
  });

  it("hands an elicitation/create in URL mode to the URL handler, with the URL checked and its domain", async () => {
    const { seen, handlers } = acceptingUrlHandler();
    await using client = await open({
      handlers,
    });
    expect(textOf(await client.callTool("ask_url"))).toBe("answered accept");
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.params).toMatchObject({ mode: "url", elicitationId: "ask-1", message: "Pay for order 7." });
    expect(request!.url).toBeInstanceOf(URL);
    expect(request!.url.href).toBe("https://pay.example.com/checkout?order=7");
    expect(request!.domain).toBe("pay.example.com");
    expect(request!.punycode).toBe(false);
    expect(request!.requiredBy).toBeUndefined();
  });

  it("settles `completed` and tells onElicitationComplete when the server says so, ignoring ids it never gave out", async () => {
    let completed: Promise<void> | undefined;
    const events: string[] = [];
    await using client = await open({
      handlers: {
        elicitation: {
          url: (request) => {
            completed = request.completed;
            return { action: "accept" };
          },
        },
      },
    });
    client.onElicitationComplete(({ elicitationId }) => events.push(elicitationId));
    // The server completes "never-given" first, then "ask-1", both before its answer.
    expect(textOf(await client.callTool("ask_url"))).toBe("answered accept");
    await expect(completed).resolves.toBeUndefined();
    expect(events).toEqual(["ask-1"]);
    // A second notice for the same id is ignored too: it was completed already.
    await client.callTool("complete", { elicitationId: "ask-1" });
    expect(events).toEqual(["ask-1"]);
  });

  it("answers -32602 for a URL request when only form mode was declared; the form handler never sees it", async () => {
    let called = 0;
    await using client = await open({
      handlers: {
        elicitation: () => {
          called++;
          return { action: "accept", content: {} };
        },
      },
    });
    expect(textOf(await client.callTool("ask_url"))).toBe("refused -32602");
    expect(called).toBe(0);
  });

  it("on -32042 runs the listed elicitation through the URL handler, then sends the request once more", async () => {
    const seen: UrlElicitationRequest[] = [];
    const peer: { client?: McpClient } = {};
    await using opened = await open({
      handlers: {
        elicitation: {
          url: async (request) => {
            seen.push(request);
            // The user finishes in the browser; the server says so, and the handler waits for it.
            await peer.client!.callTool("complete", { elicitationId: request.params.elicitationId });
            await request.completed;
            return { action: "accept" };
          },
        },
      },
    });
    peer.client = opened;
    const result = await opened.callTool("needs_url");
    expect(textOf(result)).toBe("connected after 2 calls");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.params).toEqual({
      mode: "url",
      elicitationId: "connect-1",
      url: "https://example.com/connect?elicitationId=connect-1",
      message: "Connect your Example account.",
    });
    expect(seen[0]!.domain).toBe("example.com");
    expect(seen[0]!.requiredBy).toBe("tools/call");
  });

  it("retries once only: a second -32042 fails with PROTOCOL, kind url_elicitation_required", async () => {
    let handled = 0;
    await using client = await open({
      handlers: {
        elicitation: {
          url: () => {
            handled++;
            return { action: "accept" };
          },
        },
      },
    });
    const error = await failure(client.callTool("needs_url_always"));
    expect(error).toMatchObject({ reason: "PROTOCOL", kind: "url_elicitation_required", code: -32042, method: "tools/call" });
    expect(error.message).toContain("still requires a URL elicitation after the ones it listed were completed");
    expect(error.message).not.toContain("This request requires more information");
    expect(error.serverData).toMatchObject({ elicitations: [{ elicitationId: "connect-1" }] });
    expect(handled).toBe(1);
    expect(textOf(await client.callTool("calls"))).toBe("2");
  });

  it("without a URL handler fails at once, saying a URL elicitation is needed and how to give a handler", async () => {
    await using client = await open({ handlers: { elicitation: formOnly } });
    const error = await failure(client.callTool("needs_url"));
    expect(error).toMatchObject({ reason: "PROTOCOL", kind: "url_elicitation_required", code: -32042 });
    expect(error.message).toContain("needs the user to open a URL first");
    expect(error.message).toContain("options.handlers.elicitation.url");
    expect(textOf(await client.callTool("calls"))).toBe("1");
  });

  it("does not send the request again when the user declines or cancels", async () => {
    for (const action of ["decline", "cancel"] as const) {
      await using client = await open({ handlers: { elicitation: { url: () => ({ action }) } } });
      const error = await failure(client.callTool("needs_url"));
      expect(error).toMatchObject({ kind: "url_elicitation_required" });
      expect(error.message).toContain(`the user ${action === "decline" ? "declined" : "cancelled"} it`);
      expect(textOf(await client.callTool("calls"))).toBe("1");
    }
  });

  it("never shows a plain-http URL off loopback, nor runs a -32042 that lists no elicitation", async () => {
    let handled = 0;
    await using client = await open({
      handlers: {
        elicitation: {
          url: () => {
            handled++;
            return { action: "accept" };
          },
        },
      },
    });
    const insecure = await failure(client.callTool("needs_url_http"));
    expect(insecure).toMatchObject({ kind: "url_elicitation_required" });
    expect(insecure.message).toContain("does not use https");
    const malformed = await failure(client.callTool("needs_url_malformed"));
    expect(malformed).toMatchObject({ kind: "url_elicitation_required" });
    expect(malformed.message).toContain("without a valid list of URL elicitations");
    expect(handled).toBe(0);
  });

  it("a handler that fails, or answers with content, fails the call with the kind; an abort rejects with its reason", async () => {
    await using failing = await open({
      handlers: {
        elicitation: {
          url: () => {
            throw new Error("the browser would not start");
          },
        },
      },
    });
    const thrown = await failure(failing.callTool("needs_url"));
    expect(thrown).toMatchObject({ kind: "url_elicitation_required" });
    expect(thrown.message).toContain("the URL elicitation handler failed");
    expect((thrown.cause as Error).message).toBe("the browser would not start");

    await using withContent = await open({
      handlers: { elicitation: { url: () => ({ action: "accept", content: { key: "x" } }) as never } },
    });
    expect((await failure(withContent.callTool("needs_url"))).message).toContain("answered something other than");

    const controller = new AbortController();
    const reason = new Error("the user closed the window");
    await using waiting = await open({
      handlers: {
        elicitation: {
          url: (request) => {
            controller.abort(reason);
            // The handler waits on the completion, which the abort ends.
            return request.completed.then(() => ({ action: "accept" as const }));
          },
        },
      },
    });
    await expect(waiting.callTool("needs_url", {}, { signal: controller.signal })).rejects.toBe(reason);
  });
});
