/**
 * `Mcp-Param-{Name}` headers checked by the gateway (basic/transports/streamable-http, "Server
 * Behavior for Custom Headers", "Server Validation"), against the modern fixture's `route` tool
 * (arguments mirrored by `x-mcp-header`) over stdio. Requests are raw HTTP, so headers can be
 * wrong on purpose; what reaches the children is counted at the pool's relay.
 */
import { Client as SdkV2Client, StreamableHTTPClientTransport as SdkV2Transport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { McpTransportError } from "../../../src/errors.js";
import { defaultChildren } from "../../../src/gateway/default-children.js";
import type { GatewayChildrenFactory } from "../../../src/gateway/gateway.js";
import type { JsonRpcRequest } from "../../../src/protocol/jsonrpc.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { MODERN_TARGET, startGateway, type RunningGateway } from "../helpers/gateway-fixture.js";
import { modernCall } from "../helpers/modern-post.js";
import { rawRequest } from "../helpers/raw-http.js";

const own = closedAfterEach(30_000);

/** The default children, with every request handed to a pool recorded (and, if `refuse` says so, failed there). */
function recordingChildren(seen: JsonRpcRequest[], refuse: (message: JsonRpcRequest) => boolean = () => false): GatewayChildrenFactory {
  return (options, ops) => {
    const inner = defaultChildren(options, ops);
    return {
      ...inner,
      poolFor(era, principal) {
        const relay = inner.poolFor(era, principal);
        return {
          ...relay,
          request(message, sink, signal) {
            seen.push(message);
            if (refuse(message)) return sink.failed(new McpTransportError("UNAVAILABLE", "refused by the test"));
            relay.request(message, sink, signal);
          },
        };
      },
    };
  };
}

const calls = (seen: JsonRpcRequest[], tool: string) => seen.filter((m) => m.method === "tools/call" && m.params?.name === tool).length;
const listings = (seen: JsonRpcRequest[]) => seen.filter((m) => m.method === "tools/list" && m.params?.cursor === undefined).length;

/** A raw `tools/call` of `name` with `args`, the standard headers right, and `params` as the Mcp-Param-* headers. */
async function callWith(port: number, id: number, name: string, args: Record<string, unknown>, params: Record<string, string>) {
  const call = modernCall(id, "tools/call", { name, arguments: args });
  const headers: Record<string, string> = { ...call.headers, accept: "application/json" };
  for (const [key, value] of Object.entries(params)) headers[`mcp-param-${key}`] = value;
  const answer = await rawRequest({ port, headers, body: call.body });
  return { status: answer.status, body: answer.json() as { id?: unknown; result?: { content?: { text: string }[] }; error?: { code: number; message: string; data?: unknown } } };
}

const FULL = { region: "eu-west-1", priority: 42, dry: true, limits: { rows: 5 }, query: "plain" };
const FULL_HEADERS = { region: "eu-west-1", priority: "42", dry: "true", rows: "5" };

describe("Mcp-Param-* headers through the gateway", () => {
  const seen: JsonRpcRequest[] = [];
  let running: RunningGateway;
  beforeAll(async () => {
    running = await startGateway({ target: MODERN_TARGET, poolMin: 1, poolMax: 1 }, { children: recordingChildren(seen) });
  }, 60_000);
  afterAll(() => running?.close(), 30_000);

  it("forwards a call whose headers match its arguments, and the child answers it", async () => {
    const before = calls(seen, "route");
    const { status, body } = await callWith(running.port, 1, "route", FULL, FULL_HEADERS);
    expect(status).toBe(200);
    expect(JSON.parse(body.result!.content![0]!.text)).toEqual(FULL);
    expect(calls(seen, "route")).toBe(before + 1);
  }, 60_000);

  it.each([
    ["a header that differs from the body", FULL, { ...FULL_HEADERS, region: "us-east-1" }],
    ["a nested argument's header that differs", FULL, { ...FULL_HEADERS, rows: "6" }],
    ["a missing header for a value in the body", FULL, { region: "eu-west-1", dry: "true", rows: "5" }],
    ["a boolean header in another case", FULL, { ...FULL_HEADERS, dry: "True" }],
    ["an integer header that is another number", FULL, { ...FULL_HEADERS, priority: "42.5" }],
    ["an integer header that is not a number", FULL, { ...FULL_HEADERS, priority: "forty-two" }],
    // Node reads the header as latin-1, so without the character check "é" would equal the body's.
    ["a header with a character a header may not carry", { ...FULL, region: "eu-wést" }, { ...FULL_HEADERS, region: "eu-w\xe9st" }],
    ["Base64 that does not round-trip", { ...FULL, region: "eu" }, { ...FULL_HEADERS, region: "=?base64?ZXV=?=" }],
    ["a sentinel that is not Base64, sent as a plain value", { ...FULL, region: "=?base64?e!u?=" }, { ...FULL_HEADERS, region: "=?base64?e!u?=" }],
    ["Base64 of bytes that are not UTF-8", { ...FULL, region: "\ufffd" }, { ...FULL_HEADERS, region: `=?base64?${Buffer.from([0xff]).toString("base64")}?=` }],
    ["a header for an argument the body does not hold", { query: "plain" }, { region: "eu-west-1" }],
  ])("answers %s with 400 and HeaderMismatch in the caller's id, and the child never sees it", async (_case, args, params) => {
    const before = calls(seen, "route");
    const { status, body } = await callWith(running.port, 7, "route", args, params);
    expect(status).toBe(400);
    expect(body.id).toBe(7);
    expect(body.error?.code).toBe(-32020);
    expect(calls(seen, "route")).toBe(before);
  }, 60_000);

  it("decodes a Base64 header before it compares", async () => {
    const region = "Grüße, 世界";
    const { status, body } = await callWith(running.port, 2, "route", { ...FULL, region }, { ...FULL_HEADERS, region: `=?base64?${Buffer.from(region).toString("base64")}?=` });
    expect(status).toBe(200);
    expect(JSON.parse(body.result!.content![0]!.text).region).toBe(region);
  }, 60_000);

  it("compares integers as numbers: 42.0 and 4.2e1 match 42", async () => {
    for (const priority of ["42.0", "4.2e1"]) {
      const { status } = await callWith(running.port, 3, "route", FULL, { ...FULL_HEADERS, priority });
      expect(status).toBe(200);
    }
  }, 60_000);

  it("ignores an Mcp-Param-* header it does not recognize", async () => {
    const before = calls(seen, "route");
    const { status } = await callWith(running.port, 4, "route", FULL, { ...FULL_HEADERS, query: "something else", other: "\xe9" });
    expect(status).toBe(200);
    expect(calls(seen, "route")).toBe(before + 1);
  }, 60_000);

  it("expects no header for an argument that is null or absent", async () => {
    const before = calls(seen, "route");
    const absent = await callWith(running.port, 5, "route", { query: "only" }, {});
    expect(absent.status).toBe(200);
    const nulls = await callWith(running.port, 6, "route", { region: null, query: "only" }, {});
    // The child may refuse the null itself; the gateway forwarded it.
    expect(nulls.status).toBe(200);
    expect(calls(seen, "route")).toBe(before + 2);
  }, 60_000);

  it("forwards a call of a tool whose annotations are invalid without checking its headers", async () => {
    const before = calls(seen, "bad_header");
    const { status } = await callWith(running.port, 8, "bad_header", { score: 1.5 }, { score: "2" });
    expect(status).toBe(200);
    expect(calls(seen, "bad_header")).toBe(before + 1);
  }, 60_000);

  it("lists again for a tool it does not hold, and forwards a call of a tool without annotations", async () => {
    const added = await callWith(running.port, 9, "add_tool", { name: "late_tool" }, {});
    expect(added.status).toBe(200);
    const before = listings(seen);
    // Each call of a tool the catalog does not hold lists again once minRelistMs has passed.
    await expect
      .poll(
        async () => {
          const late = await callWith(running.port, 10, "late_tool", {}, {});
          expect(late.body.result?.content?.[0]?.text).toBe("late_tool");
          return listings(seen);
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(before);
  }, 60_000);

  it("lists again after a child says on a listen stream that its tools changed, for a tool it holds", async () => {
    const listener = own(await connect(running.url, { protocolVersion: "modern" }));
    let changes = 0;
    listener.onToolsListChanged(() => changes++);
    await listener.listen({ toolsListChanged: true });
    await callWith(running.port, 12, "route", FULL, FULL_HEADERS);
    const before = listings(seen);
    await callWith(running.port, 13, "add_tool", { name: "later_tool" }, {});
    await expect.poll(() => changes, { timeout: 20_000 }).toBeGreaterThan(0);
    // route is held, so only the child's notifications/tools/list_changed makes the catalog list again.
    await expect
      .poll(
        async () => {
          expect((await callWith(running.port, 14, "route", FULL, FULL_HEADERS)).status).toBe(200);
          return listings(seen);
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(before);
  }, 60_000);

  it("mcpwire's client calls route through the gateway with the headers it mirrors", async () => {
    const client = own(await connect(running.url, { protocolVersion: "modern" }));
    const before = calls(seen, "route");
    const result = await client.callTool("route", FULL);
    expect(result.isError).not.toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(FULL);
    expect(calls(seen, "route")).toBe(before + 1);
  }, 60_000);

  it("the official v2 client calls route through the gateway", async () => {
    const client = new SdkV2Client({ name: "v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new SdkV2Transport(new URL(running.url)));
    own({ close: () => client.close() });
    await client.listTools();
    const result = await client.callTool({ name: "route", arguments: FULL });
    expect(result.isError).not.toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(FULL);
  }, 60_000);
});

describe("the gateway's tool listing", () => {
  it("a burst of calls for a tool that does not exist causes one listing", async () => {
    const seen: JsonRpcRequest[] = [];
    const { port } = own(await startGateway({ target: MODERN_TARGET, poolMin: 1, poolMax: 1 }, { children: recordingChildren(seen) }));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => callWith(port, index, "no_such_tool", {}, {})));
    // Unknown to the catalog: forwarded, and the child says it does not know the tool.
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(listings(seen)).toBe(1);
    expect(calls(seen, "no_such_tool")).toBe(20);
  }, 60_000);

  it("refuses a call with 503 when the tools cannot be listed, and forwards nothing", async () => {
    const seen: JsonRpcRequest[] = [];
    const { port } = own(
      await startGateway({ target: MODERN_TARGET, poolMin: 1, poolMax: 1 }, { children: recordingChildren(seen, (message) => message.method === "tools/list") }),
    );
    const { status, body } = await callWith(port, 11, "route", FULL, FULL_HEADERS);
    expect(status).toBe(503);
    expect(body.id).toBe(11);
    expect(body.error).toMatchObject({ code: -32603, data: { reason: "UNAVAILABLE" } });
    expect(body.error?.message).not.toContain("refused by the test");
    expect(calls(seen, "route")).toBe(0);
  }, 60_000);
});
