import { describe, expect, it } from "vitest";
import { RecordingTransport, connect } from "../../src/index.js";

/** A client whose server answers every call the tests make, so that only the argument check can fail. */
async function client() {
  const transport = new RecordingTransport({
    "tools/list": { tools: [{ name: "echo", inputSchema: { type: "object" } }] },
    "tools/call": { content: [{ type: "text", text: "ok" }] },
    "resources/read": { contents: [] },
    "resources/subscribe": {},
    "resources/unsubscribe": {},
    "prompts/get": { messages: [] },
    "completion/complete": { completion: { values: [] } },
    "logging/setLevel": {},
  });
  return { transport, client: await connect(transport) };
}

/** The requests of the client after its opening (initialize, and the tool listing of callTool). */
function callsSent(transport: RecordingTransport): string[] {
  return transport.requests().map((request) => request.method).filter((method) => method !== "initialize" && method !== "tools/list");
}

describe("McpClient: a typed call's arguments are checked before anything is sent", () => {
  it("callTool refuses a name that is not a non-empty string, and arguments that are not an object, as a rejection", async () => {
    const { transport, client: c } = await client();
    await using _ = c;
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => c.callTool(42 as never), /^callTool: the tool's name must be a non-empty string, got 42$/],
      [() => c.callTool(""), /^callTool: the tool's name must be a non-empty string, got ""$/],
      [() => c.callTool(null as never), /got null$/],
      [() => c.callTool("echo", "hello" as never), /^callTool "echo": the arguments must be an object of the tool's named arguments .*, got "hello"$/],
      [() => c.callTool("echo", null as never), /got null$/],
      [() => c.callTool("echo", ["a"] as never), /got an array$/],
      [() => c.startToolTask("echo", 7 as never), /^startToolTask "echo": the arguments must be an object .*, got 7$/],
    ];
    for (const [call, message] of cases) {
      const pending = call();
      // A rejection, never a throw: callTool's bad input rejects like any failure of it.
      expect(pending).toBeInstanceOf(Promise);
      await expect(pending).rejects.toThrow(TypeError);
      await expect(call()).rejects.toThrow(message);
    }
    expect(callsSent(transport)).toEqual([]);
    // Arguments left out are an empty object, and an object goes as it is.
    await c.callTool("echo");
    await c.callTool("echo", { text: "hi" });
    expect(transport.requests("tools/call").map((request) => request.params?.arguments)).toEqual([{}, { text: "hi" }]);
  });

  it("getPrompt refuses arguments that are not strings by name, naming the argument", async () => {
    const { transport, client: c } = await client();
    await using _ = c;
    await expect(c.getPrompt(5 as never)).rejects.toThrow(/^getPrompt: the prompt's name must be a non-empty string, got 5$/);
    await expect(c.getPrompt("greet", "Ada" as never)).rejects.toThrow(/^getPrompt "greet": the arguments must be an object of strings by name, got "Ada"$/);
    await expect(c.getPrompt("greet", { name: "Ada", times: 3 } as never)).rejects.toThrow(
      /^getPrompt "greet": argument "times" must be a string \(prompts take string arguments only\), got 3$/,
    );
    expect(callsSent(transport)).toEqual([]);
    await c.getPrompt("greet", { name: "Ada" });
    expect(transport.requests("prompts/get")[0]?.params).toMatchObject({ name: "greet", arguments: { name: "Ada" } });
  });

  it("the resource calls refuse a URI that is not a non-empty string", async () => {
    const { transport, client: c } = await client();
    await using _ = c;
    await expect(c.readResource(42 as never)).rejects.toThrow(/^readResource: the resource's URI must be a non-empty string, got 42$/);
    await expect(c.readResource("")).rejects.toThrow(/^readResource: the resource's URI/);
    await expect(c.subscribeResource(undefined as never)).rejects.toThrow(/^subscribeResource: the resource's URI .*, got undefined$/);
    await expect(c.unsubscribeResource({} as never)).rejects.toThrow(/^unsubscribeResource: the resource's URI .*, got an object$/);
    expect(callsSent(transport)).toEqual([]);
  });

  it("complete refuses a reference or an argument of the wrong shape", async () => {
    const { transport, client: c } = await client();
    await using _ = c;
    await expect(c.complete({ type: "ref/tool", name: "x" } as never, { name: "a", value: "" })).rejects.toThrow(
      /^complete: ref must be \{ type: "ref\/prompt", name \} or \{ type: "ref\/resource", uri \}$/,
    );
    await expect(c.complete({ type: "ref/prompt", name: "greet" }, { name: "a", value: 1 } as never)).rejects.toThrow(/^complete: argument must be \{ name, value \}/);
    expect(callsSent(transport)).toEqual([]);
    await c.complete({ type: "ref/prompt", name: "greet" }, { name: "a", value: "A" });
    expect(callsSent(transport)).toEqual(["completion/complete"]);
  });

  it("setLoggingLevel refuses a level that is none of the eight", async () => {
    const { transport, client: c } = await client();
    await using _ = c;
    await expect(c.setLoggingLevel("verbose" as never)).rejects.toThrow(
      /^setLoggingLevel: the level must be one of debug, info, notice, warning, error, critical, alert, emergency, got "verbose"$/,
    );
    expect(callsSent(transport)).toEqual([]);
    await c.setLoggingLevel("warning");
    expect(callsSent(transport)).toEqual(["logging/setLevel"]);
  });
});
