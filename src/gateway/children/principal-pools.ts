/**
 * Pools of their own for the principals whose `authorize` gives them an `env` (a per-user
 * credential the server reads from its environment). Their requests of the shared pool's eras
 * (2026-07-28, and legacy ones in `--legacy stateless` mode) cannot go to the replica's pool: its
 * children were spawned without those variables, and they serve everyone. So each such principal
 * gets a pool spawned with its variables, made on its first request, with no warm child.
 *
 * A pool is known by its era, its principal and a digest of its variables, so a rotated
 * credential gets fresh children and the old pool goes once it is idle. Bounded: a pool without
 * a request for `idleMs` is closed (as an idle session is), and at most `maxPools` exist; past it
 * the least recently used one with nothing in flight is closed to make room, and when every one
 * is busy the request is refused (UNAVAILABLE, which the front answers 503 with `Retry-After`).
 */
import { createHash } from "node:crypto";
import type { Principal } from "../gateway-options.js";
import type { Relay } from "../relay.js";
import { CallerRelays } from "./caller-relays.js";
import { withEnv, type ChildCommand } from "./child-command.js";
import type { ChildPool, PoolEra } from "./child-pool.js";
import { noChild } from "./failures.js";

export interface PrincipalPoolsOptions {
  command: ChildCommand;
  /** Makes the pool of one principal, spawning `command` (the target's with the principal's variables). */
  makePool(command: ChildCommand, era: PoolEra): ChildPool;
  /** How many such pools may exist at once. */
  maxPools: number;
  /** A pool without a request for this long is closed, its children stopped. */
  idleMs: number;
}

interface Entry {
  pool: ChildPool;
  /** Its callers' relays: a principal on one connection each (caller-relays.ts). */
  callers: CallerRelays;
  lastUsed: number;
}

export class PrincipalPools {
  /** In order of last use, the least recent first (an entry is moved to the end when used). */
  private readonly pools = new Map<string, Entry>();
  private readonly closing = new Set<Promise<void>>();
  private readonly reaper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: PrincipalPoolsOptions) {
    // Looked at several times per idle period, so a pool goes at most a fraction late.
    this.reaper = setInterval(() => this.reapIdle(), Math.max(50, Math.min(options.idleMs / 4, 30_000)));
    this.reaper.unref();
  }

  /** Whether `principal` needs a pool of its own: it has variables for its children. */
  static needed(principal: Principal): boolean {
    return principal.env !== undefined && Object.keys(principal.env).length > 0;
  }

  /** How many pools exist now. */
  get size(): number {
    return this.pools.size;
  }

  /**
   * The relay of `principal`'s own pool for `era`, made on first use, for the caller on
   * `connection`: its cancels reach the requests it sent on that connection only (caller-relays.ts).
   */
  relayFor(era: PoolEra, principal: Principal, connection?: object): Relay {
    const key = keyOf(era, principal);
    const known = this.pools.get(key);
    if (known !== undefined) return this.used(key, known).callers.relayFor(principal.principal, connection);
    if (this.closed) return refusing("the gateway is shutting down");
    if (this.pools.size >= this.options.maxPools && !this.evictOne()) {
      return refusing(`every one of the ${this.options.maxPools} pools kept for callers with their own environment is busy; try again later`);
    }
    const pool = this.options.makePool(withEnv(this.options.command, principal.env), era);
    void pool.start();
    const entry: Entry = {
      pool,
      callers: new CallerRelays(() => {
        const caller = pool.caller();
        // Every request marks the pool used, so the reaper and the eviction see it.
        return {
          request: (message, sink, signal) => {
            entry.lastUsed = Date.now();
            caller.request(message, sink, signal);
          },
          notification: (message) => caller.notification(message),
          response: (message) => caller.response(message),
        };
      }),
      lastUsed: Date.now(),
    };
    this.pools.set(key, entry);
    return entry.callers.relayFor(principal.principal, connection);
  }

  /** Closes every pool; resolves once their children are gone. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.reaper);
    for (const key of [...this.pools.keys()]) this.retire(key);
    await Promise.all([...this.closing]);
  }

  private used(key: string, entry: Entry): Entry {
    this.pools.delete(key);
    this.pools.set(key, entry);
    return entry;
  }

  /** Closes the least recently used pool that has nothing in flight; false when every one is busy. */
  private evictOne(): boolean {
    for (const [key, entry] of this.pools) {
      if (idle(entry.pool)) {
        this.retire(key);
        return true;
      }
    }
    return false;
  }

  private reapIdle(): void {
    const now = Date.now();
    for (const [key, entry] of this.pools) {
      if (now - entry.lastUsed >= this.options.idleMs && idle(entry.pool)) this.retire(key);
    }
  }

  private retire(key: string): void {
    const entry = this.pools.get(key);
    if (entry === undefined) return;
    this.pools.delete(key);
    const closing = entry.pool.close().finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }
}

function idle(pool: ChildPool): boolean {
  const { inFlight, queued } = pool.stats;
  return inFlight === 0 && queued === 0;
}

/** The era, the principal and a digest of its variables (never the variables themselves, which are credentials). */
function keyOf(era: PoolEra, principal: Principal): string {
  const variables = Object.entries(principal.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const digest = createHash("sha256").update(JSON.stringify(variables)).digest("base64url");
  return `${era}\0${principal.principal}\0${digest}`;
}

/** A relay that fails every request at once with UNAVAILABLE. */
function refusing(why: string): Relay {
  return {
    request: (message, sink) => sink.failed(noChild(why, message.method)),
    notification: () => {},
    response: () => {},
  };
}
