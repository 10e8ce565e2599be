/**
 * The one small interface between the HTTP transports and whatever speaks HTTP underneath.
 *
 * The default on Node is a keep-alive undici client (undici-http-client.ts); a user-supplied
 * `fetch` replaces it (fetch-http-client.ts) for tests, instrumentation and runtimes without
 * Node's networking. Everything the protocol cares about (redirects, content types,
 * status codes, attempts, byte ceilings) is decided above this interface, in endpoint-policy.ts,
 * so every client behaves the same.
 *
 * A client never follows redirects itself, and reports failures before a response in two kinds,
 * as `McpTransportError`:
 * - UNAVAILABLE: the connection could not be made (refused, DNS, TLS, connect deadline). Nothing
 *   reached the server, so the request may be tried again.
 * - DISCONNECTED: the connection was lost after the request went out. The server may have acted
 *   on it, so it is never sent again.
 * An aborted request rejects with the signal's reason.
 */

import type { AbortSignalLike } from "./request-abort.js";

export type HttpMethod = "GET" | "POST" | "DELETE";

export interface HttpRequest {
  method: HttpMethod;
  url: URL;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body?: string;
  /** Aborts this request and its response body; each request has its own. */
  signal: AbortSignalLike;
}

export interface HttpResponse {
  readonly status: number;
  /** A response header by lower-case name; several values are joined with ", ". */
  header(name: string): string | undefined;
  /**
   * Reads the body, once, handing each chunk to `onChunk` as it arrives (a callback rather than
   * an async iterator: no promise per chunk). Resolves when the server ends the body; rejects
   * when the connection is lost or the body was discarded before its end, and with what
   * `onChunk` threw, after discarding the body.
   */
  read(onChunk: (chunk: Uint8Array) => void): Promise<void>;
  /** Stops reading and releases the connection. Safe at any time, more than once. */
  discard(): void;
}

export interface HttpClient {
  /** Never throws: every failure is a rejection (the endpoint policy chains onto the promise as it is). */
  request(request: HttpRequest): Promise<HttpResponse>;
  /** Releases every connection the client holds. Idempotent. */
  close(): Promise<void>;
}

/** The shape of `fetch` mcpwire calls: the global one, undici's, or any compatible function. */
export type FetchLike = (
  input: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: string;
    signal: AbortSignal;
    redirect: "manual";
  },
) => Promise<FetchLikeResponse>;

/** What mcpwire reads of a fetch `Response`. */
export interface FetchLikeResponse {
  readonly status: number;
  readonly type?: string;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
}
