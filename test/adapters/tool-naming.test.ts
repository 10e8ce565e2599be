import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { McpClient, Tool } from "../../src/index.js";
import { MAX_TOOL_NAME_LENGTH, nameServerTools, sanitizeToolName, type ServerToolList } from "../../src/adapters/tool-naming.js";

// Naming never touches the client; a placeholder keeps these tests pure.
const client = {} as McpClient;

function list(server: string, ...names: string[]): ServerToolList {
  return { server, client, tools: names.map((name): Tool => ({ name, inputSchema: { type: "object" } })) };
}

const PROVIDER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

describe("tool names for an agent", () => {
  it("keeps a tool's own name when no prefix is asked for", () => {
    const named = nameServerTools([list("handbook", "search_handbook", "count-words")]);
    expect(named.map((tool) => tool.name)).toEqual(["search_handbook", "count-words"]);
    expect(named[0]).toMatchObject({ server: "handbook", tool: { name: "search_handbook" } });
  });

  it("prefixes each tool with its server's name and the separator", () => {
    const named = nameServerTools([list("handbook", "search"), list("memory", "search")], { prefix: true });
    expect(named.map((tool) => tool.name)).toEqual(["handbook__search", "memory__search"]);
    const dashed = nameServerTools([list("handbook", "search")], { prefix: true, separator: "-" });
    expect(dashed[0]!.name).toBe("handbook-search");
  });

  it("replaces characters model providers refuse, and keeps the server's own name for the call", () => {
    const named = nameServerTools([list("my server", "files.read", "héllo")], { prefix: true });
    expect(named.map((tool) => tool.name)).toEqual(["my_server__files_read", "my_server__h_llo"]);
    expect(named[0]!.tool.name).toBe("files.read");
    expect(sanitizeToolName("")).toBe("_");
  });

  it("named again with an earlier naming, keeps each tool's name and names only the new ones", () => {
    const before = nameServerTools([list("north", "lookup"), list("south", "shelve", "gone")]);
    const after = nameServerTools([list("north", "lookup", "shelve"), list("south", "shelve")], {}, before);
    expect(after.map((tool) => [tool.server, tool.tool.name, tool.name])).toEqual([
      ["north", "lookup", "lookup"],
      ["north", "shelve", "shelve_2"],
      ["south", "shelve", "shelve"],
    ]);
  });

  it("resolves clashes in list order: the first keeps the name, later ones get _2, _3", () => {
    const lists = [list("a.b", "echo"), list("a_b", "echo"), list("a b", "echo")];
    const names = nameServerTools(lists, { prefix: true }).map((tool) => tool.name);
    expect(names).toEqual(["a_b__echo", "a_b__echo_2", "a_b__echo_3"]);
    // The same input gives the same names, every time.
    expect(nameServerTools(lists, { prefix: true }).map((tool) => tool.name)).toEqual(names);
  });

  it("shortens a name past 64 characters with a hash of the whole, so long names stay apart", () => {
    const long = "x".repeat(70);
    const named = nameServerTools([list("server", `${long}_one`, `${long}_two`)], { prefix: true });
    for (const tool of named) expect(tool.name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
    expect(named[0]!.name).not.toBe(named[1]!.name);
    expect(named[0]!.name.startsWith("server__xxx")).toBe(true);
  });

  it("refuses a separator a provider would refuse", () => {
    expect(() => nameServerTools([list("a", "b")], { prefix: true, separator: "." })).toThrow('"separator" must be');
  });

  it("always gives unique names that every provider accepts, whatever the servers and tools are called", () => {
    const name = fc.string({ maxLength: 80, unit: "binary" });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.array(name, { maxLength: 6 })), { maxLength: 6 }),
        fc.boolean(),
        (servers, prefix) => {
          const named = nameServerTools(
            servers.map(([server, tools]) => list(server, ...tools)),
            { prefix },
          );
          const names = named.map((tool) => tool.name);
          expect(new Set(names).size).toBe(names.length);
          for (const each of names) expect(each).toMatch(PROVIDER_NAME);
        },
      ),
    );
  });
});
