/**
 * What `startStdioBridge(options)` takes: a remote MCP server (any mcpwire transport, usually
 * Streamable HTTP with its legacy HTTP+SSE fallback) and the host's two streams. The bridge is a
 * transparent relay: the host's messages reach the remote as they are, and the remote's come back.
 */
import type { McpTransport } from "../../transport/transport.js";
import type { Limits } from "../../transport/limits.js";

export interface StdioBridgeOptions {
  /** The remote server. The bridge opens it when the host's first message comes, and again after it went away. */
  transport: McpTransport;
  /** The host's messages: JSON-RPC, one per line (MCP basic/transports, stdio). */
  input: NodeJS.ReadableStream;
  /** Where the remote's messages go, one per line; nothing else is ever written there. */
  output: NodeJS.WritableStream;
  /**
   * How long one forwarded request may wait for the remote's answer, in ms; past it the host gets
   * an error answer and the remote `notifications/cancelled` (or, where closing the request's
   * stream is its cancellation, the stream closed). @default 60_000
   */
  timeoutMs?: number;
  /**
   * `maxMessageBytes` (both directions: a longer line from the host, or message from the remote, is
   * LIMIT), `readTimeoutMs` (a remote silent that long while a request waits: TIMEOUT), and
   * `maxInFlight` (requests forwarded at once; one more is answered LIMIT at once, not queued).
   * @default the transport defaults (16 MiB, 5 minutes, 64)
   */
  limits?: Partial<Omit<Limits, "timeoutMs">>;
  /** Diagnostics: one JSON object per call, never a header value or a message body. @default none */
  log?: (line: string) => void;
}

/**
 * How many times one request is sent again after the remote forgot the legacy session (HTTP 404)
 * and the bridge initialized a new one for it. A server that forgets every new session at once
 * would otherwise make the bridge loop; past this the host gets an error answer.
 * @default 2
 */
export const MAX_SESSION_RENEWALS = 2;

/**
 * After the host's stdin ends, how long requests already forwarded get to be answered (their
 * answers still go to stdout, which a host may still read), in ms; then they get an error answer
 * and the remote session is ended. A signal (SIGINT, SIGTERM) does not wait.
 * @default 5_000
 */
export const STDIN_END_DRAIN_MS = 5_000;

export const STDIO_BRIDGE_DEFAULTS = Object.freeze({
  timeoutMs: 60_000,
});

/** The id prefix of the requests the bridge sends on its own (a replayed `initialize`, a re-issued request). */
export const BRIDGE_ID_PREFIX = "mcpwire-bridge-";
