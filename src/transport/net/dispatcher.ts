/**
 * The undici `Dispatcher` under the HTTP client of one connection: it sends each request
 * directly or through its proxy, with the server's TLS options, deciding per target origin (the
 * same client talks to the MCP server and to its OAuth authorization server, which may be
 * reached differently).
 *
 * - Direct: a keep-alive connection to the target (TLS with `ca`, `cert`, `key` for https).
 * - https: through a proxy: a CONNECT tunnel (tunnel.ts), then TLS to the target inside it; the
 *   proxy sees only host and port.
 * - http: through a proxy: no tunnel; each request goes to the proxy in absolute form
 *   (`GET http://host/path`), with `Proxy-Authorization` when the proxy URL has credentials, as
 *   plain forward proxies expect. A 407 answer is the proxy's, and fails naming it.
 *
 * Failures to connect are UNAVAILABLE McpTransportErrors made here (network-failures.ts), naming
 * the proxy or the server; they reach the HTTP client as the request's error.
 *
 * undici's own deadlines for headers and body are off: the transports keep their own (the
 * request deadline, the read stall), and two clocks on one wait would fight. The connect
 * deadline stays (`connectTimeoutMs`, for TCP, the tunnel and TLS each).
 */
import type { Agent, Dispatcher, buildConnector } from "undici";
import type { Duplex } from "node:stream";
import type { DispatcherFactory } from "../http/undici-http-client.js";
import type { UndiciParts } from "../http/undici-parts.js";
import { connectFailure, proxyRefused, proxyUnreachable, watchLateTlsFailure } from "./network-failures.js";
import type { ProxyRoute, ProxyRules } from "./proxy-rules.js";
import type { TlsMaterial } from "./tls-options.js";
import { openTunnel } from "./tunnel.js";

export interface NetDispatcherOptions {
  /** Which proxy each target goes through (proxy-rules.ts). */
  proxy: ProxyRules;
  /** The server's TLS material (tls-options.ts `loadTls`), for https targets and https proxies. */
  tls: TlsMaterial | undefined;
  /** How long each connection step may take: TCP, the CONNECT tunnel, TLS. */
  connectTimeoutMs: number;
  /**
   * The most connections kept open to one origin (or to one plain-http proxy); a request that
   * finds them all busy waits for one. Without it, undici opens a new one whenever all are busy,
   * and a connection is busy a little past its response's end (undici frees it on the next turn
   * of the event loop): calls that follow one another on each of 64 strands, each sent as the one
   * before it is answered, held 128 connections rather than 64 (bench/RESULTS.md).
   * @default no ceiling
   */
  connections?: number;
}

/** Options of every undici agent made here: deadlines that would fight the transports' are off. */
const AGENT_DEADLINES = { headersTimeout: 0, bodyTimeout: 0 } as const;

type ConnectOptions = Parameters<buildConnector.connector>[0];
type ConnectCallback = buildConnector.Callback;

/**
 * The dispatcher for one connection's HTTP client, made on its first request from the parts of
 * undici loaded then (the client loads only those, undici-parts.ts). Closing it closes every
 * socket it opened.
 */
export function netDispatcher(options: NetDispatcherOptions): DispatcherFactory {
  return (parts) => new (netDispatcherClass(parts))(parts, options);
}

type NetDispatcherClass = new (parts: UndiciParts, options: NetDispatcherOptions) => Dispatcher;
let madeClass: NetDispatcherClass | undefined;

/** The class, made once: its base class is undici's, loaded only when a first request needs it. */
function netDispatcherClass(parts: UndiciParts): NetDispatcherClass {
  madeClass ??= makeNetDispatcherClass(parts.Dispatcher);
  return madeClass;
}

function makeNetDispatcherClass(Base: typeof Dispatcher): NetDispatcherClass {
  return class NetDispatcher extends Base {
    /** Direct and tunnelled connections: the connect function decides per origin. */
    private readonly agent: Agent;
    /** Connections to plain-http proxies, for absolute-form requests. */
    private readonly proxyAgent: Agent;
    private readonly rules: ProxyRules;
    /** The proxies absolute-form requests went to, by origin, to name them when they fail. */
    private readonly proxies = new Map<string, ProxyRoute>();
    /** Per request origin: the plain proxy it goes to, or null for the agent (direct or tunnelled). */
    private readonly plainProxies = new Map<string, { origin: URL; route: ProxyRoute } | null>();

    constructor({ Agent, buildConnector }: UndiciParts, options: NetDispatcherOptions) {
      super();
      const { tls, connectTimeoutMs } = options;
      const ceiling = options.connections === undefined ? {} : { connections: options.connections };
      this.rules = options.proxy;
      const tlsConnect = buildConnector({ ...tls, timeout: connectTimeoutMs });
      const clientCertificate = tls?.cert !== undefined;
      this.agent = new Agent({
        ...AGENT_DEADLINES,
        ...ceiling,
        connect: (connectOptions: ConnectOptions, callback: ConnectCallback) => {
          const target = targetOf(connectOptions);
          const route = this.rules.routeFor(target.url);
          const secure = connectOptions.protocol === "https:";
          const attempt = { server: target.url.origin, proxy: route, clientCertificate, secure };
          const done: ConnectCallback = (error, socket) => {
            if (error) return callback(connectFailure(timeoutNamed(error, connectTimeoutMs), attempt), null);
            if (secure) watchLateTlsFailure(socket!, attempt);
            callback(null, socket!);
          };
          if (route === undefined) {
            tlsConnect(connectOptions, done);
            return;
          }
          openTunnel({ proxy: route, host: target.url.hostname, port: target.port, timeoutMs: connectTimeoutMs, tls }).then(
            (socket: Duplex) => {
              if (!secure) return callback(null, socket as unknown as Parameters<ConnectCallback>[1] & object);
              tlsConnect({ ...connectOptions, httpSocket: socket as unknown as ConnectOptions["httpSocket"] }, done);
            },
            (error: unknown) => callback(error as Error, null),
          );
        },
      });
      const proxyConnect = buildConnector({ ...(tls?.ca !== undefined ? { ca: tls.ca } : {}), timeout: connectTimeoutMs });
      this.proxyAgent = new Agent({
        ...AGENT_DEADLINES,
        ...ceiling,
        connect: (connectOptions: ConnectOptions, callback: ConnectCallback) => {
          const proxy = targetOf(connectOptions).url;
          proxyConnect(connectOptions, (error, socket) => {
            if (!error) return callback(null, socket!);
            const route = this.proxies.get(proxy.origin) ?? { url: proxy, shown: proxy.origin, authorization: undefined };
            callback(proxyUnreachable(timeoutNamed(error, connectTimeoutMs), route), null);
          });
        },
      });
    }

    override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      // Without any proxy (the common case), nothing to decide per request.
      if (this.rules.none) return this.agent.dispatch(options, handler);
      const plain = this.plainProxyFor(String(options.origin));
      if (plain === null) return this.agent.dispatch(options, handler);
      return this.proxyAgent.dispatch(absoluteForm(options, plain.origin, plain.route), refusalOf407(handler, plain.route, plain.origin.host));
    }

    /**
     * The proxy a plain-http origin is sent to in absolute form, or null; worked out once per origin
     * (a connection talks to one or two), so a request pays a map lookup, not a URL parse.
     */
    private plainProxyFor(origin: string): { origin: URL; route: ProxyRoute } | null {
      let plain = this.plainProxies.get(origin);
      if (plain === undefined) {
        const url = new URL(origin);
        const route = url.protocol === "http:" ? this.rules.routeFor(url) : undefined;
        plain = route === undefined ? null : { origin: url, route };
        if (route !== undefined) this.proxies.set(route.url.origin, route);
        this.plainProxies.set(origin, plain);
      }
      return plain;
    }

    // undici's overloads take a callback or give a promise; both forms are kept.
    override close(): Promise<void>;
    override close(callback: () => void): void;
    override close(callback?: () => void): Promise<void> | void {
      const closed = Promise.all([this.agent.close(), this.proxyAgent.close()]).then(() => {});
      if (callback === undefined) return closed;
      void closed.then(callback, callback);
    }

    override destroy(): Promise<void>;
    override destroy(error: Error | null): Promise<void>;
    override destroy(callback: () => void): void;
    override destroy(error: Error | null, callback: () => void): void;
    override destroy(first?: Error | null | (() => void), second?: () => void): Promise<void> | void {
      const error = typeof first === "function" ? null : (first ?? null);
      const callback = typeof first === "function" ? first : second;
      const destroyed = Promise.all([this.agent.destroy(error), this.proxyAgent.destroy(error)]).then(() => {});
      if (callback === undefined) return destroyed;
      void destroyed.then(callback, callback);
    }
  };
}

/** The target of a connection, from undici's connect options: its origin, and its port even when it is the default. */
function targetOf(options: ConnectOptions): { url: URL; port: number } {
  const host = options.hostname.includes(":") && !options.hostname.startsWith("[") ? `[${options.hostname}]` : options.hostname;
  const port = Number(options.port) || (options.protocol === "https:" ? 443 : 80);
  return { url: new URL(`${options.protocol}//${host}:${port}`), port };
}

/** A request for `origin` sent to `route` in absolute form, with the proxy's credentials. */
function absoluteForm(options: Dispatcher.DispatchOptions, origin: URL, route: ProxyRoute): Dispatcher.DispatchOptions {
  const added: Record<string, string> = { host: origin.host };
  if (route.authorization !== undefined) added["proxy-authorization"] = route.authorization;
  const given = options.headers;
  let headers: Dispatcher.DispatchOptions["headers"];
  if (Array.isArray(given)) headers = [...(given as string[]), ...Object.entries(added).flat()];
  else if (given === null || given === undefined || typeof given === "object") {
    headers = { ...(given as Record<string, string> | undefined), ...added };
  } else headers = given;
  return { ...options, origin: route.url.origin, path: `${origin.origin}${options.path}`, headers };
}

/** The handler's methods, both of undici's handler styles, forwarded as they are. */
const HANDLER_METHODS = [
  "onConnect",
  "onUpgrade",
  "onResponseStarted",
  "onHeaders",
  "onData",
  "onComplete",
  "onError",
  "onBodySent",
  "onRequestSent",
  "onRequestStart",
  "onRequestUpgrade",
  "onResponseStart",
  "onResponseData",
  "onResponseEnd",
  "onResponseError",
] as const;

type AnyHandler = Record<string, ((...args: unknown[]) => unknown) | undefined>;

/**
 * The caller's handler, except that a 407 answer fails the request naming the proxy: only a
 * proxy answers 407, and in absolute form it answers in the server's place. The handler keeps
 * its style (undici reads which methods it has), so only the methods it has are given.
 */
function refusalOf407(handler: Dispatcher.DispatchHandler, route: ProxyRoute, target: string): Dispatcher.DispatchHandler {
  const inner = handler as unknown as AnyHandler;
  const wrapper: AnyHandler = {};
  for (const name of HANDLER_METHODS) {
    if (typeof inner[name] === "function") wrapper[name] = (...args: unknown[]) => inner[name]!.apply(handler, args);
  }
  let abort: ((reason: Error) => void) | undefined;
  if (wrapper.onConnect !== undefined) {
    wrapper.onConnect = (...args: unknown[]) => {
      abort = args[0] as (reason: Error) => void;
      return inner.onConnect!.apply(handler, args);
    };
  }
  if (wrapper.onHeaders !== undefined) {
    wrapper.onHeaders = (...args: unknown[]) => {
      if (args[0] === 407 && abort !== undefined) {
        abort(proxyRefused(407, route, target));
        return false;
      }
      return inner.onHeaders!.apply(handler, args);
    };
  }
  if (wrapper.onResponseStart !== undefined) {
    wrapper.onResponseStart = (...args: unknown[]) => {
      const controller = args[0] as { abort(reason: Error): void };
      if (args[1] === 407) return controller.abort(proxyRefused(407, route, target));
      return inner.onResponseStart!.apply(handler, args);
    };
  }
  return wrapper as unknown as Dispatcher.DispatchHandler;
}

/** undici's connect deadline error, in our words. */
function timeoutNamed(error: Error, timeoutMs: number): Error {
  if ((error as NodeJS.ErrnoException).code === "UND_ERR_CONNECT_TIMEOUT") {
    return Object.assign(new Error(`no connection within ${timeoutMs} ms`), { code: `no connection within ${timeoutMs} ms` });
  }
  return error;
}
