/**
 * What `McpClient` (and `connect()`, beside the transport's options) takes, and the check that
 * refuses a key nobody reads.
 */
import type { Implementation } from "../protocol/schemas.js";
import type { SessionOptions } from "../session/session.js";
import { LIMIT_NAMES } from "../transport/limits.js";
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import type { EraName } from "./era.js";
import type { ProtocolChoice } from "./era-negotiation.js";
import type { ClientCapabilities, ClientHandlers } from "./handlers.js";
import type { ReconnectOptions } from "./reconnect.js";

export interface ClientOptions extends SessionOptions {
  /** How the client introduces itself. @default { name: "mcpwire", version: <this package's version> } */
  clientInfo?: Implementation;
  /** Answers to server-to-client requests; the capabilities declared follow them. */
  handlers?: ClientHandlers;
  /** Capabilities declared on top of those the handlers imply (e.g. `experimental`). */
  capabilities?: ClientCapabilities;
  /**
   * Which protocol to speak: `"auto"` finds out which era the server speaks (legacy, with the
   * `initialize` handshake, or modern, revision 2026-07-28), `"legacy"` or `"modern"` skips the
   * probe, and a revision such as `"2025-06-18"` pins it. @default "auto"
   */
  protocolVersion?: ProtocolChoice;
  /**
   * The era this server was found to speak before (e.g. `client.era` saved from a previous run):
   * skips the probe; if it proves wrong, the client probes again. @default what this process
   * found for the same server, if anything
   */
  era?: EraName;
  /**
   * stdio and other single-stream wires: how long the era probe (`server/discover`) waits before
   * `initialize` is tried beside it, in ms. @default 3_000
   */
  probeTimeoutMs?: number;
  /** Modern era: the most rounds of server questions one request may take. @default 8 */
  maxInputRounds?: number;
  /** The most pages a list method follows before it fails with PROTOCOL. @default 100 */
  maxPages?: number;
  /** Aborts connecting (opening and handshake); the whole is also bounded by `timeoutMs`. */
  signal?: AbortSignal;
  /**
   * Opt-in: when the connection drops, open the transport again and run the handshake again,
   * with exponential backoff and jitter (1 s doubling, capped at 60 s, 5 attempts by default).
   * Requests pending at the drop fail with DISCONNECTED; requests made while reconnecting wait
   * for it within their own `timeoutMs`. @default false
   */
  reconnect?: boolean | ReconnectOptions;
  /**
   * Checks the `structuredContent` of every tool result (but `isError` ones) against the tool's
   * `outputSchema`, from the latest tool list (listed on demand for a tool not seen yet): a
   * mismatch, or no `structuredContent` from a tool that declares a schema, is a PROTOCOL failure
   * of kind `output_schema`. `false` turns it off; `callTool`'s own option overrides it. @default true
   */
  validateOutput?: boolean;
}

/** Every option `McpClient` takes, the session's four ceilings among them. */
export const CLIENT_OPTION_NAMES = [
  "clientInfo",
  "handlers",
  "capabilities",
  "protocolVersion",
  "era",
  "probeTimeoutMs",
  "maxInputRounds",
  "maxPages",
  "signal",
  "reconnect",
  "validateOutput",
  ...LIMIT_NAMES,
] as const satisfies readonly (keyof ClientOptions)[];

// A key added to ClientOptions but not to the list above would be refused at run time; this fails the build instead.
const everyClientOptionListed: Exclude<keyof ClientOptions, (typeof CLIENT_OPTION_NAMES)[number]> extends never ? true : never = true;
void everyClientOptionListed;

/** Refuses a key of `options` that is not a client option, naming it and what is taken. */
export function checkClientOptionNames(options: ClientOptions): void {
  if (typeof options !== "object" || options === null) throw new TypeError("McpClient: options must be an object");
  const unknown = firstUnknownKey(options, CLIENT_OPTION_NAMES);
  if (unknown === undefined) return;
  throw new TypeError(
    `McpClient: unknown option "${unknown}"${didYouMean(unknown, CLIENT_OPTION_NAMES)}; the options are ${CLIENT_OPTION_NAMES.join(", ")}` +
      " (options of a transport, such as keepAlive or env, go to connect() or to the transport's constructor)",
  );
}
