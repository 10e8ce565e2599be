/**
 * The `/metrics` text, read back as a scraper reads it: the format 0.0.4 line by line, escaping
 * of help text and label values, histograms cumulative with `+Inf` equal to `_count`, and a
 * registry that no caller input can grow.
 */
import { describe, expect, it } from "vitest";
import { createGatewayTelemetry } from "../../../src/gateway/ops/gateway-telemetry.js";
import { MetricRegistry } from "../../../src/gateway/ops/metric-registry.js";
import { renderPrometheusText } from "../../../src/gateway/ops/prometheus-text.js";
import type { RequestReport } from "../../../src/gateway/ops/telemetry.js";
import { parsePrometheusText } from "./helpers/parse-prometheus.js";

function quietTelemetry() {
  return createGatewayTelemetry({ log: () => {}, processMetrics: false });
}

function report(fields: Partial<RequestReport> = {}): RequestReport {
  return { requestId: "r1", era: "modern", method: "tools/call", outcome: "ok", status: 200, durationMs: 12, ...fields };
}

describe("the Prometheus text of the gateway", () => {
  it("writes HELP and TYPE once per family, before its samples, every name prefixed mcpwire_gateway_", () => {
    const telemetry = createGatewayTelemetry({ log: () => {} });
    try {
      telemetry.requestDone(report());
      telemetry.requestDone(report({ era: "legacy", method: "initialize", outcome: "error", status: 500 }));
      telemetry.rejected("queue_full", 503, "r2");
      telemetry.inFlight(3, 2);
      telemetry.sessions(4);
      telemetry.children(5);
      telemetry.childSpawned(100);
      telemetry.childExited(100, "crash", 1, null);
      const text = telemetry.metricsText();
      const families = parsePrometheusText(text); // throws on a second HELP/TYPE or a sample before TYPE
      for (const family of families.values()) {
        expect(family.name).toMatch(/^mcpwire_gateway_/);
        expect(family.help).toBeTruthy();
        expect(family.type).toBeTruthy();
      }
      expect(text.match(/^# TYPE mcpwire_gateway_requests_total /gm)).toHaveLength(1);
      const requests = families.get("mcpwire_gateway_requests_total")!;
      expect(requests.type).toBe("counter");
      expect(requests.samples).toContainEqual({
        name: "mcpwire_gateway_requests_total",
        labels: { era: "legacy", method: "initialize", outcome: "error" },
        value: 1,
      });
      expect(families.get("mcpwire_gateway_requests_in_flight")!.samples[0]!.value).toBe(3);
      expect(families.get("mcpwire_gateway_requests_queued")!.samples[0]!.value).toBe(2);
      expect(families.get("mcpwire_gateway_sessions")!.samples[0]!.value).toBe(4);
      expect(families.get("mcpwire_gateway_children")!.samples[0]!.value).toBe(5);
      expect(families.get("mcpwire_gateway_child_spawns_total")!.samples[0]!.value).toBe(1);
      expect(families.get("mcpwire_gateway_child_exits_total")!.samples).toEqual([
        { name: "mcpwire_gateway_child_exits_total", labels: { cause: "crash" }, value: 1 },
      ]);
      expect(families.get("mcpwire_gateway_rejections_total")!.samples).toEqual([
        { name: "mcpwire_gateway_rejections_total", labels: { cause: "queue_full" }, value: 1 },
      ]);
      // The process basics an operator reads beside them.
      for (const name of [
        "mcpwire_gateway_process_start_time_seconds",
        "mcpwire_gateway_process_cpu_seconds_total",
        "mcpwire_gateway_process_resident_memory_bytes",
        "mcpwire_gateway_process_heap_used_bytes",
        "mcpwire_gateway_event_loop_delay_max_seconds",
        "mcpwire_gateway_build_info",
      ]) {
        expect(families.get(name)?.samples.length, name).toBe(1);
      }
      expect(families.get("mcpwire_gateway_process_resident_memory_bytes")!.samples[0]!.value).toBeGreaterThan(0);
    } finally {
      telemetry.close();
      telemetry.close(); // idempotent
    }
    // Reports after close are still counted (a child exiting during the drain's end).
    telemetry.childExited(101, "shutdown", 0, null);
    expect(telemetry.metrics.childExits.get({ cause: "shutdown" })).toBe(1);
    expect(() => parsePrometheusText(telemetry.metricsText())).not.toThrow();
  });

  it("escapes backslashes and line feeds in HELP, and quotes, backslashes and line feeds in label values", () => {
    const registry = new MetricRegistry();
    const tricky = 'a "quoted" \\ back\nslash';
    const counter = registry.counter("escapes_total", "help with \\ and\na line feed and \"quotes\"", [
      { name: "value", values: [tricky, "plain"] },
    ]);
    counter.inc({ value: tricky });
    const text = renderPrometheusText(registry.snapshot());
    expect(text).toContain('# HELP escapes_total help with \\\\ and\\na line feed and "quotes"\n');
    expect(text).toContain('escapes_total{value="a \\"quoted\\" \\\\ back\\nslash"} 1\n');
    const family = parsePrometheusText(text).get("escapes_total")!;
    expect(family.help).toBe("help with \\ and\na line feed and \"quotes\"");
    expect(family.samples[0]!.labels.value).toBe(tricky);
  });

  it("writes histogram buckets cumulative and ascending, the +Inf bucket equal to _count, and _sum", () => {
    const telemetry = quietTelemetry();
    const durations = [1, 3, 7, 7, 40, 400, 2_000, 200_000];
    for (const durationMs of durations) telemetry.requestDone(report({ durationMs }));
    const family = parsePrometheusText(telemetry.metricsText()).get("mcpwire_gateway_request_duration_seconds")!;
    expect(family.type).toBe("histogram");
    const buckets = family.samples.filter((sample) => sample.name.endsWith("_bucket"));
    const bounds = buckets.map((sample) => (sample.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(sample.labels.le)));
    expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
    expect(bounds.at(-1)).toBe(Number.POSITIVE_INFINITY);
    const counts = buckets.map((sample) => sample.value);
    counts.forEach((count, index) => expect(count).toBeGreaterThanOrEqual(counts[index - 1] ?? 0));
    const count = family.samples.find((sample) => sample.name.endsWith("_count"))!.value;
    const sum = family.samples.find((sample) => sample.name.endsWith("_sum"))!.value;
    expect(count).toBe(durations.length);
    expect(counts.at(-1)).toBe(count);
    expect(sum).toBeCloseTo(durations.reduce((a, b) => a + b, 0) / 1000, 9);
    // Each bucket counts the observations at or below its bound, in seconds.
    buckets.forEach((bucket, index) => {
      expect(bucket.value).toBe(durations.filter((ms) => ms / 1000 <= bounds[index]!).length);
    });
    // 200 s is past every finite bound: only +Inf has it.
    expect(counts.at(-2)).toBe(durations.length - 1);
  });

  it("keeps known MCP method names and folds 10 000 random ones into other, so the series stay bounded", () => {
    const telemetry = quietTelemetry();
    telemetry.requestDone(report({ method: "tools/list" }));
    const seriesIn = (text: string) => [...parsePrometheusText(text).values()].reduce((total, family) => total + family.samples.length, 0);
    const before = seriesIn(telemetry.metricsText());
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let i = 0; i < 10_000; i++) {
      const method = `${random().toString(36)}/${"\n\"\\".charAt(random() % 3)}${random().toString(36)}`;
      telemetry.requestDone(report({ method, era: random() % 2 ? "modern" : "legacy" }));
      telemetry.rejected(`cause-${i}` as never, 400, `r${i}`);
      telemetry.childExited(i, `why-${i}` as never, 1, null);
    }
    const families = parsePrometheusText(telemetry.metricsText());
    const methods = new Set(families.get("mcpwire_gateway_requests_total")!.samples.map((sample) => sample.labels.method));
    expect(methods).toEqual(new Set(["tools/list", "other"]));
    // Added: "other" in both eras, for the counter (1 series each) and the histogram (14 bounds,
    // +Inf, _sum, _count each), and one "other" cause for the rejections and the exits.
    expect(seriesIn(telemetry.metricsText())).toBe(before + 2 * 1 + 2 * 17 + 1 + 1);
    expect(families.get("mcpwire_gateway_rejections_total")!.samples).toEqual([
      { name: "mcpwire_gateway_rejections_total", labels: { cause: "other" }, value: 10_000 },
    ]);
    expect(families.get("mcpwire_gateway_child_exits_total")!.samples).toEqual([
      { name: "mcpwire_gateway_child_exits_total", labels: { cause: "other" }, value: 10_000 },
    ]);
    const other = families.get("mcpwire_gateway_requests_total")!.samples.filter((sample) => sample.labels.method === "other");
    expect(other.reduce((total, sample) => total + sample.value, 0)).toBe(10_000);
  });

  it("writes +Inf, -Inf and NaN as Go does, and refuses names the format does not allow", () => {
    const registry = new MetricRegistry();
    registry.gauge("plus", "x").set(Number.POSITIVE_INFINITY);
    registry.gauge("minus", "x").set(Number.NEGATIVE_INFINITY);
    registry.gauge("nan", "x").set(Number.NaN);
    const text = renderPrometheusText(registry.snapshot());
    expect(text).toContain("plus +Inf\n");
    expect(text).toContain("minus -Inf\n");
    expect(text).toContain("nan NaN\n");
    expect(() => registry.counter("1bad", "x")).toThrow(TypeError);
    expect(() => registry.counter("ok_total", "x", [{ name: "le", values: [] }])).toThrow(TypeError);
    expect(() => registry.counter("plus", "x")).toThrow(/registered twice/);
    expect(() => registry.histogram("h", "x", [])).toThrow(TypeError);
  });

  it("never lets a counter go down", () => {
    const registry = new MetricRegistry();
    const counter = registry.counter("c_total", "x");
    counter.inc({}, 2);
    counter.inc({}, -5);
    counter.inc({}, Number.NaN);
    expect(counter.get()).toBe(2);
  });
});

describe("the strict reader the tests above rely on", () => {
  it("refuses what the format forbids, so the checks above can fail", () => {
    const bad = [
      "x 1", // no line feed at the end
      "x 1\n", // a sample before its TYPE
      "# TYPE x gauge\n# TYPE x gauge\nx 1\n",
      "# HELP x a\n# HELP x b\n# TYPE x gauge\nx 1\n",
      "# TYPE x gauge\nx 1\n# TYPE y gauge\ny 1\nx 2\n", // x not one group
      '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n', // the same line twice
      '# TYPE x gauge\nx{a="\\q"} 1\n', // a bad escape
      "# TYPE x gauge\nx one\n",
      "# HELP x a \\t b\n# TYPE x gauge\nx 1\n",
    ];
    for (const text of bad) expect(() => parsePrometheusText(text), JSON.stringify(text)).toThrow();
    expect(parsePrometheusText('# HELP x a\\\\b\\nc\n# TYPE x gauge\nx{a="q\\"\\\\\\n"} +Inf\n').get("x")).toEqual({
      name: "x",
      help: "a\\b\nc",
      type: "gauge",
      samples: [{ name: "x", labels: { a: 'q"\\\n' }, value: Number.POSITIVE_INFINITY }],
    });
  });
});
