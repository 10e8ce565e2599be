/**
 * What the agent adapters know of one client's tool list over time: when it changed, the latest
 * listing, and whether the server tells of its changes at all.
 *
 * The list changes when the server says so (`notifications/tools/list_changed`, server/tools
 * "List Changed Notification") and may have changed after a reconnection, when no notification
 * comes. A server that declares `tools.listChanged` SHOULD notify; in the 2026-07-28 era it does
 * so only over a `subscriptions/listen` stream that asks for `toolsListChanged`
 * (basic/patterns/subscriptions), which `watch()` opens. There is one watch per client, shared
 * by every tool set made from it, so one change costs one listing however many sets there are.
 */
import type { McpClient } from "../client/client.js";
import type { Tool } from "../protocol/schemas.js";
import { raceAbort } from "../util/abort.js";

export class ToolListWatch {
  /** List changes seen (notifications and reconnections) since the watch began. */
  private changes = 0;
  /** The latest listing made here, with the count of changes when it was asked for. */
  private latest: { tools: readonly Tool[]; at: number } | undefined;
  /** The listing under way, shared by callers who ask after the same change. */
  private listing: { at: number; promise: Promise<readonly Tool[]> } | undefined;
  private watching: Promise<boolean> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly client: McpClient) {
    client.onToolsListChanged(() => this.changed());
    client.onReconnected(() => this.changed());
  }

  /** Whether the list may differ from the latest listing made here (or none was made). */
  get stale(): boolean {
    return this.latest === undefined || this.latest.at !== this.changes;
  }

  /** Calls `listener` on each change (after it is counted); returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Makes sure changes are told, and resolves with whether they will be: the server declares
   * `tools.listChanged`, and, in the modern era, acknowledged a `listen()` stream for them. A
   * refused or failed stream is not an error: the list is then listed each time it is asked for.
   */
  watch(): Promise<boolean> {
    this.watching ??= this.startWatching();
    return this.watching;
  }

  /**
   * The tools as of now: the latest listing when no change came since and the server tells of
   * its changes; otherwise a new listing.
   */
  async tools(signal?: AbortSignal): Promise<readonly Tool[]> {
    const announces = await raceAbort(this.watch(), signal);
    if (announces && !this.stale) return this.latest!.tools;
    return this.list(signal);
  }

  /** Lists the tools. A listing asked for after the latest change, still under way, is shared. */
  list(signal?: AbortSignal): Promise<readonly Tool[]> {
    if (this.listing?.at !== this.changes) {
      const at = this.changes;
      const promise: Promise<readonly Tool[]> = this.client
        .listTools()
        .then((tools) => {
          if (this.latest === undefined || this.latest.at <= at) this.latest = { tools, at };
          return tools;
        })
        .finally(() => {
          if (this.listing?.promise === promise) this.listing = undefined;
        });
      // Whoever asked may have given up (its signal aborted); the outcome is then nobody's.
      promise.catch(() => {});
      this.listing = { at, promise };
    }
    return raceAbort(this.listing.promise, signal);
  }

  /**
   * Whether the server still lists a tool of this name, as of its latest change: true when no
   * change came since the watch began, and when the list cannot be had (the call then
   * goes to the server, which answers for itself). Rejects only when `signal` aborts.
   */
  async stillListed(name: string, signal?: AbortSignal): Promise<boolean> {
    if (this.changes === 0) return true;
    try {
      const tools = this.stale ? await this.list(signal) : this.latest!.tools;
      return tools.some((tool) => tool.name === name);
    } catch (error) {
      if (signal?.aborted) throw error;
      return true;
    }
  }

  private changed(): void {
    this.changes++;
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // One listener's failure must not keep the others from hearing of the change.
      }
    }
  }

  private async startWatching(): Promise<boolean> {
    if (this.client.serverCapabilities.tools?.listChanged !== true) return false;
    if (this.client.era === "legacy") return true;
    try {
      const agreed = await this.client.listen({ toolsListChanged: true });
      return agreed.toolsListChanged === true;
    } catch {
      return false;
    }
  }
}

const watches = new WeakMap<McpClient, ToolListWatch>();

/** The watch of `client`, made (and watching its notifications) on first use. */
export function toolListWatchOf(client: McpClient): ToolListWatch {
  let watch = watches.get(client);
  if (!watch) watches.set(client, (watch = new ToolListWatch(client)));
  return watch;
}
