/**
 * The gauge of children running, per telemetry: the pools and the sessions of one gateway share
 * its telemetry, so the count is kept here, by the one place that sees every spawn and every
 * exit (gateway-child.ts), and each change is reported with `GatewayTelemetry.children`.
 */
import type { GatewayTelemetry } from "../ops/telemetry.js";

const running = new WeakMap<GatewayTelemetry, number>();

/** One more child runs under `telemetry`. */
export function childStarted(telemetry: GatewayTelemetry | undefined): void {
  if (!telemetry) return;
  const count = (running.get(telemetry) ?? 0) + 1;
  running.set(telemetry, count);
  telemetry.children(count);
}

/** One child fewer. */
export function childStopped(telemetry: GatewayTelemetry | undefined): void {
  if (!telemetry) return;
  const count = Math.max(0, (running.get(telemetry) ?? 0) - 1);
  running.set(telemetry, count);
  telemetry.children(count);
}
