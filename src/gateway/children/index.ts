/**
 * The gateway's side toward the stdio servers: one child as the gateway drives it, the pool
 * (2026-07-28 callers, and legacy ones in `--legacy stateless` mode) and the session relay
 * (`--legacy session`), the two `Relay`s the HTTP front hands callers' messages to.
 */
export { childCommandFor, withEnv, transportFor, type ChildCommand, type ChildStopTimings } from "./child-command.js";
export {
  GatewayChild,
  DEFAULT_CHILD_LIMITS,
  GATEWAY_CHILD_OPTION_NAMES,
  type ChildExit,
  type ForwardOptions,
  type GatewayChildLimits,
  type GatewayChildOptions,
  type GatewayChildOwner,
} from "./gateway-child.js";
export { ChildPool, CHILD_POOL_OPTION_NAMES, DEFAULT_POOL, STATELESS_REFUSAL, type ChildPoolOptions, type PoolEra, type PoolStats } from "./child-pool.js";
export { CallerRelays } from "./caller-relays.js";
export { PrincipalPools, type PrincipalPoolsOptions } from "./principal-pools.js";
export { SessionRelay, SESSION_RELAY_OPTION_NAMES, type SessionExit, type SessionRelayOptions, type SessionRelayOwner } from "./session-relay.js";
export { GATEWAY_CLIENT_INFO } from "./pool-probe.js";
export { DEFAULT_BACKOFF, type BackoffOptions } from "./restart-backoff.js";
export { DEFAULT_CRASH_LOOP, type CrashLoopOptions } from "./crash-loop.js";
export {
  CHILD_STDERR_BURST_LINES,
  CHILD_STDERR_DROPPED_REPORT_MS,
  CHILD_STDERR_LINES_PER_SECOND,
  type ChildStderrMode,
  type ChildStderrSource,
} from "./child-stderr.js";
