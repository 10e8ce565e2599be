/**
 * The options each transport takes beside its target, through `connect(target, options)` and
 * `transportFor(config, options)`: one list per transport, taken from the transport itself, and
 * the check that refuses a key the resolved transport does not read (a key of another transport,
 * or a typo), naming the transport and what it takes. Never a silent drop.
 */
import type { HeadersOption } from "../transport/http/http-options.js";
import { SSE_OPTION_NAMES } from "../transport/http/sse.js";
import { STDIO_OPTION_NAMES, type StdioTransportOptions } from "../transport/stdio/stdio.js";
import { STREAMABLE_HTTP_OPTION_NAMES, type StreamableHttpOptions } from "../transport/http/streamable-http.js";
import { WEBSOCKET_OPTION_NAMES, type WebSocketOptions } from "../transport/websocket/websocket.js";
import { didYouMean } from "../util/option-names.js";
import type { TransportName } from "./builtin-names.js";

/** Options of every transport, each read only by the transports that take it (see `TRANSPORT_OPTION_NAMES`). */
export interface TransportOptions
  extends Omit<StdioTransportOptions, "command" | "args">,
    Omit<StreamableHttpOptions, "headers">,
    Omit<WebSocketOptions, "headers"> {
  /**
   * http, sse, websocket: headers merged over the declared ones, per header; a function is called
   * per request (per connection attempt for WebSocket), so a token can rotate.
   */
  headers?: HeadersOption;
  /** http: try the legacy HTTP+SSE transport when the server refuses Streamable HTTP (400, 404, 405). @default true */
  fallback?: boolean;
}

/** Which options each transport takes through `connect()` and `transportFor()`. */
export const TRANSPORT_OPTION_NAMES: Readonly<Record<TransportName, readonly (keyof TransportOptions)[]>> = {
  // The argv is the target itself.
  stdio: STDIO_OPTION_NAMES.filter((name) => name !== "command" && name !== "args") as (keyof TransportOptions)[],
  http: [...STREAMABLE_HTTP_OPTION_NAMES, "fallback"],
  sse: SSE_OPTION_NAMES,
  websocket: WEBSOCKET_OPTION_NAMES,
};

const ALL_TRANSPORT_OPTION_NAMES: readonly string[] = [...new Set<string>(Object.values(TRANSPORT_OPTION_NAMES).flat())];

/** What a target resolved to, for messages: a transport by name, or a transport object given ready-made. */
export interface ResolvedKind {
  /** `stdio`, `http`, `sse`, `websocket`, or a given transport's `kind` (`memory`, `recording`, ...). */
  transport: TransportName | string;
  /** How the target reads in a message, e.g. `stdio: node server.js`. */
  description: string;
  /** A transport object already built: it takes no options here, whatever its kind. */
  readyMade?: boolean;
  /** A transport given to `registerTransport`: its keys are in the declaration, never options here. */
  registered?: boolean;
}

/**
 * Refuses any key of `options` the resolved transport does not take. `otherNames` are the keys
 * the caller reads itself (the client's options, for `connect()`), offered in "did you mean" too.
 */
export function checkTransportOptions(
  options: object,
  resolved: ResolvedKind,
  where: string,
  otherNames: readonly string[] = [],
): void {
  const takes: readonly string[] = !resolved.readyMade && isTransportName(resolved.transport) ? TRANSPORT_OPTION_NAMES[resolved.transport] : [];
  for (const key of Object.keys(options)) {
    if (takes.includes(key) || (options as Record<string, unknown>)[key] === undefined) continue;
    throw new TypeError(`${where}: ${why(key, resolved, takes, otherNames)}`);
  }
}

function why(key: string, resolved: ResolvedKind, takes: readonly string[], otherNames: readonly string[]): string {
  const target = `the target resolved to ${resolved.description}`;
  const taken =
    takes.length > 0
      ? `the ${resolved.transport} transport takes ${takes.join(", ")}`
      : resolved.registered
        ? `a registered transport takes no transport options here: its keys belong in the declaration`
        : "a transport given ready-made takes no transport options here: give them to its constructor";
  const client = otherNames.length > 0 ? `; every target also takes ${otherNames.join(", ")}` : "";
  if (ALL_TRANSPORT_OPTION_NAMES.includes(key)) {
    const owners = Object.entries(TRANSPORT_OPTION_NAMES)
      .filter(([, names]) => (names as readonly string[]).includes(key))
      .map(([name]) => name);
    return `option "${key}" is for the ${owners.join(" and ")} transport${owners.length > 1 ? "s" : ""}, but ${target}; ${taken}${client}`;
  }
  return `unknown option "${key}"${didYouMean(key, [...takes, ...otherNames])}; ${target}, and ${taken}${client}`;
}

function isTransportName(name: string): name is TransportName {
  return Object.hasOwn(TRANSPORT_OPTION_NAMES, name);
}
