/**
 * The legacy HTTP+SSE transport (MCP revision 2024-11-05, basic/transports "HTTP with SSE"): how
 * servers were reached over HTTP before Streamable HTTP replaced it, and how some still are.
 *
 * `open()` makes a GET to the SSE URL and waits, within `timeoutMs`, for the server's `endpoint`
 * event; the endpoint is resolved against the SSE URL and refused on another origin. Every
 * message is then POSTed to it, and replies and server messages arrive as `message` events on the
 * stream (sse-connection.ts). When the stream ends, the connection ends with DISCONNECTED; a new
 * `open()` (the client's `reconnect`) makes a new stream and initializes again.
 *
 * Redirects, content types, statuses, attempts and byte ceilings follow the endpoint policy
 * (common/endpoint-policy.ts), shared with Streamable HTTP.
 */
import { abortReason } from "../../util/abort.js";
import {
  checkEndpointUrl,
  httpClientFor,
  HTTP_ENDPOINT_OPTION_NAMES,
  resolveHttpOptions,
  type HttpEndpointOptions,
  type ResolvedHttpOptions,
} from "./http-options.js";
import { SSE_KIND, SseConnection } from "./sse-connection.js";
import type { ConnectionEvents, McpConnection, McpTransport, OpenOptions } from "../transport.js";
import { shownUrl } from "../../util/shown-url.js";

/**
 * `headers` go on the GET of the stream and on every POST; the transport's own (`Accept`,
 * `Content-Type`) override them. `fetch` and `redirect`: see `HttpEndpointOptions`.
 */
export type SseOptions = HttpEndpointOptions;

/** Every option `SseTransport` takes. */
export const SSE_OPTION_NAMES = HTTP_ENDPOINT_OPTION_NAMES;

export class SseTransport implements McpTransport {
  readonly kind = SSE_KIND;
  /** This wire carries only the revisions that have an `initialize` handshake: no era probe. */
  readonly era = "legacy" as const;
  readonly description: string;
  /** The SSE URL (the GET stream). */
  readonly url: URL;
  private readonly options: ResolvedHttpOptions;

  constructor(url: string | URL, options: SseOptions = {}) {
    this.url = checkEndpointUrl(url, "SseTransport", "https://example.com/sse");
    this.options = resolveHttpOptions(options, "SseTransport", SSE_OPTION_NAMES);
    // Only scheme, host and path: a query string may carry a token.
    this.description = `${SSE_KIND}: ${shownUrl(this.url)}`;
  }

  async open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection> {
    if (options.signal?.aborted) throw abortReason(options.signal);
    const connection = new SseConnection(this.url, this.options, events, options.limits, await httpClientFor(this.options, options.limits.maxInFlight));
    await connection.start(options.signal);
    return connection;
  }
}
