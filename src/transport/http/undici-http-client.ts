/**
 * The default HTTP client on Node: undici's keep-alive agent, driven through its dispatch
 * handler interface.
 *
 * undici is the Node.js project's own HTTP/1.1 client (the engine under the global `fetch`),
 * without dependencies. Measured side by side on one loopback server, its `request()` costs less
 * client CPU per call than `node:http` with a keep-alive agent, sequentially and with many calls
 * in flight (bench/RESULTS.md). Below `request()` is `dispatch(options, handler)`: the handler
 * is told of the headers, each chunk and the end. `request()` puts an async resource, a
 * `Readable` and a promise around that; this client needs none of them (`HttpResponse.read`
 * takes a callback per chunk), so it is its own handler. Only the parts used are loaded, on the
 * first request (undici-parts.ts), so a process that never speaks HTTP never loads them.
 *
 * undici's own timeouts are off: the transports keep their own deadlines (a read stall, a
 * request's time, an event stream that stays open for hours), and two sets would fight. Only
 * the connection has a deadline here, `CONNECT_TIMEOUT_MS`.
 *
 * Each client owns its dispatcher, so `close()` destroys exactly the sockets this connection
 * opened.
 */
import type { Dispatcher } from "undici";
import { McpTransportError } from "../../errors.js";
import { abortReason } from "../../util/abort.js";
import { networkFailureIn } from "../net/network-failures.js";
import { notHttpAnswerIn } from "../common/not-http-answer.js";
import type { HttpClient, HttpRequest, HttpResponse } from "./http-client.js";
import { undiciParts, type UndiciParts } from "./undici-parts.js";

/**
 * How long a new connection (TCP, and TLS for https) may take, in ms. Past it the endpoint is
 * unreachable (a firewall that drops packets otherwise costs the operating system's minutes).
 * @default 10_000
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/** Makes the dispatcher of one client, on its first request, from the parts of undici loaded then. */
export type DispatcherFactory = (undici: UndiciParts) => Dispatcher;

export class UndiciHttpClient implements HttpClient {
  private dispatcher: Dispatcher | undefined;
  private closed = false;
  private lastTarget: RequestTarget | undefined;

  /**
   * @param makeDispatcher the dispatcher this client sends through (transport/net/dispatcher.ts
   *   `netDispatcher`: direct or through a proxy, with the server's TLS options). Its connector
   *   turns a connection that could not be made into an UNAVAILABLE McpTransportError, so any
   *   other socket error before the response is a connection lost mid-request.
   */
  constructor(private readonly makeDispatcher: DispatcherFactory) {}

  request(request: HttpRequest): Promise<HttpResponse> {
    if (request.signal.aborted) return Promise.reject(abortReason(request.signal));
    if (this.closed) return Promise.reject(new McpTransportError("DISCONNECTED", "the HTTP client is closed"));
    if (this.dispatcher === undefined) {
      try {
        this.dispatcher = this.makeDispatcher(undiciParts());
      } catch (cause) {
        return Promise.reject(new McpTransportError("UNAVAILABLE", "the HTTP client could not be set up", { cause }));
      }
    }
    const target = this.target(request.url);
    return new Promise<HttpResponse>((resolve, reject) => {
      const exchange = new Exchange(request.signal, resolve, reject);
      try {
        this.dispatcher!.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: request.method,
            // undici adds Content-Length itself for a string body.
            headers: request.headers,
            body: request.body ?? null,
          },
          exchange,
        );
      } catch (error) {
        exchange.onError(error as Error);
      }
    });
  }

  /** The origin and path of a URL, worked out once per endpoint rather than per request. */
  private target(url: URL): RequestTarget {
    if (this.lastTarget?.href !== url.href) {
      this.lastTarget = { href: url.href, origin: url.origin, path: `${url.pathname}${url.search}` };
    }
    return this.lastTarget;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.dispatcher?.destroy().catch(() => {});
  }
}

interface RequestTarget {
  href: string;
  origin: string;
  path: string;
}

/** Where an exchange is: before its response, then its body being read, then settled. */
const enum Stage {
  AwaitingResponse,
  Body,
  Ended,
  Failed,
  Discarded,
}

/**
 * One request and its response: undici's handler for the exchange (`onConnect` ... `onError`)
 * and the `HttpResponse` handed to the transport. Chunks that arrive before `read()` are kept,
 * and the socket is paused until they are read.
 */
class Exchange implements HttpResponse {
  status = 0;
  private stage = Stage.AwaitingResponse;
  private abortExchange: ((reason?: Error) => void) | undefined;
  private resumeSocket: (() => void) | undefined;
  private rawHeaders: Buffer[] | undefined;
  private early: Buffer[] | undefined;
  private failure: Error | undefined;
  private reader: { onChunk: (chunk: Uint8Array) => void; resolve: () => void; reject: (error: unknown) => void } | undefined;

  constructor(
    private readonly signal: HttpRequest["signal"],
    private resolveResponse: ((response: HttpResponse) => void) | undefined,
    private rejectResponse: ((error: unknown) => void) | undefined,
  ) {
    signal.addEventListener("abort", this.onAbort);
  }

  // The handler, as undici calls it.

  onConnect(abort: (reason?: Error) => void): void {
    if (this.signal.aborted) abort(asError(this.signal.reason));
    else this.abortExchange = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true; // 1xx: the response is still to come
    this.status = statusCode;
    this.rawHeaders = rawHeaders;
    this.resumeSocket = resume;
    this.stage = Stage.Body;
    const resolve = this.resolveResponse;
    this.resolveResponse = this.rejectResponse = undefined;
    resolve?.(this);
    return true;
  }

  onData(chunk: Buffer): boolean {
    const reader = this.reader;
    if (reader === undefined) {
      // Not read yet: kept, and the socket paused until read() takes them.
      (this.early ??= []).push(chunk);
      return false;
    }
    try {
      reader.onChunk(chunk);
      return true;
    } catch (error) {
      this.settle(Stage.Failed);
      this.abortExchange?.(asError(error));
      reader.reject(error);
      return false;
    }
  }

  onComplete(): void {
    if (this.stage !== Stage.Body) return;
    if (this.reader) {
      this.settle(Stage.Ended);
      this.reader.resolve();
    } else this.stage = Stage.Ended; // read() will hand over what was kept, then resolve
  }

  onError(error: Error): void {
    if (this.stage === Stage.AwaitingResponse) {
      this.settle(Stage.Failed);
      const reject = this.rejectResponse;
      this.resolveResponse = this.rejectResponse = undefined;
      reject?.(this.requestFailure(error));
      return;
    }
    if (this.stage !== Stage.Body) return;
    this.settle(Stage.Failed);
    this.failure = error;
    this.reader?.reject(error);
  }

  // The response, as the transport reads it.

  header(name: string): string | undefined {
    return headerIn(this.rawHeaders ?? NO_HEADERS, name);
  }

  read(onChunk: (chunk: Uint8Array) => void): Promise<void> {
    if (this.reader !== undefined) return Promise.reject(new Error("the response body is already being read"));
    if (this.stage === Stage.Discarded) return Promise.reject(new Error("the response body was discarded before it was read"));
    if (this.stage === Stage.Failed && this.early === undefined) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      // What came before read(), handed over first; nothing arrives meanwhile (the socket is paused).
      const early = this.early;
      this.early = undefined;
      try {
        for (const chunk of early ?? []) onChunk(chunk);
      } catch (error) {
        this.discard();
        return reject(error);
      }
      if (this.stage === Stage.Discarded) return reject(new Error("the response body was discarded before its end"));
      this.reader = { onChunk, resolve, reject };
      if (this.stage === Stage.Ended) {
        this.settle(Stage.Ended);
        resolve();
      } else if (this.stage === Stage.Failed) reject(this.failure);
      else if (early !== undefined) this.resumeSocket?.();
    });
  }

  discard(): void {
    if (this.stage === Stage.Body) {
      // A body not yet received: ending the exchange closes its socket (it cannot be reused mid-body).
      this.settle(Stage.Discarded);
      this.abortExchange?.(new Error("the response body was discarded"));
      this.reader?.reject(new Error("the response body was discarded before its end"));
    } else if (this.stage === Stage.Ended) this.settle(Stage.Discarded);
    this.early = undefined;
  }

  private readonly onAbort = (): void => {
    const reason = this.signal.reason;
    if (this.stage === Stage.AwaitingResponse) {
      // Rejected at once, whether or not undici has started the request yet.
      this.settle(Stage.Failed);
      const reject = this.rejectResponse;
      this.resolveResponse = this.rejectResponse = undefined;
      reject?.(abortReason(this.signal));
    } else if (this.stage === Stage.Body) {
      this.settle(Stage.Failed);
      this.failure = asError(reason);
      this.reader?.reject(abortReason(this.signal));
    } else return;
    this.abortExchange?.(asError(reason));
  };

  private settle(stage: Stage): void {
    this.stage = stage;
    this.signal.removeEventListener("abort", this.onAbort);
  }

  /** A failure before the response, in the transports' two kinds. */
  private requestFailure(error: Error): unknown {
    if (this.signal.aborted) return abortReason(this.signal);
    if (error instanceof McpTransportError) return error;
    // A TLS 1.3 alert after the handshake (a client certificate wanted): the connection never
    // served the request, and the failure says why (transport/net/network-failures.ts).
    const named = networkFailureIn(error);
    if (named !== undefined) return named;
    return notHttpAnswerIn(error) ?? new McpTransportError("DISCONNECTED", "the connection closed before the endpoint answered", { cause: error });
  }
}

const NO_HEADERS: readonly Buffer[] = [];

/**
 * A response header by lower-case name, read from undici's raw name/value pairs; several values of
 * one name are joined with ", ". A transport asks for two or three headers of a response, so each
 * is looked up where it is rather than every header decoded into an object first (in the profile
 * of 64 calls in flight, that object was 1.7 % of the client's CPU). Only names of the right
 * length are decoded to compare.
 */
function headerIn(raw: readonly Buffer[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const candidate = raw[i]!;
    if (candidate.length !== name.length || candidate.toString("latin1").toLowerCase() !== name) continue;
    const found = raw[i + 1]!.toString("latin1");
    value = value === undefined ? found : `${value}, ${found}`;
  }
  return value;
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
