/**
 * The `GatewayTelemetry` the gateway runs with: every report counted into the metrics
 * (gateway-metrics.ts) and written as a JSON log line (log-lines.ts). `metricsText()` is what
 * the admin server answers on `/metrics`.
 */
import { createGatewayMetrics, type GatewayMetrics } from "./gateway-metrics.js";
import { GatewayLog, stderrLogWriter, type LogWriter } from "./log-lines.js";
import { methodLabel } from "./method-label.js";
import type { Collector } from "./metric-registry.js";
import { refuseUnknownOptions } from "./option-check.js";
import { processMetrics } from "./process-metrics.js";
import { renderPrometheusText } from "./prometheus-text.js";
import { createSessionHasher } from "./session-hash.js";
import type { ChildExitCause, ChildStderrDroppedReport, ChildStderrReport, GatewayTelemetry, RejectionCause, RequestReport } from "./telemetry.js";
import { PACKAGE_VERSION } from "../../package-version.js";


export interface GatewayTelemetryOptions {
  /** Where the JSON log lines go, one call per line without its line feed. @default process.stderr */
  log?: LogWriter;
  /** The key of the session-id hash. @default 32 random bytes, drawn once */
  sessionHashKey?: Uint8Array;
  /** Whether `/metrics` shows the process basics (CPU, memory, event-loop delay). @default true */
  processMetrics?: boolean;
  /** The clock of the log lines' `time`. @default () => new Date() */
  now?: () => Date;
}

const OPTION_NAMES = new Set(["log", "sessionHashKey", "processMetrics", "now"]);

/** The telemetry of one gateway: reports in, `/metrics` text and log lines out; it takes every report. */
export interface GatewayTelemetryRecorder extends Required<GatewayTelemetry> {
  /** The metrics in the Prometheus text format 0.0.4 (`PROMETHEUS_CONTENT_TYPE`). */
  metricsText(): string;
  /** Adds families computed at each scrape (the readiness gauge, say). */
  addCollector(collector: Collector): void;
  /**
   * Also tells `observer` of every report it has a member for, after counting and logging it
   * (the capacity source of the readiness, say). An observer that throws is skipped.
   */
  addObserver(observer: Partial<GatewayTelemetry>): void;
  /** The kept metrics, for tests and for decisions that read them. */
  readonly metrics: GatewayMetrics;
  /** Stops sampling the event loop. Idempotent; reports after it are still counted. */
  close(): void;
}

export function createGatewayTelemetry(options: GatewayTelemetryOptions = {}): GatewayTelemetryRecorder {
  refuseUnknownOptions(options, OPTION_NAMES, "createGatewayTelemetry");
  const metrics = createGatewayMetrics();
  const log = new GatewayLog(options.log ?? stderrLogWriter, createSessionHasher(options.sessionHashKey), options.now);
  const processBasics = options.processMetrics === false ? undefined : processMetrics(PACKAGE_VERSION);
  if (processBasics !== undefined) metrics.registry.collect(processBasics.collector);
  const observers: Partial<GatewayTelemetry>[] = [];
  const tell = <K extends keyof GatewayTelemetry>(name: K, ...args: Parameters<NonNullable<GatewayTelemetry[K]>>) => {
    for (const observer of observers) {
      try {
        (observer[name] as ((...given: Parameters<NonNullable<GatewayTelemetry[K]>>) => void) | undefined)?.(...args);
      } catch {
        // One observer failing never fails the report, nor the others.
      }
    }
  };

  return {
    metrics,
    requestDone(report: RequestReport) {
      const labels = { era: report.era, method: methodLabel(report.method) };
      metrics.requests.inc({ ...labels, outcome: report.outcome });
      metrics.requestDuration.observe(Math.max(0, report.durationMs) / 1000, labels);
      log.request(report);
      tell("requestDone", report);
    },
    rejected(cause: RejectionCause, status: number, requestId: string) {
      metrics.rejections.inc({ cause });
      log.rejected(cause, status, requestId);
      tell("rejected", cause, status, requestId);
    },
    inFlight(running: number, queued: number) {
      metrics.inFlight.set(running);
      metrics.queued.set(queued);
      tell("inFlight", running, queued);
    },
    sessions(count: number) {
      metrics.sessions.set(count);
      tell("sessions", count);
    },
    listenStreams(count: number) {
      metrics.listenStreams.set(count);
      tell("listenStreams", count);
    },
    children(running: number) {
      metrics.children.set(running);
      tell("children", running);
    },
    childSpawned(pid: number) {
      metrics.childSpawns.inc();
      log.childSpawned(pid);
      tell("childSpawned", pid);
    },
    childExited(pid: number, cause: ChildExitCause, exitCode: number | null, signal: string | null) {
      metrics.childExits.inc({ cause });
      log.childExited(pid, cause, exitCode, signal);
      tell("childExited", pid, cause, exitCode, signal);
    },
    childStderr(report: ChildStderrReport) {
      log.childStderr(report);
      tell("childStderr", report);
    },
    childStderrDropped(report: ChildStderrDroppedReport) {
      metrics.childStderrDropped.inc({}, report.dropped);
      log.childStderrDropped(report);
      tell("childStderrDropped", report);
    },
    note(event: string, fields?: Readonly<Record<string, string | number | boolean>>) {
      log.note(event, fields);
      tell("note", event, fields);
    },
    metricsText: () => renderPrometheusText(metrics.registry.snapshot()),
    addCollector: (collector) => metrics.registry.collect(collector),
    addObserver: (observer) => void observers.push(observer),
    close: () => processBasics?.stop(),
  };
}
