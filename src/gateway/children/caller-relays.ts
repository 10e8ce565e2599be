/**
 * One relay of a pool per caller, so that a caller's `notifications/cancelled` reaches its own
 * requests only (`ChildPool.caller()` scopes cancels to the relay it hands out).
 *
 * Without a session nothing names a caller: callers' JSON-RPC ids collide routinely (every
 * client starts at 0 or 1), and a principal is shared by every caller without auth
 * ("anonymous") or with one `--token-file` ("token"). What is certain is the HTTP connection: a
 * cancel that came on the connection its request came on (HTTP/1.1 pipelining), from the same
 * principal, is that caller's. So a caller here is a principal on one connection; a cancel from
 * any other connection finds no request and is dropped (the spec lets a receiver ignore a cancel
 * it cannot apply: basic/utilities/cancellation, 2025-11-25 and 2026-07-28). A 2026-07-28 caller
 * over HTTP cancels by closing its request's stream (2026-07-28 basic/patterns/cancellation,
 * "Transport-Specific Cancellation"), which the front turns into the request's abort signal, and
 * a stateless legacy caller does the same by dropping its connection.
 */
import type { Relay } from "../relay.js";

/** Callers' relays for one pool: a principal on one HTTP connection each. */
export class CallerRelays {
  /** Kept as long as the connection object lives: a closed connection's relays go with it. */
  private readonly byConnection = new WeakMap<object, Map<string, Relay>>();
  /** What stands for the connection of a message that came on none (the gateway's own requests). */
  private readonly noConnection = {};

  constructor(private readonly makeRelay: () => Relay) {}

  /** The relay of `principal` on `connection` (absent: the gateway's own, which no caller cancels). */
  relayFor(principal: string, connection: object | undefined): Relay {
    const key = connection ?? this.noConnection;
    let relays = this.byConnection.get(key);
    if (relays === undefined) this.byConnection.set(key, (relays = new Map()));
    let relay = relays.get(principal);
    if (relay === undefined) relays.set(principal, (relay = this.makeRelay()));
    return relay;
  }
}
