/**
 * The modern era (revision 2026-07-28): no handshake; every request carries the revision, the
 * client's capabilities and identity in `_meta` (and, over HTTP, the `Mcp-*` headers derived from
 * its body); `server/discover` says who the server is; input the server needs comes back as an
 * `input_required` result and is answered by retrying the request.
 *
 * Recoveries, each taken once per request: -32022 (unsupported revision) switches to a revision
 * both sides speak; -32020 (header mismatch) lists the tools again, then rebuilds the headers;
 * a broken HTTP response stream re-issues the request with a new id. -32021 (a capability the
 * client lacks) fails with a message naming what the server requires.
 */
import { McpTransportError } from "../errors.js";
import { Method, Notification } from "../protocol/methods.js";
import {
  HEADER_MISMATCH,
  INPUT_REQUIRED_METHODS,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  MetaKey,
  ModernMethod,
  UNSUPPORTED_PROTOCOL_VERSION,
  type DiscoverResult,
} from "../protocol/modern.js";
import { schemas } from "../protocol/schema-registry.js";
import { LATEST_MODERN_REVISION, MODERN_REVISIONS } from "../protocol/revisions.js";
import type { Implementation, LoggingLevel, ServerCapabilities } from "../protocol/schemas.js";
import type { EraWireRules, RequestOptions, TransportSession } from "../session/session.js";
import type { EraName, ProtocolEra, SessionSource } from "./era.js";
import type { ClientCapabilities, ClientHandlers } from "./handlers.js";
import { DEFAULT_MAX_INPUT_ROUNDS, answerInputRequests, retryParams } from "./input-rounds.js";
import { headerParamsOf, modernHeaders, type HeaderParam } from "./modern-headers.js";
import { ResultCache } from "./result-cache.js";
import { matching, parseResult } from "./validate.js";

/** Methods of the legacy era that revision 2026-07-28 removed, and what replaces each. */
const LEGACY_ONLY: ReadonlyMap<string, string> = new Map([
  [Method.ping, "a modern server has no ping; any request shows it is reachable"],
  [Method.initialize, "a modern server has no handshake"],
  [Method.resourcesSubscribe, "use client.listen({ resourceSubscriptions: [uri] }) (subscriptions/listen)"],
  [Method.resourcesUnsubscribe, "stop the listen stream, or listen again without that URI"],
  [Notification.rootsListChanged, "a modern server asks for roots in each request that needs them"],
]);

/**
 * What revision 2026-07-28 says of the wire: closing a request's HTTP stream is its cancellation,
 * and a broken reply stream is not resumed but the request re-issued with a new id.
 */
const MODERN_WIRE_RULES: EraWireRules = { closeCancels: true, resumable: false };

/** Results that carry freshness hints (server/utilities/caching). */
const CACHEABLE: ReadonlySet<string> = new Set([
  ModernMethod.discover,
  Method.toolsList,
  Method.promptsList,
  Method.resourcesList,
  Method.resourcesTemplatesList,
  Method.resourcesRead,
]);

/** Requests a server may answer with a task (tasks extension, "Supported Methods"). */
const TASK_METHODS: ReadonlySet<string> = new Set([Method.toolsCall]);

const LIST_OF: Record<string, string> = {
  [Notification.toolsListChanged]: Method.toolsList,
  [Notification.promptsListChanged]: Method.promptsList,
  [Notification.resourcesListChanged]: Method.resourcesList,
};

export interface ModernEraOptions {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  handlers: ClientHandlers;
  /** Whether the wire has headers to mirror the body into (Streamable HTTP). */
  mirrorsHeaders: boolean;
  /** Names the server for the shared cache of public results. */
  server: string;
  /** The most input rounds one request may take. @default 8 */
  maxInputRounds?: number;
  /** The revision to speak. @default the newest mcpwire speaks */
  protocolVersion?: string;
}

export class ModernEra implements ProtocolEra {
  readonly name: EraName = "modern";
  private revision: string;
  private discovery: DiscoverResult | undefined;
  private latestServerInfo: Implementation | undefined;
  private logLevel: LoggingLevel | undefined;
  private readonly toolHeaders = new Map<string, HeaderParam[]>();
  private readonly cache: ResultCache;
  private readonly maxInputRounds: number;

  /** @param source where requests go until `bind` says otherwise: the session the era is settled on */
  constructor(
    private readonly options: ModernEraOptions,
    private source: SessionSource,
  ) {
    this.revision = options.protocolVersion ?? LATEST_MODERN_REVISION;
    this.cache = new ResultCache(options.server);
    this.maxInputRounds = options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
  }

  /** Asks the server who it is and which revisions it speaks, and settles on one. */
  async discover(session: TransportSession, options: RequestOptions): Promise<DiscoverResult> {
    session.setProtocolVersion(this.revision, MODERN_WIRE_RULES);
    const raw = await this.requestOn(session, ModernMethod.discover, undefined, { ...options, label: options.label ?? "server/discover" });
    const result = parseResult(schemas().DiscoverResultSchema, raw, "server/discover", session.description);
    const shared = MODERN_REVISIONS.find((revision) => result.supportedVersions.includes(revision));
    if (!shared) {
      throw new McpTransportError(
        "PROTOCOL",
        `the server supports none of the modern revisions mcpwire speaks (${MODERN_REVISIONS.join(", ")}) (${session.description})`,
        { method: ModernMethod.discover, serverData: { supportedVersions: result.supportedVersions } },
      );
    }
    if (!result.supportedVersions.includes(this.revision)) this.useRevision(session, shared);
    this.discovery = result;
    return result;
  }

  /** The `server/discover` result, once it was asked for. */
  get discovered(): DiscoverResult | undefined {
    return this.discovery;
  }

  get protocolVersion(): string {
    return this.revision;
  }

  get serverInfo(): Implementation {
    return this.latestServerInfo ?? this.discovery?._meta?.[MetaKey.serverInfo] ?? { name: "unknown", version: "unknown" };
  }

  get serverCapabilities(): ServerCapabilities {
    return this.discovery?.capabilities ?? {};
  }

  get instructions(): string | undefined {
    return this.discovery?.instructions;
  }

  /** Log messages are asked for per request in this era: every later request carries the level. */
  setLogLevel(level: LoggingLevel): void {
    this.logLevel = level;
  }

  /** A list-changed notification makes the cached list stale. */
  onListChanged(notification: string): void {
    const method = LIST_OF[notification];
    if (method) this.cache.invalidate([method]);
  }

  checkMethod(method: string, label: string): void {
    const instead = LEGACY_ONLY.get(method);
    if (instead !== undefined) {
      throw new McpTransportError(
        "PROTOCOL",
        `${label} is not available: ${method} does not exist in protocol revision ${this.revision}; ${instead}`,
        { kind: "method_unavailable", method },
      );
    }
  }

  request(method: string, params: Record<string, unknown> | undefined, options: RequestOptions): Promise<Record<string, unknown>> {
    return this.requestOn(this.source.session, method, params, options);
  }

  notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    return this.source.session.notify(method, this.withMeta(params));
  }

  bind(source: SessionSource): void {
    this.source = source;
  }

  /** One request on `session`, with the era's recoveries and input rounds, all on that session. */
  private async requestOn(
    session: TransportSession,
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    const label = options.label ?? `request "${method}"`;
    const cacheable = CACHEABLE.has(method);
    if (cacheable) {
      const cached = this.cache.get(method, params);
      if (cached) return cached;
    }
    let current = params;
    const retried = new Set<string>();
    for (let round = 0; ; round++) {
      let result: Record<string, unknown>;
      try {
        result = await session.request(method, this.withMeta(current), { ...options, headers: this.headersFor(method, current) });
      } catch (error) {
        if (!(error instanceof McpTransportError)) throw error;
        const recovery = this.recoveryFor(error, retried);
        if (!recovery) throw this.explain(error, label, session);
        retried.add(recovery);
        if (recovery === "version") this.useRevision(session, this.sharedRevision(error)!);
        if (recovery === "headers") await this.relistTools(session, options);
        round--;
        continue;
      }
      this.noteServerInfo(result);
      if (result.resultType === "task" && !TASK_METHODS.has(method)) {
        // Tasks extension: "A client that receives CreateTaskResult in response to an unsupported request type MUST interpret this as an invalid response".
        throw new McpTransportError("PROTOCOL", `${label}: the server answered ${method} with a task, which only tools/call may do (${session.description})`, {
          method,
        });
      }
      if (result.resultType !== "input_required") {
        if (method === Method.toolsList) this.noteTools(result);
        if (cacheable) this.cache.set(method, current, result);
        return result;
      }
      if (!INPUT_REQUIRED_METHODS.has(method)) {
        throw new McpTransportError("PROTOCOL", `${label}: the server asked for input on ${method}, which may not do so (${session.description})`, {
          method,
        });
      }
      if (round + 1 >= this.maxInputRounds) {
        throw new McpTransportError(
          "PROTOCOL",
          `${label}: the server still asked for input after ${this.maxInputRounds} rounds (maxInputRounds) (${session.description})`,
          { method },
        );
      }
      const needed = parseResult(schemas().InputRequiredResultSchema, result, label, session.description);
      if (needed.inputRequests === undefined && needed.requestState === undefined) {
        throw new McpTransportError("PROTOCOL", `${label}: an input_required result without inputRequests or requestState (${session.description})`, {
          method,
        });
      }
      const answers = await answerInputRequests(needed, this.options.handlers, options.signal, label);
      current = retryParams(current, needed, answers);
    }
  }

  /** The `_meta` every modern request (and notification) carries, merged with the caller's own. */
  private withMeta(params: Record<string, unknown> | undefined): Record<string, unknown> {
    const meta: Record<string, unknown> = {
      ...(params?._meta as Record<string, unknown> | undefined),
      [MetaKey.protocolVersion]: this.revision,
      [MetaKey.clientCapabilities]: this.options.capabilities,
      [MetaKey.clientInfo]: this.options.clientInfo,
    };
    if (this.logLevel) meta[MetaKey.logLevel] = this.logLevel;
    return { ...params, _meta: meta };
  }

  private headersFor(method: string, params: Record<string, unknown> | undefined): Record<string, string> | undefined {
    if (!this.options.mirrorsHeaders) return undefined;
    const toolParams = method === Method.toolsCall && typeof params?.name === "string" ? this.toolHeaders.get(params.name) : undefined;
    return modernHeaders(method, params, toolParams);
  }

  private recoveryFor(error: McpTransportError, retried: Set<string>): "version" | "headers" | "stream" | undefined {
    if (error.code === UNSUPPORTED_PROTOCOL_VERSION && !retried.has("version") && this.sharedRevision(error)) return "version";
    if (error.code === HEADER_MISMATCH && !retried.has("headers")) return "headers";
    if (error.streamBroken && !retried.has("stream")) return "stream";
    return undefined;
  }

  /**
   * The newest revision both sides name, from a -32022's `supported` list; it may be the one just
   * sent (a server that refused it while listing it gets one retry, as the specification asks).
   */
  private sharedRevision(error: McpTransportError): string | undefined {
    const offered = offeredRevisions(error);
    return MODERN_REVISIONS.find((revision) => offered.includes(revision));
  }

  private useRevision(session: TransportSession, revision: string): void {
    this.revision = revision;
    session.setProtocolVersion(revision, MODERN_WIRE_RULES);
  }

  /** Turns the modern errors nobody recovered from into messages that say what to do. */
  private explain(error: McpTransportError, label: string, session: TransportSession): McpTransportError {
    if (error.code === MISSING_REQUIRED_CLIENT_CAPABILITY) {
      const data = matching(schemas().MissingCapabilityDataSchema, error.serverData);
      const required = data !== undefined ? Object.keys(data.requiredCapabilities) : [];
      return error.with(
        {},
        `${label} needs client capabilities this client did not declare` +
          `${required.length > 0 ? ` (${required.join(", ")})` : ""}; give the matching handlers in options.handlers (${session.description})`,
      );
    }
    if (error.code === UNSUPPORTED_PROTOCOL_VERSION) {
      // Only revision-shaped names are repeated: the list is the server's text.
      const offered = offeredRevisions(error).filter((v) => /^[\w.-]{1,32}$/.test(v));
      const theirs = offered.length > 0 ? `it offers ${offered.join(", ")}` : "it named no revision";
      const shared = this.sharedRevision(error);
      const what =
        shared === undefined
          ? `the server speaks none of mcpwire's modern revisions (${MODERN_REVISIONS.join(", ")}); ${theirs}`
          : `the server refused protocol revision ${this.revision} again after naming it as supported (${theirs}; mcpwire speaks ${MODERN_REVISIONS.join(", ")})`;
      return error.with({}, `${label}: ${what} (${session.description})`);
    }
    return error;
  }

  /** After a header mismatch: the tool's schema may have changed, so list the tools again. */
  private async relistTools(session: TransportSession, options: RequestOptions): Promise<void> {
    this.cache.invalidate([Method.toolsList]);
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const result = await this.requestOn(session, Method.toolsList, cursor === undefined ? undefined : { cursor }, {
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        label: "listTools (after a header mismatch)",
      });
      cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
      if (cursor === undefined) return;
    }
  }

  /**
   * Remembers which tool arguments go into headers; over HTTP, a tool whose `x-mcp-header`
   * annotations break the rules is left out of the list, as the specification requires.
   */
  private noteTools(result: Record<string, unknown>): void {
    if (!Array.isArray(result.tools)) return;
    result.tools = result.tools.filter((tool: unknown) => {
      if (typeof tool !== "object" || tool === null) return true;
      const { name, inputSchema } = tool as { name?: unknown; inputSchema?: unknown };
      if (typeof name !== "string" || typeof inputSchema !== "object" || inputSchema === null) return true;
      const params = headerParamsOf(inputSchema as Record<string, unknown>);
      if ("invalid" in params) {
        this.toolHeaders.delete(name);
        return !this.options.mirrorsHeaders;
      }
      if (params.length > 0) this.toolHeaders.set(name, params);
      else this.toolHeaders.delete(name);
      return true;
    });
  }

  private noteServerInfo(result: Record<string, unknown>): void {
    const meta = result._meta as Record<string, unknown> | undefined;
    const info = matching(schemas().ImplementationSchema, meta?.[MetaKey.serverInfo]);
    if (info !== undefined) this.latestServerInfo = info;
  }
}

/** The revisions a -32022 error's data says the server supports (none when the data is malformed). */
function offeredRevisions(error: McpTransportError): string[] {
  return matching(schemas().UnsupportedVersionDataSchema, error.serverData)?.supported ?? [];
}
