/**
 * What the gateway tells and answers its operators, and its shutdown: the telemetry (Prometheus
 * metrics and JSON log lines), the admin server (`/healthz`, `/readyz`, `/metrics`), the
 * readiness it answers from, and the drain after SIGTERM with its signal wiring.
 */
export type {
  ChildExitCause,
  ChildStderrDroppedReport,
  ChildStderrReport,
  GatewayTelemetry,
  RejectionCause,
  RequestEra,
  RequestOutcome,
  RequestReport,
} from "./telemetry.js";
export { createGatewayTelemetry, type GatewayTelemetryOptions, type GatewayTelemetryRecorder } from "./gateway-telemetry.js";
export { PROMETHEUS_CONTENT_TYPE, renderPrometheusText } from "./prometheus-text.js";
export { LATENCY_BUCKETS_SECONDS, type GatewayMetrics } from "./gateway-metrics.js";
export { KNOWN_METHODS, methodLabel } from "./method-label.js";
export { MAX_CHILD_STDERR_LINE, stderrLogWriter, type LogWriter } from "./log-lines.js";
export { Readiness, type ReadinessOptions, type ReadinessSource, type ReadinessState, type ReadyFlag } from "./readiness.js";
export { readinessCollector } from "./readiness-metrics.js";
export { capacityReadiness, type CapacityLimits } from "./capacity.js";
export { startAdminServer, type AdminServer, type AdminServerOptions } from "./admin-server.js";
export { parseListenAddress, type ListenAddress } from "./listen-address.js";
export { Drain, DEFAULT_CHILD_CLOSE_MS, type DrainHooks, type DrainOptions, type DrainPhase, type DrainResult } from "./drain.js";
export { onShutdownSignals, SHUTDOWN_SIGNALS, type ShutdownSignal, type ShutdownSignalOptions, type ShutdownWiring } from "./shutdown-signals.js";
