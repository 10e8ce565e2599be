/**
 * The children a gateway runs by default, from gateway/children/: a pool of 2026-07-28 children
 * (and, in `--legacy stateless` mode, a pool of legacy ones the gateway initialized itself), and
 * a `SessionRelay` with a child of its own for each legacy session. A principal that `authorize`
 * gives variables of its own gets pools of its own instead of the shared ones (principal-pools.ts).
 * The shared pools report to the readiness: the replica is ready once a pool is warmed and
 * probed, and not while it crash-loops.
 */
import { CallerRelays, ChildPool, PrincipalPools, SessionRelay, childCommandFor, type GatewayChildLimits } from "./children/index.js";
import type { JsonRpcNotification } from "../protocol/jsonrpc.js";
import { Notification } from "../protocol/methods.js";
import type { ResolvedGatewayOptions } from "./check-options.js";
import type { GatewayChildren, GatewayChildrenFactory } from "./gateway.js";

/**
 * How long a new pool child has to answer its probe, at least: a server on a slow start (npx, a
 * TypeScript loader) may need longer than a short request timeout allows any one request.
 */
export const MIN_PROBE_TIMEOUT_MS = 30_000;

export const defaultChildren: GatewayChildrenFactory = (options, { telemetry, readiness, toolsChanged }): GatewayChildren => {
  const command = childCommandFor({ ...options.target, args: [...options.target.args], envAllow: [...options.target.envAllow] });
  const limits = childLimitsOf(options);
  const poolOptions = {
    command,
    poolMin: options.poolMin,
    poolMax: options.poolMax,
    recycleAfter: options.recycleAfter,
    poolIdleMs: options.poolIdleMs,
    // The front lets at most maxRequests through at once (the rest wait in its own queue), so the
    // pool never has more than that waiting for a child.
    maxQueued: options.maxRequests,
    limits,
    probeTimeoutMs: Math.max(options.requestTimeoutMs, MIN_PROBE_TIMEOUT_MS),
    telemetry,
    childStderr: options.childStderr,
  };
  // No caller of a modern pool can be told of a changed tool list; the gateway's own tool catalog can.
  const onUnrelated = (message: JsonRpcNotification): void => {
    if (message.method === Notification.toolsListChanged) toolsChanged?.();
  };
  const modern = new ChildPool({ ...poolOptions, era: "modern", onUnrelated });
  const stateless = options.legacy === "stateless" ? new ChildPool({ ...poolOptions, era: "legacy-stateless" }) : undefined;
  const pools = stateless === undefined ? [modern] : [modern, stateless];
  // One stdio server speaks one era, so one pool of the two may never be ready: a pool that is
  // ready is enough.
  const report = (): void => readiness.report("pool", pools.some((pool) => pool.ready), notReadyReason(pools));
  for (const pool of pools) pool.onReadyChange(report);

  // A principal with variables of its own gets children of its own (principal-pools.ts).
  const ownPools = new PrincipalPools({
    command,
    makePool: (ownCommand, era) => new ChildPool({ ...poolOptions, command: ownCommand, era, poolMin: 0, ...(era === "modern" ? { onUnrelated } : {}) }),
    maxPools: options.maxSessions,
    idleMs: options.sessionIdleMs,
  });

  // A caller is a principal on one HTTP connection (caller-relays.ts): a principal alone is
  // shared by unrelated callers, whose ids collide.
  const modernCallers = new CallerRelays(() => modern.caller());
  const statelessCallers = stateless === undefined ? undefined : new CallerRelays(() => stateless.caller());
  return {
    poolFor(era, principal, connection) {
      if (PrincipalPools.needed(principal)) return ownPools.relayFor(era === "legacy" ? "legacy-stateless" : "modern", principal, connection);
      const callers = era === "legacy" && statelessCallers !== undefined ? statelessCallers : modernCallers;
      return callers.relayFor(principal.principal, connection);
    },
    openSessionChild: (owner, principal) =>
      new SessionRelay({ command, owner, principal, limits, telemetry, childStderr: options.childStderr, sessionId: owner.sessionId }),
    async start() {
      // The first probe may take long (a server on a slow start, or one that never answers): till
      // then /readyz says so, not the readiness's "not reported yet", which names no cause.
      report();
      await Promise.all(pools.map((pool) => pool.start()));
      report();
    },
    async close() {
      await Promise.all([...pools.map((pool) => pool.close()), ownPools.close()]);
    },
  };
};

/** Why no pool is ready, in `/readyz`'s words: a crash loop and a refused era say so, not "warming". */
function notReadyReason(pools: readonly ChildPool[]): string {
  if (pools.some((pool) => pool.crashLooping)) return "the server process keeps exiting before it answers its probe (crash loop)";
  if (pools.some((pool) => pool.refusedEra)) return "the server refused the gateway's initialize";
  return "no server process answered its probe yet";
}

function childLimitsOf(options: ResolvedGatewayOptions): Partial<GatewayChildLimits> {
  const { maxMessageBytes, readTimeoutMs, maxInFlight } = options.childLimits;
  return {
    requestTimeoutMs: options.requestTimeoutMs,
    ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
    ...(readTimeoutMs === undefined ? {} : { readTimeoutMs }),
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
  };
}
