/**
 * An HTTP client over a user-supplied `fetch`: for proxies, custom TLS, tests, and runtimes
 * without `node:http`. The `fetch` is called with `redirect: "manual"` so that the endpoint
 * policy, not the fetch implementation, decides about every redirect.
 *
 * `fetch` reports every network failure the same way (a TypeError), so the kind is read from
 * its `cause` where Node's fetch puts an error code; an unknown failure counts as unreachable.
 */
import { McpTransportError } from "../../errors.js";
import { abortReason } from "../../util/abort.js";
import { notHttpAnswerIn } from "../common/not-http-answer.js";
import { toAbortSignal } from "./request-abort.js";
import type { FetchLike, FetchLikeResponse, HttpClient, HttpRequest, HttpResponse } from "./http-client.js";

/** Codes that mean the connection was never made, so nothing reached the server. */
const CONNECT_FAILURE_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
]);

/** Codes that mean the connection was lost after the request went out. */
const LOST_CONNECTION_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

export class FetchHttpClient implements HttpClient {
  constructor(private readonly fetchImpl: FetchLike) {}

  async request(request: HttpRequest): Promise<HttpResponse> {
    const { signal } = request;
    if (signal.aborted) throw abortReason(signal);
    let response: FetchLikeResponse;
    try {
      response = await this.fetchImpl(request.url.href, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        signal: toAbortSignal(signal),
        redirect: "manual",
      });
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      if (error instanceof McpTransportError) throw error;
      const notHttp = notHttpAnswerIn(error);
      if (notHttp !== undefined) throw notHttp;
      const code = errorCode(error);
      if (code !== undefined && LOST_CONNECTION_CODES.has(code)) {
        throw new McpTransportError("DISCONNECTED", "the connection closed before the endpoint answered", { cause: error });
      }
      if (code === undefined || CONNECT_FAILURE_CODES.has(code) || /^(ERR_TLS|ERR_SSL|CERT_)/.test(code)) {
        throw new McpTransportError("UNAVAILABLE", "the connection to the endpoint could not be made", { cause: error });
      }
      throw new McpTransportError("DISCONNECTED", "the request to the endpoint failed", { cause: error });
    }
    return fetchResponse(response);
  }

  async close(): Promise<void> {
    // The fetch implementation owns its connections; each response body is cancelled on its own.
  }
}

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function fetchResponse(response: FetchLikeResponse): HttpResponse {
  const stream = response.body;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let discarded = false;
  const discard = () => {
    if (discarded) return;
    discarded = true;
    const cancelled = reader ? reader.cancel() : stream && !stream.locked ? stream.cancel() : undefined;
    cancelled?.catch(() => {});
  };
  const cutOff = () => new Error("the response body was discarded before its end");
  return {
    // A browser-like fetch hides a manual redirect behind status 0: report it as a redirect.
    status: response.type === "opaqueredirect" ? 0 : response.status,
    header(name) {
      return response.headers.get(name) ?? undefined;
    },
    async read(onChunk) {
      if (discarded) throw cutOff();
      if (!stream) return;
      reader = stream.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          // A discarded body's reader is cancelled, which reads as an end: it is not one.
          if (discarded) throw cutOff();
          if (done) return;
          if (value) onChunk(value);
        }
      } catch (error) {
        discard();
        throw error;
      } finally {
        reader.releaseLock();
      }
    },
    discard,
  };
}
