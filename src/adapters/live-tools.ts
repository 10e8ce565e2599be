/**
 * A tool set that follows its servers' tool lists, which `aiToolSet` and `langchainToolSet` are
 * built on: the tools of one client or of the servers of `connectAll`, named and filtered as
 * `listAgentTools` names them, listed again when a server says its list changed (or after a
 * reconnection), so that an agent is never offered a stale list.
 *
 * Each server is listed on its own: a change on one costs one listing, of that server. A server
 * that does not tell of its changes is listed again each time the set is asked for its current
 * tools. A listing that fails keeps that server's tools as they were and is reported in
 * `failures`: an agent's run is not ended by a server that is away for a moment.
 */
import { checkSignalOption } from "../client/call-option-names.js";
import { firstUnknownKey } from "../util/option-names.js";
import { describeValue } from "../util/whole-number.js";
import { McpClient } from "../client/client.js";
import type { McpTransportError } from "../errors.js";
import type { Tool } from "../protocol/schemas.js";
import { raceAbort } from "../util/abort.js";
import { checkAgentToolOptions, type AgentToolOptions, type AgentToolSource } from "./agent-tools.js";
import { asListFailure, callSettingsOf, type ConnectedServers } from "./connect-all.js";
import { toolListWatchOf, type ToolListWatch } from "./tool-list-watch.js";
import type { ToolCallSettings } from "./tool-call-settings.js";
import { nameServerTools, type ServerTool } from "./tool-naming.js";

/** A tool set that follows its servers' tool lists; `T` is the framework's form of the tools. */
export interface AgentToolSet<T> extends Disposable {
  /** The tools as last listed. */
  readonly tools: T;
  /**
   * The tools as of now: waits for a listing under way, and lists again first the servers whose
   * list changed since (or that do not tell of their changes). A listing that fails keeps the
   * tools listed before and shows in `failures`; this rejects only when `signal` aborts.
   */
  current(options?: { signal?: AbortSignal }): Promise<T>;
  /** The servers whose latest listing failed, by name (the server's name, or the prefix given). */
  readonly failures: Readonly<Record<string, McpTransportError>>;
  /** Called after the tools changed (`tools` is then the new list); returns the function that stops it. */
  onChange(listener: () => void): () => void;
  /** Stops following the lists: `tools` stays as it is. Idempotent. */
  close(): void;
}

/** One server of the set: where its tools come from, and its latest good listing. */
interface Member {
  /** The name its tools are known by (a client's own name is read again at each listing). */
  server: () => string;
  client: McpClient;
  toolList: ToolListWatch;
  call: ToolCallSettings | undefined;
  tools: readonly Tool[] | undefined;
}

/**
 * The signal of `set.current(options)`, its options checked: `null` or a string there would fail
 * inside with a JS error, and a signal that is not one would be raced without ever aborting.
 */
export function currentSignal(options: unknown): AbortSignal | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`set.current(): options must be an object ({ signal }), got ${describeValue(options)}`);
  }
  const unknown = firstUnknownKey(options, ["signal"]);
  if (unknown !== undefined) throw new TypeError(`set.current(): unknown option "${unknown}"; the only option is signal`);
  const signal = (options as { signal?: unknown }).signal;
  checkSignalOption(signal, "set.current()");
  return signal as AbortSignal | undefined;
}

export class LiveAgentTools {
  private entries: ServerTool[] = [];
  /** Every listed tool as last named, before the filter: the names a new listing keeps. */
  private named: ServerTool[] = [];
  private fingerprint: string | undefined;
  private readonly failed = new Map<string, McpTransportError>();
  private refreshing: Promise<void> | undefined;
  private dirty = false;
  private closed = false;
  private readonly stops: (() => void)[] = [];
  private readonly listeners = new Set<() => void>();

  private constructor(
    private readonly members: readonly Member[],
    private readonly prefix: boolean,
    private readonly options: AgentToolOptions,
    /** Makes the framework's tools of a new list, before anyone hears of the change. */
    private readonly apply: (entries: ServerTool[]) => void,
  ) {}

  /**
   * Lists the tools of `source` and follows its lists from then on. For one client, a first
   * listing that fails rejects; for the servers of `connectAll`, it shows in `failures`.
   */
  static async open(source: AgentToolSource, options: AgentToolOptions, apply: (entries: ServerTool[]) => void): Promise<LiveAgentTools> {
    checkAgentToolOptions(options);
    const set = source instanceof McpClient ? LiveAgentTools.ofClient(source, options, apply) : LiveAgentTools.ofServers(source, options, apply);
    try {
      // Following first, so that a change during the first listing is not missed.
      for (const member of set.members) set.stops.push(member.toolList.onChange(() => void set.schedule()));
      await raceAbort(Promise.all(set.members.map((member) => member.toolList.watch())), options.signal);
      await raceAbort(set.schedule(), options.signal);
    } catch (error) {
      set.close();
      throw error;
    }
    const single = source instanceof McpClient ? set.members[0]! : undefined;
    if (single && single.tools === undefined) {
      set.close();
      throw set.failed.get(single.server());
    }
    return set;
  }

  private static ofClient(client: McpClient, options: AgentToolOptions, apply: (entries: ServerTool[]) => void): LiveAgentTools {
    const prefix = options.prefix ?? false;
    const server = () => (typeof prefix === "string" ? prefix : client.serverInfo.name);
    return new LiveAgentTools([{ server, client, toolList: toolListWatchOf(client), call: undefined, tools: undefined }], prefix !== false, options, apply);
  }

  private static ofServers(source: AgentToolSource, options: AgentToolOptions, apply: (entries: ServerTool[]) => void): LiveAgentTools {
    if (Array.isArray(source)) {
      throw new TypeError(
        "a live tool set needs a client or the servers of connectAll() to list again; tools already listed cannot follow their list (use aiTools() or langchainTools() for them)",
      );
    }
    const servers = source as ConnectedServers;
    if (typeof servers !== "object" || servers === null || typeof servers.clients !== "object" || servers.clients === null) {
      throw new TypeError("expected a client (McpClient) or the servers of connectAll()");
    }
    const members = Object.entries(servers.clients).map(([name, client]): Member => ({
      server: () => name,
      client,
      toolList: toolListWatchOf(client),
      call: callSettingsOf(servers, name),
      tools: undefined,
    }));
    return new LiveAgentTools(members, options.prefix !== false, options, apply);
  }

  /** The tools as last listed, named and filtered. */
  get tools(): readonly ServerTool[] {
    return this.entries;
  }

  get failures(): Readonly<Record<string, McpTransportError>> {
    return Object.freeze(Object.assign(Object.create(null) as Record<string, McpTransportError>, Object.fromEntries(this.failed)));
  }

  async current(signal?: AbortSignal): Promise<readonly ServerTool[]> {
    const behind = this.members.some((member) => member.tools === undefined || member.toolList.stale);
    const announced = await raceAbort(Promise.all(this.members.map((member) => member.toolList.watch())), signal);
    if (!this.closed && (behind || announced.includes(false))) void this.schedule();
    if (this.refreshing) await raceAbort(this.refreshing, signal);
    return this.entries;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  close(): void {
    this.closed = true;
    for (const stop of this.stops.splice(0)) stop();
    this.listeners.clear();
  }

  /** Asks for a listing; one runs at a time, and one more after it when a change came meanwhile. */
  private schedule(): Promise<void> {
    this.dirty = true;
    if (this.refreshing || this.closed) return this.refreshing ?? Promise.resolve();
    const run = (async () => {
      try {
        while (this.dirty && !this.closed) {
          this.dirty = false;
          await this.refresh();
        }
      } finally {
        this.refreshing = undefined;
      }
    })();
    // A refresh nobody awaits (one a notification started) has nobody to tell of a failure.
    run.catch(() => {});
    this.refreshing = run;
    return run;
  }

  /** Lists each server (the watch answers from its latest listing when nothing changed), then names the tools. */
  private async refresh(): Promise<void> {
    await Promise.all(
      this.members.map(async (member) => {
        const name = member.server();
        try {
          member.tools = await member.toolList.tools();
          this.failed.delete(name);
        } catch (error) {
          this.failed.set(name, asListFailure(name, error));
        }
      }),
    );
    if (!this.closed) this.rename();
  }

  private rename(): void {
    const listed = this.members.filter((member) => member.tools !== undefined);
    // The tools named last time keep their names: the model may already have called them by it.
    const named = nameServerTools(
      listed.map((member) => ({ server: member.server(), client: member.client, tools: member.tools! })),
      { prefix: this.prefix, separator: this.options.separator },
      this.named,
    );
    this.named = named;
    const calls = new Map(listed.map((member) => [member.client, member.call]));
    const withCalls = named.map((entry) => {
      const call = calls.get(entry.client);
      return call === undefined ? entry : { ...entry, call };
    });
    const entries = this.options.filter ? withCalls.filter((entry) => this.options.filter!(entry)) : withCalls;
    // The same tools listed again are no change: nobody needs to bind them anew.
    const fingerprint = JSON.stringify(entries.map((entry) => [entry.name, entry.server, entry.tool]));
    if (fingerprint === this.fingerprint) return;
    // Made first: if making them fails (a rule of the caller's that throws), the list is tried again next time.
    this.apply(entries);
    this.fingerprint = fingerprint;
    this.entries = entries;
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own: the others still hear of the change.
      }
    }
  }
}
