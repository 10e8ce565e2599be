/**
 * A host that sends the bridge a JSON-RPC batch on one stdin line. Revision 2025-03-26 lets it
 * ("Messages may be JSON-RPC requests, notifications, responses—or a JSON-RPC batch containing
 * one or more requests and/or notifications", transports, stdio), and a server "MUST support
 * receiving JSON-RPC batches" (basic/index, "Batching"); "The initialize request MUST NOT be part
 * of a JSON-RPC batch" (lifecycle); later revisions have no batches. JSON-RPC 2.0, "Batch": "The
 * Server should respond with an Array containing the corresponding Response objects, after all of
 * the batch Request objects have been processed", and with nothing when there are none.
 * `startStdioBridge` in this process on two PassThrough streams, toward a real gateway on
 * 127.0.0.1 with a real stdio child.
 */
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { startStdioBridge, type StdioBridge } from "../../../src/gateway/bridge/stdio-bridge.js";
import { StreamableHttpTransport } from "../../../src/transport/http/streamable-http.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { ECHO_TARGET, startGateway } from "../helpers/gateway-fixture.js";
import { startBridge, type Message } from "./bridge-process.js";

const own = closedAfterEach(30_000);
const bridges: StdioBridge[] = [];
afterEach(async () => {
  await Promise.all(bridges.splice(0).map((bridge) => bridge.close()));
});

interface Host {
  line(text: string): void;
  /** The host's input ends (stdin EOF). */
  end(): void;
  answer(id: unknown): Promise<Message>;
  /** The next line that holds an array (a batch's answer). */
  arrayLine(): Promise<Message[]>;
  /** Every message written, a batch answer's members included. */
  readonly messages: Message[];
  /** Every line written, parsed: a message, or an array of them. */
  readonly lines: Array<Message | Message[]>;
}

/** A host on a bridge to a gateway over the echo child, past `initialize` in `revision`. */
async function hostIn(revision: string): Promise<Host> {
  const { url } = own(await startGateway({ target: ECHO_TARGET }));
  const input = new PassThrough();
  const output = new PassThrough();
  const messages: Message[] = [];
  const written: Array<Message | Message[]> = [];
  let partial = "";
  output.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      const value = JSON.parse(line) as Message | Message[];
      written.push(value);
      messages.push(...(Array.isArray(value) ? value : [value]));
    }
  });
  bridges.push(startStdioBridge({ transport: new StreamableHttpTransport(url), input, output, log: () => {} }));
  const host: Host = {
    line: (text) => input.write(`${text}\n`),
    end: () => input.end(),
    async arrayLine() {
      const find = () => written.find((line): line is Message[] => Array.isArray(line));
      await expect.poll(() => find() !== undefined, { timeout: 10_000 }).toBe(true);
      return find()!;
    },
    async answer(id) {
      const find = () => messages.find((message) => message.id === id && !("method" in message));
      await expect.poll(() => find() !== undefined, { timeout: 10_000 }).toBe(true);
      return find()!;
    },
    messages,
    lines: written,
  };
  host.line(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "h", version: "1" } } }));
  expect(await host.answer(0)).toMatchObject({ result: { protocolVersion: revision } });
  host.line(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  return host;
}

const echo = (id: number) => ({ jsonrpc: "2.0", id, method: "echo", params: { n: id } });

describe("a 2025-03-26 host", () => {
  it("has each request of a batch line forwarded, and answers them together on one line holding the array of their answers", async () => {
    const host = await hostIn("2025-03-26");
    host.line(JSON.stringify([echo(1), { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1 } }, echo(2)]));
    const answers = await host.arrayLine();
    // "MAY be returned in any order": matched by id.
    expect(answers).toHaveLength(2);
    expect(answers.find((m) => m.id === 1)).toMatchObject({ result: { line: expect.stringContaining('"n":1') } });
    expect(answers.find((m) => m.id === 2)).toMatchObject({ result: { line: expect.stringContaining('"n":2') } });
    // No answer of the batch went on a line of its own.
    expect(host.lines.filter((line) => !Array.isArray(line) && (line.id === 1 || line.id === 2))).toEqual([]);
    expect(host.messages.filter((m) => m.id === null)).toEqual([]);
  }, 30_000);

  it("puts an answer the bridge gives at once (a duplicate id) in the batch's array with the child's, and still answers a single request on its own line", async () => {
    const host = await hostIn("2025-03-26");
    host.line(JSON.stringify([echo(1), echo(1), echo(2)]));
    const answers = await host.arrayLine();
    expect(answers).toHaveLength(3);
    expect(answers.filter((m) => m.id === 1 && "error" in m)).toEqual([expect.objectContaining({ error: expect.objectContaining({ code: -32600 }) })]);
    expect(answers.filter((m) => "result" in m).map((m) => m.id)).toEqual(expect.arrayContaining([1, 2]));
    host.line(JSON.stringify(echo(3)));
    await host.answer(3);
    expect(host.lines.find((line) => !Array.isArray(line) && line.id === 3)).toMatchObject({ result: expect.anything() });
  }, 30_000);

  it("answers a batch of notifications only with nothing", async () => {
    const host = await hostIn("2025-03-26");
    host.line(JSON.stringify([{ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1 } }]));
    host.line(JSON.stringify(echo(3)));
    await host.answer(3);
    expect(host.lines.filter((line) => Array.isArray(line))).toEqual([]);
  }, 30_000);

  it("writes a batch's answer when the host's input ends right after the batch", async () => {
    const host = await hostIn("2025-03-26");
    host.line(JSON.stringify([echo(1), echo(2)]));
    host.end();
    const answers = await host.arrayLine();
    expect(answers.map((m) => m.id)).toEqual(expect.arrayContaining([1, 2]));
  }, 30_000);

  it("is refused a batch holding initialize (-32600), and nothing of it is forwarded", async () => {
    const host = await hostIn("2025-03-26");
    host.line(JSON.stringify([echo(1), { jsonrpc: "2.0", id: 9, method: "initialize", params: {} }]));
    host.line(JSON.stringify(echo(3)));
    await host.answer(3);
    expect(host.messages.filter((m) => m.id === null)).toEqual([expect.objectContaining({ error: expect.objectContaining({ code: -32600 }) })]);
    expect(host.messages.some((m) => m.id === 1 || m.id === 9)).toBe(false);
  }, 30_000);
  // JSON-RPC 2.0, "Batch": "rpc call with invalid Batch" ([1,2,3]) is answered with an array of
  // three Invalid Request errors; a batch holding {"foo": "boo"} gets the valid members' responses
  // plus an Invalid Request error for it, in id null ("If there was an error in detecting the id
  // in the Request object (e.g. Parse error/Invalid Request), it MUST be Null").
  it("answers each member that is not JSON-RPC with an Invalid Request error in the batch's array, and forwards the others", async () => {
    const host = await hostIn("2025-03-26");
    host.line(
      JSON.stringify([
        echo(1),
        { foo: "boo" },
        7,
        // Reads as a request with a valid id: answered in it.
        { jsonrpc: "2.0", id: 5, method: 3 },
        // An id of the wrong type, and a malformed response (its id is not one of the host's): null.
        { jsonrpc: "2.0", id: { no: 1 }, method: "echo" },
        { jsonrpc: "2.0", id: 6, result: "not an object" },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1 } },
        echo(2),
      ]),
    );
    const answers = await host.arrayLine();
    expect(answers).toHaveLength(7);
    expect(answers.find((m) => m.id === 1)).toMatchObject({ result: { line: expect.stringContaining('"n":1') } });
    expect(answers.find((m) => m.id === 2)).toMatchObject({ result: { line: expect.stringContaining('"n":2') } });
    const invalid = { error: expect.objectContaining({ code: -32600 }) };
    expect(answers.filter((m) => "error" in m).map((m) => m.id)).toEqual([null, null, 5, null, null]);
    expect(answers.filter((m) => "error" in m)).toEqual(Array.from({ length: 5 }, () => expect.objectContaining(invalid)));
    // Nothing of the batch was answered on a line of its own, and the invalid members reached no one.
    expect(host.lines.filter((line) => !Array.isArray(line))).toHaveLength(1);
    expect(host.messages.filter((m) => m.id === 5)).toHaveLength(1);
    expect(host.messages.filter((m) => m.id === 6)).toEqual([]);
  }, 30_000);

  it("answers a batch of invalid members and notifications with an array of the errors alone", async () => {
    const host = await hostIn("2025-03-26");
    host.line("[1,2,3]");
    const answers = await host.arrayLine();
    expect(answers).toEqual(Array.from({ length: 3 }, () => expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) })));
    host.line(JSON.stringify([{ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1 } }, { foo: "boo" }]));
    await expect.poll(() => host.lines.filter((line) => Array.isArray(line)).length, { timeout: 10_000 }).toBe(2);
    expect(host.lines.filter((line) => Array.isArray(line))[1]).toEqual([expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) })]);
  }, 30_000);

  it("is refused an empty batch or one mixing responses with requests with one -32600 error (not an array), and a line that is not JSON with -32700", async () => {
    const host = await hostIn("2025-03-26");
    // JSON-RPC 2.0, "Batch": "If the batch rpc call itself fails to be recognized as an valid JSON
    // or as an Array with at least one value, the response from the Server MUST be a single
    // Response object"; the 2025-03-26 schema has no batch mixing responses with requests.
    host.line("[]");
    host.line(JSON.stringify([echo(1), { jsonrpc: "2.0", id: 77, result: {} }]));
    host.line('[{"jsonrpc": "2.0", "method": "echo"},{"jsonrpc": "2.0", "method"]');
    host.line(JSON.stringify(echo(3)));
    await host.answer(3);
    expect(host.lines.filter((line) => Array.isArray(line))).toEqual([]);
    expect(host.messages.filter((m) => m.id === null).map((m) => m.error?.code)).toEqual([-32600, -32600, -32700]);
    expect(host.messages.some((m) => m.id === 1 || m.id === 77)).toBe(false);
  }, 30_000);
});

describe("a 2025-06-18 host", () => {
  it("is answered with an Invalid Request error to a batch line, which is not forwarded", async () => {
    const host = await hostIn("2025-06-18");
    host.line(JSON.stringify([echo(1)]));
    host.line(JSON.stringify(echo(3)));
    await host.answer(3);
    expect(host.messages.filter((m) => m.id === null)).toEqual([expect.objectContaining({ error: expect.objectContaining({ code: -32600 }) })]);
    expect(host.messages.some((m) => m.id === 1)).toBe(false);
  }, 30_000);

  it("is answered with one error, not an array, to a batch line holding a member that is not JSON-RPC", async () => {
    const host = await hostIn("2025-06-18");
    host.line(JSON.stringify([echo(1), { foo: "boo" }]));
    host.line(JSON.stringify(echo(3)));
    await host.answer(3);
    expect(host.lines.filter((line) => Array.isArray(line))).toEqual([]);
    expect(host.messages.filter((m) => m.id === null)).toEqual([expect.objectContaining({ error: expect.objectContaining({ code: -32600 }) })]);
    expect(host.messages.some((m) => m.id === 1)).toBe(false);
  }, 30_000);

  it("is answered -32600 (Invalid Request) to a line of JSON that is not JSON-RPC, and -32700 (Parse error) only to one that is not JSON", async () => {
    // JSON-RPC 2.0, "Error object": -32700 "Invalid JSON was received by the server"; -32600
    // "The JSON sent is not a valid Request object" (its example: {"foo": "boo"}).
    const host = await hostIn("2025-06-18");
    host.line(JSON.stringify({ foo: "boo" }));
    host.line("{not json");
    host.line(JSON.stringify(echo(3)));
    await host.answer(3);
    expect(host.messages.filter((m) => m.id === null).map((m) => m.error?.code)).toEqual([-32600, -32700]);
  }, 30_000);
});

describe("a 2025-03-26 host of the built command (mcpwire gateway <url> --stdio)", () => {
  it("gets the batch's array with an Invalid Request error for a member that is not JSON-RPC beside the answer to the valid one", async () => {
    const { url } = own(await startGateway({ target: ECHO_TARGET }));
    const bridge = startBridge(url);
    try {
      bridge.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "h", version: "1" } } });
      expect(await bridge.answer(0)).toMatchObject({ result: { protocolVersion: "2025-03-26" } });
      bridge.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      bridge.child.stdin!.write(`${JSON.stringify([{ foo: "boo" }, echo(1)])}\n`);
      const answers = (await bridge.next((line) => Array.isArray(line), "the batch's array")) as unknown as Message[];
      expect(answers).toHaveLength(2);
      expect(answers.find((m) => m.id === 1)).toMatchObject({ result: { line: expect.stringContaining('"n":1') } });
      expect(answers.find((m) => m.id === null)).toMatchObject({ error: { code: -32600 } });
    } finally {
      await bridge.stop();
    }
  }, 30_000);
});
