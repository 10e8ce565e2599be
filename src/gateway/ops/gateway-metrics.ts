/**
 * The families behind the gateway's `/metrics`, all named `mcpwire_gateway_*`, each label with a
 * closed set of values (metric-registry.ts), so that a scrape stays the same size whatever callers
 * send. The telemetry (gateway-telemetry.ts) feeds them; the renderer writes them.
 */
import { KNOWN_METHODS } from "./method-label.js";
import { MetricRegistry, type Counter, type Gauge, type Histogram, type LabelSpec } from "./metric-registry.js";
import type { ChildExitCause, RejectionCause, RequestEra, RequestOutcome } from "./telemetry.js";

export const ERAS: readonly RequestEra[] = ["modern", "legacy"];
export const OUTCOMES: readonly RequestOutcome[] = ["ok", "error", "timeout", "cancelled", "rejected"];
export const REJECTION_CAUSES: readonly RejectionCause[] = [
  "host",
  "origin",
  "unauthorized",
  "body_too_large",
  "queue_full",
  "listen_streams_full",
  "sessions_full",
  "principal_sessions_full",
  "unknown_session",
  "draining",
  "not_ready",
  "bad_request",
];
export const CHILD_EXIT_CAUSES: readonly ChildExitCause[] = ["crash", "recycled", "session_ended", "idle", "shutdown", "killed"];

/**
 * Upper bounds of the latency buckets, in seconds: from 5 ms (a `ping` to a warm child) to the
 * default request timeout (60 s) and twice it, so a timed-out request still lands in a bucket.
 */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

const era: LabelSpec = { name: "era", values: ERAS };
const method: LabelSpec = { name: "method", values: KNOWN_METHODS };
const outcome: LabelSpec = { name: "outcome", values: OUTCOMES };

export interface GatewayMetrics {
  readonly registry: MetricRegistry;
  readonly requests: Counter;
  readonly requestDuration: Histogram;
  readonly inFlight: Gauge;
  readonly queued: Gauge;
  readonly sessions: Gauge;
  readonly listenStreams: Gauge;
  readonly children: Gauge;
  readonly childSpawns: Counter;
  readonly childExits: Counter;
  readonly childStderrDropped: Counter;
  readonly rejections: Counter;
}

export function createGatewayMetrics(registry = new MetricRegistry()): GatewayMetrics {
  return {
    registry,
    requests: registry.counter(
      "mcpwire_gateway_requests_total",
      "Requests relayed to a child, by protocol era, MCP method (unknown names as other) and outcome.",
      [era, method, outcome],
    ),
    requestDuration: registry.histogram(
      "mcpwire_gateway_request_duration_seconds",
      "Time from a request's arrival to its answer or failure, in seconds.",
      LATENCY_BUCKETS_SECONDS,
      [era, method],
    ),
    inFlight: registry.gauge("mcpwire_gateway_requests_in_flight", "Requests being relayed to a child now."),
    queued: registry.gauge("mcpwire_gateway_requests_queued", "Requests waiting for an in-flight slot now."),
    sessions: registry.gauge("mcpwire_gateway_sessions", "Legacy sessions open now, each with its own child."),
    listenStreams: registry.gauge("mcpwire_gateway_listen_streams", "subscriptions/listen streams open now (2026-07-28)."),
    children: registry.gauge("mcpwire_gateway_children", "Child processes running now, pool and sessions together."),
    childSpawns: registry.counter("mcpwire_gateway_child_spawns_total", "Child processes started."),
    childExits: registry.counter("mcpwire_gateway_child_exits_total", "Child processes that ended, by cause.", [
      { name: "cause", values: CHILD_EXIT_CAUSES },
    ]),
    childStderrDropped: registry.counter(
      "mcpwire_gateway_child_stderr_dropped_total",
      "Lines of the children's stderr not logged: past a child's budget of lines per second.",
    ),
    rejections: registry.counter(
      "mcpwire_gateway_rejections_total",
      "Requests turned away before reaching a child, by cause (each cause has its own HTTP status).",
      [{ name: "cause", values: REJECTION_CAUSES }],
    ),
  };
}
