/**
 * registerTransport: a transport written outside mcpwire, named by declarations, config files and
 * the environment; its keys checked by its factory when read, the four ceilings by mcpwire.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  ConfigError,
  MemoryTransport,
  applyEnvOverrides,
  connect,
  loadServerConfig,
  parseServerConfig,
  parseServersFile,
  registerTransport,
  transportFor,
  type TransportFactory,
  type TransportRegistration,
} from "../../src/index.js";
import { createContractServer } from "../../src/testing.js";

interface MemoryKeys {
  label: string;
  retries?: number;
  url?: string;
}

/** The reference contract server in memory, under a label; counts what the registry asks of it. */
function memoryFactory(counts = { parsed: 0, created: 0 }): TransportFactory<MemoryKeys> {
  return {
    keys: ["label", "retries", "url"],
    parse(keys, { fail }) {
      counts.parsed++;
      const { label, retries, url } = keys;
      if (typeof label !== "string" || label === "") return fail(`"label" must be a non-empty string, got ${JSON.stringify(label)}`);
      if (retries !== undefined && !Number.isInteger(retries)) return fail(`"retries" must be a whole number, got ${JSON.stringify(retries)}`);
      return { label, retries: retries as number | undefined, url: url as string | undefined };
    },
    create(options) {
      counts.created++;
      return new MemoryTransport(createContractServer(), options.label);
    },
  };
}

const registrations: TransportRegistration[] = [];
function register(name: string, factory: TransportFactory<object> = memoryFactory() as TransportFactory<object>): TransportRegistration {
  const registration = registerTransport(name, factory);
  registrations.push(registration);
  return registration;
}
afterEach(() => {
  for (const registration of registrations.splice(0)) registration.unregister();
});

const where = 'mcp.json: server "handbook"';

describe("registerTransport", () => {
  it.each([
    ["stdio", 'names a built-in transport'],
    ["ws", 'names a built-in transport'],
    ["streamable-http", 'names a built-in transport'],
    ["Unix", "lower-case letters, digits and dashes"],
    ["", "lower-case letters, digits and dashes"],
    ["unix socket", "lower-case letters, digits and dashes"],
  ])("refuses the name %j", (name, words) => {
    expect(() => registerTransport(name, memoryFactory())).toThrow(TypeError);
    expect(() => registerTransport(name, memoryFactory())).toThrow(words);
  });

  it("refuses a name registered twice, until it is unregistered", () => {
    const first = register("in-memory");
    expect(() => registerTransport("in-memory", memoryFactory())).toThrow('a transport named "in-memory" is already registered; unregister it first');
    first.unregister();
    register("in-memory");
  });

  const nothing = (): undefined => undefined;
  it.each([
    [{ keys: [] }, "needs create(options, context)"],
    [{ keys: "label", create: nothing }, "needs keys"],
    [{ keys: ["timeoutMs"], create: nothing }, 'key "timeoutMs" belongs to every declaration'],
    [{ keys: ["name"], create: nothing }, 'key "name" belongs to every declaration'],
    [{ keys: ["type"], create: nothing }, 'key "type" has a meaning of its own in config files'],
    [{ keys: ["description"], create: nothing }, 'key "description" has a meaning of its own in config files'],
    [{ keys: ["socket-path"], create: nothing }, 'key "socket-path" is not a plain name'],
    [{ keys: ["path", "path"], create: nothing }, "keys lists a key twice"],
    [{ keys: [], parser: () => ({}), create: nothing }, 'unknown member "parser" (did you mean "parse"?)'],
    [{ keys: [], parse: "yes", create: nothing }, "parse must be a function"],
  ])("refuses the factory %j", (factory, words) => {
    expect(() => registerTransport("in-memory", factory as unknown as TransportFactory)).toThrow(words);
  });

  it("keeps its own copy of the keys, and a factory written as a class keeps its state", async () => {
    class Factory {
      keys = ["label"];
      built = 0;
      create(): MemoryTransport {
        this.built++;
        return new MemoryTransport(createContractServer());
      }
    }
    const factory = new Factory();
    register("in-memory", factory);
    factory.keys.push("sneaked");
    expect(() => parseServerConfig({ name: "handbook", transport: "in-memory", sneaked: 1 }, where)).toThrow('unknown key "sneaked"');
    transportFor({ name: "handbook", transport: "in-memory" });
    expect(factory.built).toBe(1);
  });

  it("unregisters once, without touching a later registration of the same name; `using` unregisters too", () => {
    const first = register("in-memory");
    first.unregister();
    const second = register("in-memory");
    first.unregister();
    expect(parseServerConfig({ name: "handbook", transport: "in-memory", label: "x" }, where).transport).toBe("in-memory");
    second.unregister();
    {
      using _scoped = registerTransport("in-memory", memoryFactory());
      expect(parseServerConfig({ name: "handbook", transport: "in-memory", label: "x" }, where).transport).toBe("in-memory");
    }
    expect(() => parseServerConfig({ name: "handbook", transport: "in-memory", label: "x" }, where)).toThrow("none is registered");
  });
});

describe("a declaration naming a registered transport", () => {
  it("is refused when no transport of that name is registered, with the built-in and registered names", () => {
    expect(() => parseServerConfig({ name: "handbook", transport: "in-memory" }, where)).toThrow(
      `${where}: "transport" must be one of stdio, http, sse, websocket (built in), or a name given to registerTransport (none is registered), got "in-memory"`,
    );
    register("in-memory");
    register("unix-socket");
    expect(() => parseServerConfig({ name: "handbook", transport: "in-memry" }, where)).toThrow(
      '"transport" must be one of stdio, http, sse, websocket (built in) or in-memory, unix-socket (registered), got "in-memry" (did you mean "in-memory"?)',
    );
  });

  it("is checked when read: its own keys by the factory's parse, the ceilings by mcpwire; create is not called yet", () => {
    const counts = { parsed: 0, created: 0 };
    register("in-memory", memoryFactory(counts) as TransportFactory<object>);
    expect(parseServerConfig({ name: "handbook", transport: "in-memory", label: "handbook", retries: 2, timeoutMs: 5_000, url: undefined }, where)).toEqual({
      name: "handbook",
      transport: "in-memory",
      label: "handbook",
      retries: 2,
      timeoutMs: 5_000,
    });
    expect(counts).toEqual({ parsed: 1, created: 0 });
  });

  it.each([
    [{ label: "" }, `${where}: "label" must be a non-empty string, got ""`],
    [{ label: "x", retries: 1.5 }, `${where}: "retries" must be a whole number, got 1.5`],
    [{ label: "x", labl: "y" }, `${where}: unknown key "labl" (did you mean "label"?); besides name, transport and the four ceilings, the in-memory transport (registered) takes label, retries, url`],
    [{ label: "x", command: "node" }, `${where}: a in-memory server takes no "command"`],
    [{ label: "x", timeoutMs: 0 }, `"timeoutMs" must be a whole number`],
    [{ label: "x", name: "" }, `"name" must be a non-empty string`],
  ])("refuses %j naming the server and the key", (keys, words) => {
    register("in-memory");
    // ConfigError for the declaration's keys; a ceiling's check is the TypeError any declaration gets.
    expect(() => parseServerConfig({ name: "handbook", transport: "in-memory", ...keys }, where)).toThrow(TypeError);
    expect(() => parseServerConfig({ name: "handbook", transport: "in-memory", ...keys }, where)).toThrow(words);
  });

  it("reports a factory's own exception as a ConfigError naming the server, with the exception as its cause", () => {
    const broken = new RangeError("label too long");
    register("in-memory", {
      keys: ["label"],
      parse: () => {
        throw broken;
      },
      create: () => new MemoryTransport(createContractServer()),
    });
    let caught: unknown;
    try {
      parseServerConfig({ name: "handbook", transport: "in-memory", label: "x" }, where);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toBe(`${where}: the transport's factory refused the declaration (label too long)`);
    expect((caught as Error).cause).toBe(broken);
  });

  it("is built by the factory's create, with what parse made of its keys", () => {
    const created: object[] = [];
    register("in-memory", {
      keys: ["label"],
      parse: (keys) => ({ label: String(keys.label).toUpperCase() }),
      create(options, context) {
        created.push({ options, name: context.name });
        return new MemoryTransport(createContractServer(), (options as { label: string }).label);
      },
    });
    const transport = transportFor({ name: "handbook", transport: "in-memory", label: "shelf" } as never);
    expect(created).toEqual([{ options: { label: "SHELF" }, name: "handbook" }]);
    expect(transport.description).toBe("memory: SHELF");
  });

  it("given to transportFor() unread, is read there first: a misspelt key is refused, not ignored", () => {
    register("in-memory");
    expect(() => transportFor({ name: "handbook", transport: "in-memory", label: "x", retires: 2 } as never)).toThrow(
      'transportFor(): server "handbook": unknown key "retires" (did you mean "retries"?)',
    );
    expect(() => transportFor({ name: "handbook", transport: "in-memory", label: "x", timeoutMs: -5 } as never)).toThrow('"timeoutMs" must be a whole number');
  });

  it("refuses transport options beside it, and a factory that does not return a transport", () => {
    register("in-memory");
    const declaration = { name: "handbook", transport: "in-memory", label: "x" };
    expect(() => transportFor(declaration, { headers: { A: "b" } })).toThrow(
      'transportFor(): server "handbook": option "headers" is for the http and sse and websocket transports, but the target resolved to the in-memory transport (registered) of server "handbook"; a registered transport takes no transport options here: its keys belong in the declaration',
    );
    register("nothing", { keys: [], create: () => ({ kind: "nothing" }) as never });
    expect(() => transportFor({ name: "handbook", transport: "nothing" })).toThrow(
      'transportFor(): server "handbook": the factory of the nothing transport returned an object, not an McpTransport',
    );
  });

  it("read before its transport was unregistered is refused when built, not built by a stale factory", () => {
    const registration = register("in-memory");
    const declaration = parseServerConfig({ name: "handbook", transport: "in-memory", label: "x" }, where);
    registration.unregister();
    expect(() => transportFor(declaration)).toThrow('"transport" must be one of stdio, http, sse, websocket (built in)');
  });

  it("connects with its declared ceilings in force", async () => {
    register("in-memory");
    await using client = await connect({ name: "handbook", transport: "in-memory", label: "shelf", maxInFlight: 3, timeoutMs: 7_000 } as never);
    expect(client.transportKind).toBe("memory");
    expect(client.session.limits).toMatchObject({ maxInFlight: 3, timeoutMs: 7_000 });
    expect((await client.callTool("echo", { text: "through the registry" })).content).toEqual([{ type: "text", text: "through the registry" }]);
  });
});

describe("a registered transport in files and the environment", () => {
  it('is named by "transport" or by "type" in an mcpServers file, and an unknown type says so', () => {
    register("in-memory");
    const file = parseServersFile(
      JSON.stringify({ mcpServers: { a: { transport: "in-memory", label: "a" }, b: { type: "in-memory", label: "b", description: "host's note" } } }),
      "mcp.json",
      {},
    );
    expect(file.servers).toEqual({ a: { name: "a", transport: "in-memory", label: "a" }, b: { name: "b", transport: "in-memory", label: "b" } });
    expect(() => parseServersFile(JSON.stringify({ servers: { c: { type: "in-memry" } } }), "mcp.json", {})).toThrow(
      'mcp.json: server "c": "type" must be one of stdio, http, streamable-http, streamableHttp, sse, ws, websocket, or a transport given to registerTransport, got "in-memry"',
    );
  });

  it("takes its keys from the environment (JSON or text), checked by its factory as a file's are", async () => {
    register("in-memory");
    const env = {
      MCPWIRE_SERVER_HANDBOOK_TRANSPORT: "in-memory",
      MCPWIRE_SERVER_HANDBOOK_LABEL: "from the environment",
      MCPWIRE_SERVER_HANDBOOK_RETRIES: "3",
      MCPWIRE_SERVER_HANDBOOK_TIMEOUT_MS: "4000",
    };
    // A server the environment alone declares needs no file.
    const config = await loadServerConfig("handbook", { cwd: "/nonexistent", home: "/nonexistent", env });
    expect(config).toEqual({ name: "handbook", transport: "in-memory", label: "from the environment", retries: 3, timeoutMs: 4_000 });
    await expect(loadServerConfig("handbook", { cwd: "/nonexistent", home: "/nonexistent", env: { ...env, MCPWIRE_SERVER_HANDBOOK_RETRIES: "many" } })).rejects.toThrow(
      '"retries" must be a whole number, got "many"',
    );
  });

  it("moves a server to it, dropping the old transport's keys, and away from it with a URL or a command", () => {
    register("in-memory", { keys: ["label"], create: () => new MemoryTransport(createContractServer()) });
    const stdio = { name: "handbook", transport: "stdio", command: "uvx", args: ["handbook-mcp"], cwd: "/srv", timeoutMs: 5_000 };
    expect(applyEnvOverrides(stdio, "handbook", { MCPWIRE_SERVER_HANDBOOK_TRANSPORT: "in-memory", MCPWIRE_SERVER_HANDBOOK_LABEL: "x" })).toEqual({
      name: "handbook",
      transport: "in-memory",
      label: "x",
      timeoutMs: 5_000,
    });
    const registered = { name: "handbook", transport: "in-memory", label: "x", timeoutMs: 5_000 };
    expect(applyEnvOverrides(registered, "handbook", { MCPWIRE_SERVER_HANDBOOK_URL: "https://handbook.example.com/mcp" })).toEqual({
      name: "handbook",
      transport: "http",
      url: "https://handbook.example.com/mcp",
      timeoutMs: 5_000,
    });
    expect(() => applyEnvOverrides(registered, "handbook", { MCPWIRE_SERVER_HANDBOOK_TRANSPORT: "in-memry" })).toThrow(
      'environment variable MCPWIRE_SERVER_HANDBOOK_TRANSPORT: "transport" must be one of stdio, http, sse, websocket (built in) or in-memory (registered), got "in-memry" (did you mean "in-memory"?)',
    );
  });

  it("reads a variable named like a built-in field as its own key when it takes that key, and stays on it", () => {
    register("in-memory");
    const declared = { name: "handbook", transport: "in-memory", label: "x" };
    const config = applyEnvOverrides(declared, "handbook", { MCPWIRE_SERVER_HANDBOOK_URL: "quic://handbook.internal:4433", MCPWIRE_SERVER_HANDBOOK_CWD: "/srv" });
    expect(config).toEqual({ name: "handbook", transport: "in-memory", label: "x", url: "quic://handbook.internal:4433", cwd: "/srv" });
    // CWD is stdio's: the in-memory transport does not take it, and the declaration says so.
    expect(() => parseServerConfig(config, where)).toThrow('a in-memory server takes no "cwd"');
  });
});
