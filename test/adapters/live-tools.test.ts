/**
 * The live tool sets (`aiToolSet`, `langchainToolSet`) follow their servers' lists
 * (server/tools, "List Changed Notification"): each server is listed again on its own change, a
 * listing that fails keeps the tools listed before, a reconnection lists again, and in the
 * 2026-07-28 era the set opens the `subscriptions/listen` stream that carries the notification.
 * Against real servers: in memory (the official SDK v1), and over stdio (SDK v1 and v2).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectAll, type ConnectedServers } from "../../src/adapters/connect-all.js";
import { aiToolSet, type McpAiToolSet } from "../../src/ai.js";
import { McpClient, MemoryTransport, connect, type McpServerConfig } from "../../src/index.js";
import { langchainToolSet } from "../../src/langchain.js";
import { failure } from "../helpers/failure.js";
import { createCatalogServer, type CatalogServer } from "./agent-server.js";

const node = JSON.stringify(process.execPath);

const owned: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.allSettled(owned.splice(0).map((thing) => thing.close()));
});

/** Resolves once `client` heard `count` more tool-list changes. */
function heard(client: McpClient, count = 1): Promise<void> {
  return new Promise((resolve) => {
    let left = count;
    const stop = client.onToolsListChanged(() => {
      if (--left > 0) return;
      stop();
      resolve();
    });
  });
}

/** Resolves on the set's next change. */
function nextChange(set: McpAiToolSet): Promise<void> {
  return new Promise((resolve) => {
    const stop = set.onChange(() => {
      stop();
      resolve();
    });
  });
}

async function connectCatalog(catalog: CatalogServer = createCatalogServer()): Promise<McpClient> {
  const client = await McpClient.connect(new MemoryTransport(catalog.server, "catalog"));
  owned.push(client);
  return client;
}

/** Two catalog servers, "north" and "south", through connectAll. */
async function twoServers(): Promise<{ servers: ConnectedServers; north: CatalogServer; south: CatalogServer }> {
  const north = createCatalogServer({ name: "north" });
  const south = createCatalogServer({ name: "south" });
  const declared = (name: string): McpServerConfig => ({ name, transport: "stdio", command: "unused" });
  const servers = await connectAll(
    { source: "test", servers: { north: declared("north"), south: declared("south") }, disabled: [] },
    { transportFor: (config) => new MemoryTransport((config.name === "north" ? north : south).server, config.name) },
  );
  owned.push(servers);
  return { servers, north, south };
}

describe("live tool sets over the servers of connectAll", () => {
  it("list again only the server whose list changed, under the same prefixed names", async () => {
    const { servers, north, south } = await twoServers();
    using set = await aiToolSet(servers);
    expect(Object.keys(set.tools)).toContain("north__lookup");
    expect(Object.keys(set.tools)).toContain("south__lookup");
    const changed = nextChange(set);
    await south.addTool("shelve");
    await changed;
    expect(Object.keys(set.tools)).toContain("south__shelve");
    expect(Object.keys(set.tools)).not.toContain("north__shelve");
    expect({ north: north.lists(), south: south.lists() }).toEqual({ north: 1, south: 2 });
  });

  it("keep the names of the others' tools: a name the model knows never moves to another server's tool", async () => {
    const { servers, north, south } = await twoServers();
    using set = await aiToolSet(servers, { prefix: false });
    let changed = nextChange(set);
    await south.addTool("shelve");
    await changed;
    expect(set.tools.shelve!.metadata).toMatchObject({ mcpServer: "south" });

    // north, earlier in the file, now lists a tool of the same name: it is the one renamed.
    changed = nextChange(set);
    await north.addTool("shelve");
    await changed;
    expect(set.tools.shelve!.metadata).toMatchObject({ mcpServer: "south" });
    expect(set.tools.shelve_2!.metadata).toMatchObject({ mcpServer: "north" });
  });

  it("keep a server's tools when its listing fails, report it in failures, and clear it once it lists again", async () => {
    const { servers, south } = await twoServers();
    using set = await aiToolSet(servers);
    const breaking = heard(servers.clients.south!);
    await south.breakListing(true);
    await breaking;
    await set.current();
    expect(set.failures.south).toMatchObject({ reason: "PROTOCOL", kind: "server_error" });
    expect(set.failures.south!.message).not.toContain("rebuilt");
    expect(Object.keys(set.failures)).toEqual(["south"]);
    expect(Object.keys(set.tools)).toContain("south__erase");

    const mending = heard(servers.clients.south!);
    await south.breakListing(false);
    await mending;
    await set.current();
    expect(set.failures).toEqual({});
  });
});

describe("live tool sets over one client", () => {
  it("apply the prefix and the filter to every new list", async () => {
    const catalog = createCatalogServer();
    const client = await connectCatalog(catalog);
    using set = await aiToolSet(client, { prefix: "lib", filter: (tool) => tool.tool.name !== "erase" });
    const changed = nextChange(set);
    await catalog.addTool("shelve");
    await changed;
    expect(Object.keys(set.tools)).toEqual(["lib__lookup", "lib__append", "lib__plain", "lib__add_tool", "lib__remove_tool", "lib__shelve"]);
  });

  it("current() refuses options of the wrong kind with a TypeError that says what it takes", async () => {
    const client = await connectCatalog();
    using ai = await aiToolSet(client);
    using lc = await langchainToolSet(client);
    for (const set of [ai, lc]) {
      await expect(set.current(null as never)).rejects.toThrow(new TypeError("set.current(): options must be an object ({ signal }), got null"));
      await expect(set.current({ signl: AbortSignal.timeout(60_000) } as never)).rejects.toThrow('set.current(): unknown option "signl"');
      await expect(set.current({ signal: "stop" } as never)).rejects.toThrow('set.current(): "signal" must be an AbortSignal');
      await expect(set.current()).resolves.toBeDefined();
      await expect(set.current({ signal: AbortSignal.timeout(60_000) })).resolves.toBeDefined();
    }
  });

  it("reject when the first listing fails, with the listing's error", async () => {
    const catalog = createCatalogServer();
    const client = await connectCatalog(catalog);
    await catalog.breakListing(true);
    expect(await failure(aiToolSet(client))).toMatchObject({ reason: "PROTOCOL", kind: "server_error" });
    expect(await failure(langchainToolSet(client))).toMatchObject({ reason: "PROTOCOL", kind: "server_error" });
  });

  it("reject an aborted signal with its reason, and tools already listed with a TypeError", async () => {
    const client = await connectCatalog();
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(aiToolSet(client, { signal: controller.signal })).rejects.toThrow("stop");
    await expect(aiToolSet([] as never)).rejects.toThrow("a live tool set needs a client or the servers of connectAll()");
    await expect(langchainToolSet([] as never)).rejects.toThrow(TypeError);
  });

  it("list again after a reconnection, when no notification comes: the server may have changed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpwire-live-"));
    try {
      // The fixture counts its starts in this file; its `versioned` tool's schema names the start.
      const target = `${node} --import tsx test/fixtures/output-schema-server.ts stdio ${JSON.stringify(join(dir, "starts"))}`;
      const client = await connect(target, { reconnect: { initialDelayMs: 10 } });
      owned.push(client);
      using set = await aiToolSet(client);
      const changed = nextChange(set);
      expect(await failure(client.callTool("exit"))).toMatchObject({ reason: "DISCONNECTED" });
      await changed;
      expect(Object.keys(set.tools)).toContain("versioned");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("live tool sets in the 2026-07-28 era", () => {
  it("open the listen stream that carries notifications/tools/list_changed, and follow it", async () => {
    const client = await connect(`${node} --import tsx test/fixtures/modern-server.ts stdio`);
    owned.push(client);
    expect(client.era).toBe("modern");
    using set = await aiToolSet(client);
    expect(Object.keys(set.tools)).not.toContain("fresh");
    const changed = nextChange(set);
    await client.callTool("add_tool", { name: "fresh" });
    await changed;
    expect(Object.keys(set.tools)).toContain("fresh");
  });
});
