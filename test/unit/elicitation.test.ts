/**
 * The handlers of elicitation and sampling as `options.handlers` takes them (client/elicitation,
 * client/sampling), on a scripted server: the forms each handler takes and the TypeError for the
 * rest; which mode a bare function answers; the URL checks of "Safe URL Handling"; -32042 on any
 * request and in either era; deadlines that stand still while a person answers.
 */
import { describe, expect, it } from "vitest";
import { ElicitationCompletions } from "../../src/client/elicitation-completions.js";
import { checkElicitationUrl } from "../../src/client/elicitation-url.js";
import { HANDLER_NAMES, RecordingTransport, connect, type ClientHandlers } from "../../src/index.js";
import { failure } from "../helpers/failure.js";
import { acceptingUrlHandler } from "../helpers/url-handlers.js";

const reply = () => ({ role: "assistant" as const, content: { type: "text" as const, text: "" }, model: "m" });
const decline = () => ({ action: "decline" as const });
const url = { mode: "url", elicitationId: "e-1", url: "https://example.com/go", message: "Go there." };

describe("options.handlers: the forms each handler takes", () => {
  it.each([
    [{ elicitaton: decline }, 'unknown key "elicitaton" in options.handlers (did you mean "elicitation"?)'],
    [{ elicitation: {} }, "options.handlers.elicitation must be a function (form mode), or { form?: function, url?: function }"],
    [{ elicitation: { form: decline, urls: decline } }, 'unknown key "urls" in options.handlers.elicitation (did you mean "url"?)'],
    [{ elicitation: { url: "https://example.com" } }, "url is not a function"],
    [{ sampling: { tools: true } }, "createMessage is missing"],
    [{ sampling: { createMessage: reply, tools: "yes" } }, "options.handlers.sampling.tools must be true or false"],
    [{ sampling: { createMessage: reply, tool: true } }, 'unknown key "tool" in options.handlers.sampling (did you mean "tools"?)'],
    [{ roots: "file:///w" }, "options.handlers.roots must be a function or an array of roots"],
  ])("refuses %j with a TypeError that says what is taken", async (handlers, words) => {
    const transport = new RecordingTransport({});
    await expect(connect(transport, { handlers: handlers as unknown as ClientHandlers })).rejects.toThrow(TypeError);
    await expect(connect(transport, { handlers: handlers as unknown as ClientHandlers })).rejects.toThrow(words);
    expect(transport.sent).toEqual([]);
  });

  it("lists every handler name", () => {
    expect(HANDLER_NAMES).toEqual(["sampling", "elicitation", "roots"]);
  });

  it("a bare function answers URL mode only when elicitation.url was declared by hand, as before", async () => {
    const seen: unknown[] = [];
    const handler = ({ params }: { params: unknown }) => {
      seen.push(params);
      return { action: "accept" as const };
    };
    const declared = new RecordingTransport({});
    await using _declared = await connect(declared, { handlers: { elicitation: handler }, capabilities: { elicitation: { url: {} } } });
    expect(await declared.request("elicitation/create", url)).toEqual({ action: "accept" });
    expect(seen).toEqual([url]);

    const formOnly = new RecordingTransport({});
    await using _formOnly = await connect(formOnly, { handlers: { elicitation: handler } });
    await expect(formOnly.request("elicitation/create", url)).rejects.toMatchObject({ error: { code: -32602 } });
    expect(seen).toHaveLength(1);
  });

  it("a URL handler alone answers form requests with -32602", async () => {
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, { handlers: { elicitation: { url: () => ({ action: "accept" }) } } });
    expect(transport.requests("initialize")[0]!.params!.capabilities).toMatchObject({ elicitation: { url: {} } });
    expect((transport.requests("initialize")[0]!.params!.capabilities as { elicitation: unknown }).elicitation).toEqual({ url: {} });
    const form = { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } };
    await expect(transport.request("elicitation/create", form)).rejects.toMatchObject({ error: { code: -32602 } });
  });

  it("declares sampling.tools, and elicitation form and url, in the modern era's _meta too", async () => {
    const transport = new RecordingTransport({ "tools/list": { tools: [] } }, { era: "modern" });
    await using client = await connect(transport, {
      handlers: { sampling: { createMessage: reply, tools: true }, elicitation: { form: decline, url: () => ({ action: "accept" }) } },
    });
    await client.listTools();
    const meta = transport.requests("tools/list")[0]!.params!._meta as Record<string, unknown>;
    expect(meta["io.modelcontextprotocol/clientCapabilities"]).toEqual({ sampling: { tools: {} }, elicitation: { form: {}, url: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } });
  });
});

describe("the URL of a URL-mode elicitation (Safe URL Handling)", () => {
  it("takes https, and plain http on a loopback host only", () => {
    expect(checkElicitationUrl("https://example.com/a?b=c")).toMatchObject({ domain: "example.com", punycode: false });
    for (const loopback of ["http://127.0.0.1:8080/x", "http://localhost/x", "http://[::1]:3000/x"]) {
      expect(checkElicitationUrl(loopback)).toHaveProperty("url");
    }
    for (const refused of ["http://example.com/x", "ftp://example.com/x", "javascript:alert(1)", "file:///etc/passwd", "not a url"]) {
      expect(checkElicitationUrl(refused)).toHaveProperty("refused");
    }
  });

  it("refuses a user name or password before the host, which hides where the URL leads", () => {
    expect(checkElicitationUrl("https://bank.example.com@evil.example/")).toEqual({
      refused: expect.stringContaining("user name or password"),
    });
  });

  it("names the domain as it is reached, and says when it is Punycode", () => {
    const checked = checkElicitationUrl("https://аpple.com/login");
    expect(checked).toMatchObject({ domain: "xn--pple-43d.com", punycode: true });
    expect((checked as { url: URL }).url.href).toBe("https://xn--pple-43d.com/login");
  });

  it("answers -32603 when the URL handler answers with content", async () => {
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, {
      handlers: { elicitation: { url: () => ({ action: "accept", content: { secret: "x" } }) as never } },
    });
    await expect(transport.request("elicitation/create", url)).rejects.toMatchObject({ error: { code: -32603 } });
  });

  it("hands the modern era's URL input requests (no elicitationId) to the same handler", async () => {
    let round = 0;
    const { seen, handlers } = acceptingUrlHandler();
    const transport = new RecordingTransport(
      {
        "tools/list": { tools: [] },
        "tools/call": (params) => {
          if (++round === 1) {
            return {
              resultType: "input_required",
              inputRequests: { pay: { method: "elicitation/create", params: { mode: "url", url: "https://pay.example.com/x", message: "Pay." } } },
            };
          }
          return { content: [{ type: "text", text: JSON.stringify(params.inputResponses) }] };
        },
      },
      { era: "modern" },
    );
    await using client = await connect(transport, {
      handlers,
    });
    const result = await client.callTool("checkout");
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ pay: { action: "accept" } }) }]);
    expect(seen[0]!.params).toEqual({ mode: "url", url: "https://pay.example.com/x", message: "Pay." });
    expect(seen[0]!.domain).toBe("pay.example.com");
  });

  it("answers -32602 to an elicitation/create whose URL is refused; the handler never sees it", async () => {
    let called = 0;
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, {
      handlers: {
        elicitation: {
          url: () => {
            called++;
            return { action: "accept" };
          },
        },
      },
    });
    await expect(transport.request("elicitation/create", { ...url, url: "http://example.com/go" })).rejects.toMatchObject({
      error: { code: -32602 },
    });
    expect(called).toBe(0);
  });
});

describe("notifications/elicitation/complete", () => {
  it("an id completed just before it was expected counts within the same turn only; later it is unknown, and ignored", async () => {
    const completions = new ElicitationCompletions();
    const told: string[] = [];
    completions.onComplete(({ elicitationId }) => told.push(elicitationId));
    // Read in one chunk with the request it completes: routed before the handler started.
    completions.notified("same-turn");
    await expect(completions.expect("same-turn", new AbortController().signal)).resolves.toBeUndefined();
    completions.notified("next-turn");
    await new Promise((resolve) => setImmediate(resolve));
    const controller = new AbortController();
    const later = completions.expect("next-turn", controller.signal);
    controller.abort(new Error("gave up"));
    await expect(later).rejects.toThrow("gave up");
    expect(told).toEqual(["same-turn"]);
  });
});

describe("-32042 on any request, in either era", () => {
  const needsUrl = RecordingTransport.error(-32042, "This request requires more information.", { elicitations: [url] });

  it.each(["legacy", "modern"] as const)("%s: readResource is sent again after the URL handler accepted", async (era) => {
    let reads = 0;
    const { seen, handlers } = acceptingUrlHandler();
    const transport = new RecordingTransport(
      { "resources/read": () => (++reads === 1 ? needsUrl : { contents: [{ uri: "file:///a", text: "a" }] }) },
      { era },
    );
    await using client = await connect(transport, {
      handlers,
    });
    const result = await client.readResource("file:///a");
    expect(result.contents).toEqual([{ uri: "file:///a", text: "a" }]);
    expect(reads).toBe(2);
    expect(seen.map((request) => request.requiredBy)).toEqual(["resources/read"]);
  });

  it("a client closed while the URL handler waits fails the call with DISCONNECTED", async () => {
    const transport = new RecordingTransport({ "tools/call": needsUrl });
    let entered!: () => void;
    const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
    const client = await connect(transport, {
      handlers: {
        elicitation: {
          url: async (request) => {
            entered();
            await request.completed;
            return { action: "accept" };
          },
        },
      },
    });
    const call = client.callTool("x");
    await handlerEntered;
    await client.close();
    const error = await failure(call);
    expect(error.reason).toBe("DISCONNECTED");
    expect(error.message).toContain("closed during a URL elicitation");
  });
});

describe("a person's pace", () => {
  it("does not count against timeoutMs while an elicitation handler waits (legacy server request)", async () => {
    const timeoutMs = 200;
    const transport = new RecordingTransport({
      "tools/list": { tools: [] },
      "tools/call": async (_params, { transport: server }) => {
        const answer = await server.request("elicitation/create", {
          message: "Name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } },
        });
        return { content: [{ type: "text", text: JSON.stringify(answer) }] };
      },
    });
    await using client = await connect(transport, {
      timeoutMs,
      handlers: {
        // The person takes three deadlines' worth of time.
        elicitation: () => new Promise((resolve) => setTimeout(() => resolve({ action: "accept", content: { name: "Ada" } }), timeoutMs * 3)),
      },
    });
    const result = await client.callTool("ask");
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ action: "accept", content: { name: "Ada" } }) }]);
  });

  it("counts again once the handler answered", async () => {
    const timeoutMs = 200;
    const transport = new RecordingTransport({
      "tools/call": async (_params, { transport: server }) => {
        await server.request("elicitation/create", { message: "Name?", requestedSchema: { type: "object", properties: {} } });
        return new Promise(() => {}); // never answers
      },
    });
    await using client = await connect(transport, { timeoutMs, handlers: { elicitation: decline } });
    expect((await failure(client.callTool("ask"))).reason).toBe("TIMEOUT");
  });
});
