/**
 * The capacity source of the readiness: a replica that would refuse the next caller is not ready,
 * so the load balancer sends new connections elsewhere. Full means every in-flight slot is taken
 * and the queue is full (the next request would get 503), or, in legacy session mode, the replica
 * holds `maxSessions` sessions (the next `initialize` would get 503). It is fed the same counts as
 * the metrics, through `GatewayTelemetryRecorder.addObserver`.
 *
 * A replica that leaves the rotation keeps serving the connections it has; with session affinity
 * at an ingress, a session's requests follow their affinity, not the readiness (README, "The
 * gateway"). The kubelet samples `/readyz` every few seconds, so a queue full for a moment seldom
 * shows.
 */
import type { Readiness } from "./readiness.js";
import type { GatewayTelemetry } from "./telemetry.js";

export interface CapacityLimits {
  maxRequests: number;
  maxQueue: number;
  /** 0: no legacy sessions are counted against the readiness. */
  maxSessions: number;
}

export function capacityReadiness(readiness: Readiness, limits: CapacityLimits): Pick<GatewayTelemetry, "inFlight" | "sessions"> {
  let requestsFull = false;
  let sessionsFull = false;
  const update = () => {
    if (requestsFull) readiness.report("capacity", false, "every request slot and the queue are full");
    else if (sessionsFull) readiness.report("capacity", false, "the session cap is reached");
    else readiness.report("capacity", true);
  };
  return {
    inFlight(running, queued) {
      const full = running >= limits.maxRequests && queued >= limits.maxQueue;
      if (full === requestsFull) return;
      requestsFull = full;
      update();
    },
    sessions(count) {
      const full = limits.maxSessions > 0 && count >= limits.maxSessions;
      if (full === sessionsFull) return;
      sessionsFull = full;
      update();
    },
  };
}
