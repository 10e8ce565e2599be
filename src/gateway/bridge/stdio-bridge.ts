/**
 * HTTP to stdio: `startStdioBridge(options)` serves a remote MCP server to a host that speaks only
 * stdio (the relay itself, and what it adds, is bridge-relay.ts). The options are checked at once;
 * the relay is loaded by a dynamic import, so that a program that imports mcpwire and never
 * bridges (a client) does not load it (bench/RESULTS.md, "Where a stdio client's memory goes").
 * The host's input is read from the turn after: a stream keeps what arrives until it is read.
 */
import { checkLimit, resolveLimits } from "../../transport/limits.js";
import { didYouMean, firstUnknownKey } from "../../util/option-names.js";
import { STDIO_BRIDGE_DEFAULTS, type StdioBridgeOptions } from "./bridge-options.js";

export interface StdioBridge {
  /**
   * Settles once the bridge ended: the host's input ended and what was in flight was answered
   * (or `STDIN_END_DRAIN_MS` passed), or `close()` was called; the remote session is ended by then.
   */
  readonly done: Promise<void>;
  /** Ends now: requests in flight get an error answer, the remote session is ended. Idempotent. */
  close(): Promise<void>;
}

const OPTION_NAMES: readonly (keyof StdioBridgeOptions)[] = ["transport", "input", "output", "timeoutMs", "limits", "log"];

/** Starts relaying between the host's streams and the remote; see bridge-relay.ts. */
export function startStdioBridge(options: StdioBridgeOptions): StdioBridge {
  const unknown = firstUnknownKey(options, OPTION_NAMES);
  if (unknown !== undefined) throw new TypeError(`startStdioBridge: unknown option "${unknown}"${didYouMean(unknown, OPTION_NAMES)}`);
  if (options.transport === undefined || typeof options.transport.open !== "function") {
    throw new TypeError("startStdioBridge: transport must be an McpTransport (transportFor(), a StreamableHttpTransport...)");
  }
  const limits = resolveLimits(options.limits, "startStdioBridge: limits");
  const timeoutMs = checkLimit("timeoutMs", options.timeoutMs ?? STDIO_BRIDGE_DEFAULTS.timeoutMs, "startStdioBridge");
  const bridge = import("./bridge-relay.js").then(({ Bridge }) => new Bridge(options, limits, timeoutMs));
  return { done: bridge.then((started) => started.done), close: () => bridge.then((started) => started.close()) };
}
