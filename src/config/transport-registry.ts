/**
 * Transports registered by name, so that a declaration or a config file can name a transport
 * written outside mcpwire: `{ "transport": "unix-socket", "path": "/run/handbook.sock" }`.
 *
 * The registry belongs to the process (to the copy of mcpwire it loaded): register before a
 * declaration naming the transport is read, since it is checked when read. The factory checks
 * the keys of its own transport; mcpwire checks `name`, `transport` and the four ceilings, and
 * applies the ceilings to every connection as it does for its own transports (the session keeps
 * `maxInFlight` and `timeoutMs`, the transport gets `maxMessageBytes` and `readTimeoutMs` in
 * `open`'s options and keeps them at its wire).
 */
import type { McpTransport } from "../transport/transport.js";
import { didYouMean } from "../util/option-names.js";
import { describeValue } from "../util/whole-number.js";
import { COMMON_KEYS, HOST_KEYS, TRANSPORT_NAMES, TRANSPORT_TYPE_ALIASES } from "./builtin-names.js";

/** What a factory is told about the declaration it reads or builds. */
export interface TransportFactoryContext {
  /** The server's name in the declaration. */
  readonly name: string;
  /** Where the declaration comes from, for messages: `mcp.json: server "handbook"`. */
  readonly where: string;
  /** Refuses the declaration: throws a `ConfigError` whose message starts with `where`. */
  fail(problem: string): never;
}

/**
 * How a registered transport is read from a declaration and built.
 *
 * `Options` is what `parse` makes of the declaration's own keys, and what `create` gets.
 */
export interface TransportFactory<Options extends object = Record<string, unknown>> {
  /**
   * The keys a declaration of this transport takes besides `name`, `transport` and the four
   * ceilings (each a plain name such as `path` or `connectTimeoutMs`). Any other key is refused
   * before `parse` runs, with a "did you mean" for a typo; each may also be set from the
   * environment (`MCPWIRE_SERVER_<NAME>_<KEY>`, the key in upper snake case).
   */
  readonly keys: readonly string[];
  /**
   * Checks the declaration's own keys (only those it gives, among `keys`) when the declaration is
   * read: `parseServerConfig`, a config file, `loadServerConfig`, `connect()`. Refuse a bad value
   * with `context.fail("...")`, naming the key, the value and what is allowed. It runs again when
   * the transport is built, so it must not depend on anything but its input.
   * Without it, `create` gets the keys as given.
   */
  parse?(keys: Readonly<Record<string, unknown>>, context: TransportFactoryContext): Options;
  /**
   * Builds the transport of one declaration (`transportFor()`, `connect()`). Opening it is the
   * transport's `open`; building one should start nothing.
   */
  create(options: Options, context: TransportFactoryContext): McpTransport;
}

/** A transport's place in the registry. `using` it unregisters at the end of the block. */
export interface TransportRegistration {
  readonly name: string;
  /** Removes this registration; later declarations naming it are refused. Idempotent. */
  unregister(): void;
  [Symbol.dispose](): void;
}

/** A registered name: lower-case letters, digits and dashes, starting with a letter (it is written in files and variables). */
const TRANSPORT_NAME = /^[a-z][a-z0-9-]*$/;
/** A declaration key a variable name can be made of. */
const KEY_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

const registry = new Map<string, TransportFactory<object>>();

/**
 * Registers a transport under `name`, for declarations and config files that say
 * `"transport": name` (or `"type": name` in a file). A built-in name (or another name files give
 * a built-in transport), a name already registered, or a factory without `keys` and `create`
 * is refused with a TypeError.
 */
export function registerTransport<Options extends object>(name: string, factory: TransportFactory<Options>): TransportRegistration {
  const where = `registerTransport(${describeValue(name)})`;
  if (typeof name !== "string" || !TRANSPORT_NAME.test(name)) {
    throw new TypeError(`${where}: a transport's name is lower-case letters, digits and dashes, starting with a letter, such as "unix-socket"`);
  }
  if ((TRANSPORT_NAMES as readonly string[]).includes(name) || Object.hasOwn(TRANSPORT_TYPE_ALIASES, name)) {
    throw new TypeError(`${where}: "${name}" names a built-in transport (${TRANSPORT_NAMES.join(", ")}); choose another name`);
  }
  if (registry.has(name)) throw new TypeError(`${where}: a transport named "${name}" is already registered; unregister it first`);
  checkFactory(factory, where);
  // A copy, so that later changes to the caller's object do not bypass these checks; bound, so a
  // factory written as a class keeps its own state.
  const entry: TransportFactory<object> = {
    keys: Object.freeze([...factory.keys]),
    parse: factory.parse?.bind(factory),
    create: factory.create.bind(factory) as TransportFactory<object>["create"],
  };
  registry.set(name, entry);
  const unregister = () => {
    // Only this registration: the name may have been registered again since.
    if (registry.get(name) === entry) registry.delete(name);
  };
  return { name, unregister, [Symbol.dispose]: unregister };
}

function checkFactory(factory: TransportFactory<object>, where: string): void {
  if (typeof factory !== "object" || factory === null) {
    throw new TypeError(`${where}: the factory must be an object { keys, parse?, create }, got ${describeValue(factory)}`);
  }
  if (typeof factory.create !== "function") throw new TypeError(`${where}: the factory needs create(options, context), which returns an McpTransport`);
  if (factory.parse !== undefined && typeof factory.parse !== "function") throw new TypeError(`${where}: the factory's parse must be a function`);
  // A misspelt member of a plain object ("parser") would skip the check silently; a class may have fields of its own.
  const plain = Object.getPrototypeOf(factory) === Object.prototype || Object.getPrototypeOf(factory) === null;
  const extra = plain ? Object.keys(factory).find((key) => key !== "keys" && key !== "parse" && key !== "create") : undefined;
  if (extra !== undefined) throw new TypeError(`${where}: the factory has an unknown member "${extra}"${didYouMean(extra, ["keys", "parse", "create"])}; it takes keys, parse, create`);
  if (!Array.isArray(factory.keys)) throw new TypeError(`${where}: the factory needs keys, the list of its declaration's own keys ([] for none)`);
  for (const key of factory.keys as unknown[]) {
    if (typeof key !== "string" || !KEY_NAME.test(key)) {
      throw new TypeError(`${where}: key ${describeValue(key)} is not a plain name (letters and digits, starting with a letter)`);
    }
    if (COMMON_KEYS.includes(key)) throw new TypeError(`${where}: key "${key}" belongs to every declaration and is checked by mcpwire; leave it out of keys`);
    // A file's "type" is another name for "transport", and hosts keep the others for themselves.
    if (key === "type" || HOST_KEYS.has(key)) throw new TypeError(`${where}: key "${key}" has a meaning of its own in config files; choose another name`);
  }
  if (new Set(factory.keys).size !== factory.keys.length) throw new TypeError(`${where}: keys lists a key twice`);
}

/** The factory registered under `name`, if any. */
export function registeredTransport(name: unknown): TransportFactory<object> | undefined {
  return typeof name === "string" ? registry.get(name) : undefined;
}

/** Why a transport name is refused: the built-in names, the registered ones, and a guess. */
export function unknownTransport(value: unknown): string {
  const registered = [...registry.keys()];
  const names = [...TRANSPORT_NAMES, ...registered];
  const guess = typeof value === "string" ? didYouMean(value, names) : "";
  return (
    `"transport" must be one of ${TRANSPORT_NAMES.join(", ")} (built in)` +
    (registered.length > 0 ? ` or ${registered.join(", ")} (registered)` : ", or a name given to registerTransport (none is registered)") +
    `, got ${describeValue(value)}${guess}`
  );
}
