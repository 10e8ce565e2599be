/**
 * Whether the wrapped server accepts a legacy revision, for the stateless pool's answer to a
 * caller's `initialize` (child-pool.ts). A server that supports the revision asked MUST answer
 * with it (2025-11-25 basic/lifecycle, "Version Negotiation"), so the only way to know is to ask:
 * a child of its own is spawned, initialized with that revision, and closed through the ladder.
 * It takes no caller's request; the pool asks once per revision and keeps the verdict.
 */
import { isFailure } from "../../protocol/jsonrpc.js";
import { Method } from "../../protocol/methods.js";
import type { GatewayTelemetry } from "../ops/telemetry.js";
import type { ChildCommand, ChildStopTimings } from "./child-command.js";
import { GatewayChild, type GatewayChildLimits } from "./gateway-child.js";
import { GATEWAY_CLIENT_INFO } from "./pool-probe.js";

export interface RevisionCheckOptions {
  command: ChildCommand;
  limits?: Partial<GatewayChildLimits>;
  stopTimings?: ChildStopTimings;
  telemetry?: GatewayTelemetry;
  /** How long the child has to answer, in ms. */
  timeoutMs: number;
  /** Told of the child while it runs, so its owner can stop it at once on close. */
  running?: (child: GatewayChild) => void;
}

/**
 * Resolves true when the server answered `initialize` for `revision` with that same revision;
 * false when it named another or refused; undefined when it could not be started or asked (it
 * died, stayed silent): not known, worth asking again. Never rejects.
 */
export async function serverAcceptsRevision(revision: string, options: RevisionCheckOptions): Promise<boolean | undefined> {
  let child: GatewayChild | undefined;
  try {
    child = await GatewayChild.spawn({
      command: options.command,
      limits: options.limits,
      stopTimings: options.stopTimings,
      telemetry: options.telemetry,
      // Nothing of this child reaches a caller: its requests and notifications are dropped.
      owner: { unrelated: () => {}, exited: () => {} },
    });
    options.running?.(child);
    const answer = await child.call(Method.initialize, { protocolVersion: revision, capabilities: {}, clientInfo: { ...GATEWAY_CLIENT_INFO } }, options.timeoutMs);
    return !isFailure(answer) && answer.result.protocolVersion === revision;
  } catch {
    return undefined;
  } finally {
    await child?.close("shutdown");
  }
}
