/**
 * The Prometheus text exposition format, version 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): per family one `# HELP` line
 * (backslash and line feed escaped), one `# TYPE` line, then its samples, `name{label="value",...} value`,
 * label values with backslash, double quote and line feed escaped; values as Go writes floats
 * (`+Inf`, `-Inf`, `NaN`). Lines end with a line feed, the last one included.
 */
import type { FamilySnapshot, Sample } from "./metric-registry.js";

/** The `Content-Type` of a `/metrics` answer in this format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export function renderPrometheusText(families: readonly FamilySnapshot[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`);
    lines.push(`# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) lines.push(renderSample(sample));
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

function renderSample(sample: Sample): string {
  const labels = sample.labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",");
  return `${sample.name}${labels === "" ? "" : `{${labels}}`} ${formatValue(sample.value)}`;
}

/** HELP text: `\` and line feed are escaped (a double quote is not, in HELP). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** A label value: `\`, `"` and line feed are escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** A sample value as Go's ParseFloat reads it back. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}
