/**
 * Which arguments of each tool a 2026-07-28 caller mirrors into `Mcp-Param-{Name}` headers
 * (server/tools, "x-mcp-header"), so the front can check them against the body
 * (basic/transports/streamable-http, "Server Behavior for Custom Headers"). The children speak
 * stdio and never see a header, so the gateway is the server that MUST check them.
 *
 * The catalog is filled by the gateway's own `tools/list` (every page, with the gateway's own
 * modern `_meta`), sent through the modern pool:
 * - on the first `tools/call` of a tool it does not hold, and again when a tool is not in it;
 * - after `toolsChanged()`, at the next lookup: a child sent `notifications/tools/list_changed`,
 *   on a caller's listen stream (post-handler.ts hears it on its way) or outside any request (the
 *   pool's `onUnrelated`, default-children.ts).
 *
 * Bounded in size (`maxTools`, `maxPages`) and in how often it lists: one listing at a time, which
 * every lookup waiting on it shares, and, for a name still unknown after a listing, none again
 * before `minRelistMs` has passed. So a burst of calls for a tool that does not exist costs one
 * listing, not one per call.
 *
 * A tool whose annotations break the rules (a `number` with `x-mcp-header`, a duplicate, one
 * inside `items`...) is held as invalid: a conforming client excludes it from its tools and never
 * calls it (server/tools). The front checks no `Mcp-Param-*` header for it, since none is
 * recognized, and forwards the call: a stdio server MAY ignore `x-mcp-header`, and the gateway
 * passes the server's answers as they are rather than rebuild its tool list.
 *
 * A listing that fails (no child, a timeout, a JSON-RPC error, a malformed page) leaves the
 * lookup `unavailable`: the front then refuses the call (fail closed) rather than forward headers
 * it could not check.
 */
import { isFailure, type JsonRpcResponse } from "../../protocol/jsonrpc.js";
import { headerParamsOf, type HeaderParam } from "../../protocol/header-values.js";

/** What the catalog knows of one tool's mirrored arguments. */
export type ToolHeaders =
  /** The tool's valid annotations (possibly none). */
  | { kind: "params"; params: readonly HeaderParam[] }
  /** The tool's annotations break the rules: clients exclude it (see the module's comment). */
  | { kind: "invalid"; reason: string }
  /** The server listed no tool of that name. */
  | { kind: "unknown" }
  /** The tools could not be listed, or there are more than the catalog holds. */
  | { kind: "unavailable" };

/** One page of `tools/list`: asks the server, resolves with its answer (never rejects for a JSON-RPC error). */
export type ListToolsPage = (cursor: string | undefined) => Promise<JsonRpcResponse>;

export interface ToolHeaderCatalogOptions {
  listPage: ListToolsPage;
  /** Tools held at most; a server with more gets `unavailable` for those past it. @default 10_000 */
  maxTools?: number;
  /** Pages read per listing at most. @default 100 */
  maxPages?: number;
  /** ms before a name still unknown (or a failed listing) causes another listing. @default 1_000 */
  minRelistMs?: number;
  /** Monotonic ms. @default performance.now */
  now?: () => number;
}

export const DEFAULT_TOOL_CATALOG = Object.freeze({ maxTools: 10_000, maxPages: 100, minRelistMs: 1_000 });

export class ToolHeaderCatalog {
  private tools = new Map<string, ToolHeaders>();
  /** Set when nothing was listed yet, or a child said the list changed. */
  private stale = true;
  /** The last listing failed or was cut short by the bounds. */
  private incomplete = false;
  private listing: Promise<void> | undefined;
  private lastListedAt = Number.NEGATIVE_INFINITY;
  private listings = 0;
  private readonly maxTools: number;
  private readonly maxPages: number;
  private readonly minRelistMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ToolHeaderCatalogOptions) {
    this.maxTools = options.maxTools ?? DEFAULT_TOOL_CATALOG.maxTools;
    this.maxPages = options.maxPages ?? DEFAULT_TOOL_CATALOG.maxPages;
    this.minRelistMs = options.minRelistMs ?? DEFAULT_TOOL_CATALOG.minRelistMs;
    this.now = options.now ?? (() => performance.now());
  }

  /** How many listings were started: for tests and metrics. */
  get listingCount(): number {
    return this.listings;
  }

  /** What the front checks for a `tools/call` of `name`. Never rejects. */
  async lookup(name: string): Promise<ToolHeaders> {
    if (this.stale || this.listing !== undefined) {
      await this.relist();
      return this.known(name);
    }
    const held = this.tools.get(name);
    if (held !== undefined) return held;
    if (this.now() - this.lastListedAt >= this.minRelistMs) await this.relist();
    return this.known(name);
  }

  /** A child sent `notifications/tools/list_changed`: the next lookup lists again. */
  toolsChanged(): void {
    this.stale = true;
  }

  private known(name: string): ToolHeaders {
    return this.tools.get(name) ?? (this.incomplete ? { kind: "unavailable" } : { kind: "unknown" });
  }

  private relist(): Promise<void> {
    this.listing ??= this.listAll().finally(() => {
      this.listing = undefined;
      this.lastListedAt = this.now();
    });
    return this.listing;
  }

  private async listAll(): Promise<void> {
    this.listings++;
    // A list_changed that arrives while this listing runs marks the catalog stale again.
    this.stale = false;
    const tools = new Map<string, ToolHeaders>();
    let complete = false;
    try {
      let cursor: string | undefined;
      for (let page = 0; page < this.maxPages; page++) {
        const answer = await this.options.listPage(cursor);
        if (isFailure(answer)) break;
        const result = answer.result as { tools?: unknown; nextCursor?: unknown };
        if (!Array.isArray(result.tools)) break;
        let overflow = false;
        for (const tool of result.tools as unknown[]) {
          if (tools.size >= this.maxTools) {
            overflow = true;
            break;
          }
          const entry = toolEntry(tool);
          if (entry !== undefined) tools.set(entry.name, entry.headers);
        }
        if (overflow) break;
        if (typeof result.nextCursor !== "string") {
          complete = true;
          break;
        }
        cursor = result.nextCursor;
      }
    } catch {
      // The page could not be had; what was read so far is kept, and the catalog is incomplete.
    }
    // A failed listing keeps what an earlier one knew rather than forget every tool.
    if (complete || tools.size > 0) this.tools = tools;
    this.incomplete = !complete;
  }
}

function toolEntry(tool: unknown): { name: string; headers: ToolHeaders } | undefined {
  if (typeof tool !== "object" || tool === null) return undefined;
  const { name, inputSchema } = tool as { name?: unknown; inputSchema?: unknown };
  if (typeof name !== "string") return undefined;
  if (typeof inputSchema !== "object" || inputSchema === null || Array.isArray(inputSchema)) {
    return { name, headers: { kind: "invalid", reason: "its inputSchema is not an object" } };
  }
  const params = headerParamsOf(inputSchema as Record<string, unknown>);
  return { name, headers: Array.isArray(params) ? { kind: "params", params } : { kind: "invalid", reason: params.invalid } };
}
