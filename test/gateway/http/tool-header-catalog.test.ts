/**
 * The tool header catalog alone, with a listing of our own and a clock of our own: what it holds,
 * when it lists again, and what it says when it cannot list (see tool-header-catalog.ts).
 */
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../../../src/errors.js";
import type { JsonRpcResponse } from "../../../src/protocol/jsonrpc.js";
import { ToolHeaderCatalog, type ListToolsPage } from "../../../src/gateway/http/tool-header-catalog.js";

const ROUTE = { name: "route", inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } } };
const BAD = { name: "bad_header", inputSchema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Score" } } } };
const PLAIN = { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } };

function page(tools: unknown[], nextCursor?: string): JsonRpcResponse {
  return { jsonrpc: "2.0", id: 1, result: { tools, ...(nextCursor === undefined ? {} : { nextCursor }) } };
}

/** A listing that answers from `pages` (by cursor) and counts how often a listing starts (the first page). */
function lister(pages: Record<string, JsonRpcResponse | Error>): { listPage: ListToolsPage; firstPages: () => number; cursors: (string | undefined)[] } {
  const cursors: (string | undefined)[] = [];
  return {
    cursors,
    firstPages: () => cursors.filter((cursor) => cursor === undefined).length,
    listPage: async (cursor) => {
      cursors.push(cursor);
      const answer = pages[cursor ?? ""];
      if (answer === undefined) throw new Error(`no page ${cursor}`);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

describe("the tool header catalog", () => {
  it("reads every page and holds each tool's annotations, an invalid tool as invalid", async () => {
    const listing = lister({ "": page([ROUTE, BAD], "two"), two: page([PLAIN]) });
    const catalog = new ToolHeaderCatalog({ listPage: listing.listPage, now: () => 0 });
    expect(await catalog.lookup("route")).toEqual({ kind: "params", params: [{ name: "Region", path: ["region"] }] });
    expect(await catalog.lookup("echo")).toEqual({ kind: "params", params: [] });
    expect(await catalog.lookup("bad_header")).toMatchObject({ kind: "invalid", reason: expect.stringContaining("score") });
    expect(listing.cursors).toEqual([undefined, "two"]);
  });

  it("lists once for a burst of lookups of a tool it does not hold", async () => {
    const listing = lister({ "": page([ROUTE]) });
    const catalog = new ToolHeaderCatalog({ listPage: listing.listPage, now: () => 0 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => catalog.lookup("nope")));
    expect(answers.every((answer) => answer.kind === "unknown")).toBe(true);
    expect(listing.firstPages()).toBe(1);
  });

  it("lists again for an unknown name only once minRelistMs has passed", async () => {
    let now = 0;
    const listing = lister({ "": page([ROUTE]) });
    const catalog = new ToolHeaderCatalog({ listPage: listing.listPage, minRelistMs: 1_000, now: () => now });
    await catalog.lookup("nope");
    now = 999;
    await catalog.lookup("nope");
    expect(listing.firstPages()).toBe(1);
    now = 1_000;
    await catalog.lookup("nope");
    expect(listing.firstPages()).toBe(2);
  });

  it("finds a tool added since the last listing, by listing again", async () => {
    let now = 0;
    const pages: Record<string, JsonRpcResponse> = { "": page([PLAIN]) };
    const listing = lister(pages);
    const catalog = new ToolHeaderCatalog({ listPage: listing.listPage, minRelistMs: 10, now: () => now });
    expect(await catalog.lookup("route")).toEqual({ kind: "unknown" });
    pages[""] = page([PLAIN, ROUTE]);
    now = 10;
    expect(await catalog.lookup("route")).toMatchObject({ kind: "params" });
  });

  it("lists again at the next lookup after toolsChanged, even for a tool it holds", async () => {
    const pages: Record<string, JsonRpcResponse> = { "": page([ROUTE]) };
    const listing = lister(pages);
    const catalog = new ToolHeaderCatalog({ listPage: listing.listPage, minRelistMs: 60_000 });
    await catalog.lookup("route");
    pages[""] = page([{ name: "route", inputSchema: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } } }]);
    expect(await catalog.lookup("route")).toEqual({ kind: "params", params: [{ name: "Region", path: ["region"] }] });
    catalog.toolsChanged();
    expect(await catalog.lookup("route")).toEqual({ kind: "params", params: [{ name: "Zone", path: ["zone"] }] });
    expect(listing.firstPages()).toBe(2);
  });

  it("is unavailable for a name it does not hold when the listing failed, and keeps what it knew", async () => {
    let now = 0;
    const pages: Record<string, JsonRpcResponse | Error> = { "": page([ROUTE]) };
    const listing = lister(pages);
    const catalog = new ToolHeaderCatalog({ listPage: listing.listPage, minRelistMs: 10, now: () => now });
    await catalog.lookup("route");
    pages[""] = new McpTransportError("UNAVAILABLE", "no child");
    catalog.toolsChanged();
    expect(await catalog.lookup("other")).toEqual({ kind: "unavailable" });
    expect(await catalog.lookup("route")).toMatchObject({ kind: "params" });
    // A JSON-RPC error answer is a failed listing too.
    pages[""] = { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } };
    now = 10;
    expect(await catalog.lookup("other")).toEqual({ kind: "unavailable" });
    expect(listing.firstPages()).toBe(3);
  });

  it("holds at most maxTools, and is unavailable for those past it", async () => {
    const tools = Array.from({ length: 5 }, (_, index) => ({ ...PLAIN, name: `tool${index}` }));
    const catalog = new ToolHeaderCatalog({ listPage: lister({ "": page(tools) }).listPage, maxTools: 3, now: () => 0 });
    expect(await catalog.lookup("tool2")).toMatchObject({ kind: "params" });
    expect(await catalog.lookup("tool4")).toEqual({ kind: "unavailable" });
  });

  it("reads at most maxPages, and is unavailable for a tool not read", async () => {
    const listing = lister({ "": page([PLAIN], "a"), a: page([ROUTE], "b"), b: page([BAD]) });
    const catalog = new ToolHeaderCatalog({ listPage: listing.listPage, maxPages: 2, now: () => 0 });
    expect(await catalog.lookup("route")).toMatchObject({ kind: "params" });
    expect(await catalog.lookup("bad_header")).toEqual({ kind: "unavailable" });
    expect(listing.cursors).toEqual([undefined, "a"]);
  });
});
