/** The capacity source of the readiness, fed through the telemetry's observers. */
import { describe, expect, it } from "vitest";
import { capacityReadiness } from "../../../src/gateway/ops/capacity.js";
import { createGatewayTelemetry } from "../../../src/gateway/ops/gateway-telemetry.js";
import { Readiness } from "../../../src/gateway/ops/readiness.js";

function wired(limits = { maxRequests: 2, maxQueue: 1, maxSessions: 3 }) {
  const readiness = new Readiness({ waitFor: [] });
  const telemetry = createGatewayTelemetry({ log: () => {}, processMetrics: false });
  telemetry.addObserver(capacityReadiness(readiness, limits));
  return { readiness, telemetry };
}

describe("the capacity readiness", () => {
  it("is not ready while every slot and the queue are full, and ready again below", () => {
    const { readiness, telemetry } = wired();
    telemetry.inFlight(2, 0);
    expect(readiness.state().ready).toBe(true); // slots full, queue not: the next one waits
    telemetry.inFlight(2, 1);
    expect(readiness.state()).toEqual({ ready: false, reason: "capacity: every request slot and the queue are full" });
    telemetry.inFlight(2, 0);
    expect(readiness.state().ready).toBe(true);
  });

  it("is not ready at the session cap, and counts no sessions when the cap is 0", () => {
    const { readiness, telemetry } = wired();
    telemetry.sessions(3);
    expect(readiness.state()).toEqual({ ready: false, reason: "capacity: the session cap is reached" });
    telemetry.inFlight(2, 1);
    telemetry.sessions(2);
    expect(readiness.state()).toEqual({ ready: false, reason: "capacity: every request slot and the queue are full" });
    telemetry.inFlight(0, 0);
    expect(readiness.state().ready).toBe(true);
    const unlimited = wired({ maxRequests: 1, maxQueue: 0, maxSessions: 0 });
    unlimited.telemetry.sessions(10);
    unlimited.telemetry.inFlight(0, 0);
    expect(unlimited.readiness.state().ready).toBe(true);
  });

  it("gets every report after it is counted, and an observer that throws fails nothing", () => {
    const telemetry = createGatewayTelemetry({ log: () => {}, processMetrics: false });
    const seen: string[] = [];
    telemetry.addObserver({
      inFlight: () => {
        throw new Error("observer broken");
      },
    });
    telemetry.addObserver({
      inFlight: (running, queued) => seen.push(`inFlight ${running} ${queued} counted ${telemetry.metrics.inFlight.get()}`),
      childExited: (pid, cause) => seen.push(`exit ${pid} ${cause}`),
      note: (event) => seen.push(`note ${event}`),
    });
    expect(() => telemetry.inFlight(4, 1)).not.toThrow();
    telemetry.childExited(9, "idle", 0, null);
    telemetry.note("listening", { url: "http://127.0.0.1:1/mcp" });
    expect(seen).toEqual(["inFlight 4 1 counted 4", "exit 9 idle", "note listening"]);
  });
});
