/**
 * The gateway's metrics, kept in memory: counters, gauges and histograms, each a family of series
 * told apart by labels. Every label is declared with the closed set of values it may take, and a
 * value outside the set is counted under `other`, so no caller input can grow the registry: a
 * family never holds more series than the product of its labels' sets. `collect()` hands the
 * families to the renderer (prometheus-text.ts) as plain data.
 */

export type MetricType = "counter" | "gauge" | "histogram";

/** A label of a family and the values it may take; anything else is folded into `other`. */
export interface LabelSpec {
  readonly name: string;
  readonly values: readonly string[];
}

/** The value every label takes for an input outside its declared set. */
export const OTHER_LABEL_VALUE = "other";

/** One line of the exposition: a name (the family's, or with `_bucket`, `_sum`, `_count`), labels, a value. */
export interface Sample {
  readonly name: string;
  readonly labels: readonly (readonly [string, string])[];
  readonly value: number;
}

/** A family as the renderer reads it. */
export interface FamilySnapshot {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly Sample[];
}

/** The labels of one observation, by name; missing ones count as `other`. */
export type LabelValues = Readonly<Record<string, string>>;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** What a family is built from; names and label sets are checked once, when it is registered. */
abstract class Family {
  private readonly sets: readonly ReadonlySet<string>[];

  protected constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labels: readonly LabelSpec[],
  ) {
    if (!METRIC_NAME.test(name)) throw new TypeError(`metric name ${JSON.stringify(name)} is not a Prometheus metric name`);
    for (const label of labels) {
      if (!LABEL_NAME.test(label.name) || label.name.startsWith("__") || label.name === "le") {
        throw new TypeError(`metric ${name}: label name ${JSON.stringify(label.name)} is not allowed`);
      }
    }
    this.sets = labels.map((label) => new Set([...label.values, OTHER_LABEL_VALUE]));
  }

  /** The series key and the label pairs of an observation, each value folded into its declared set. */
  protected series(values: LabelValues): { key: string; pairs: (readonly [string, string])[] } {
    const pairs = this.labels.map((label, index): readonly [string, string] => {
      const given = values[label.name];
      return [label.name, given !== undefined && this.sets[index]!.has(given) ? given : OTHER_LABEL_VALUE];
    });
    // The values come from closed sets of label-safe strings, so a separator cannot be forged.
    return { key: pairs.map(([, value]) => value).join("\u0000"), pairs };
  }

  abstract snapshot(): FamilySnapshot;
}

/** A value that only goes up (requests served, children exited). */
export class Counter extends Family {
  private readonly values = new Map<string, { pairs: (readonly [string, string])[]; value: number }>();

  constructor(name: string, help: string, labels: readonly LabelSpec[] = []) {
    super(name, help, labels);
    if (labels.length === 0) this.values.set("", { pairs: [], value: 0 });
  }

  inc(labels: LabelValues = {}, by = 1): void {
    if (!(by >= 0)) return; // a counter never goes down; NaN and negatives are dropped
    const { key, pairs } = this.series(labels);
    const entry = this.values.get(key);
    if (entry === undefined) this.values.set(key, { pairs, value: by });
    else entry.value += by;
  }

  /** The current value of one series (tests, readiness decisions). */
  get(labels: LabelValues = {}): number {
    return this.values.get(this.series(labels).key)?.value ?? 0;
  }

  snapshot(): FamilySnapshot {
    const samples = [...this.values.values()].map(({ pairs, value }) => ({ name: this.name, labels: pairs, value }));
    return { name: this.name, help: this.help, type: "counter", samples };
  }
}

/** A value that goes up and down (requests in flight, children running). */
export class Gauge extends Family {
  private readonly values = new Map<string, { pairs: (readonly [string, string])[]; value: number }>();

  constructor(name: string, help: string, labels: readonly LabelSpec[] = []) {
    super(name, help, labels);
    if (labels.length === 0) this.values.set("", { pairs: [], value: 0 });
  }

  set(value: number, labels: LabelValues = {}): void {
    const { key, pairs } = this.series(labels);
    this.values.set(key, { pairs, value });
  }

  get(labels: LabelValues = {}): number {
    return this.values.get(this.series(labels).key)?.value ?? 0;
  }

  snapshot(): FamilySnapshot {
    const samples = [...this.values.values()].map(({ pairs, value }) => ({ name: this.name, labels: pairs, value }));
    return { name: this.name, help: this.help, type: "gauge", samples };
  }
}

interface HistogramSeries {
  pairs: (readonly [string, string])[];
  /** Observations per bucket, not cumulative; the last is the one above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/** Observations counted into buckets of upper bounds (latency in seconds). */
export class Histogram extends Family {
  private readonly bounds: readonly number[];
  private readonly values = new Map<string, HistogramSeries>();

  constructor(name: string, help: string, bounds: readonly number[], labels: readonly LabelSpec[] = []) {
    super(name, help, labels);
    const sorted = [...bounds].sort((a, b) => a - b);
    if (sorted.length === 0 || sorted.some((bound, index) => !Number.isFinite(bound) || bound === sorted[index - 1])) {
      throw new TypeError(`histogram ${name}: the bucket bounds must be distinct finite numbers`);
    }
    this.bounds = sorted;
  }

  observe(value: number, labels: LabelValues = {}): void {
    if (Number.isNaN(value)) return;
    const { key, pairs } = this.series(labels);
    let entry = this.values.get(key);
    if (entry === undefined) {
      entry = { pairs, counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.values.set(key, entry);
    }
    const index = this.bounds.findIndex((bound) => value <= bound);
    entry.counts[index === -1 ? this.bounds.length : index]! += 1;
    entry.sum += value;
    entry.count += 1;
  }

  snapshot(): FamilySnapshot {
    const samples: Sample[] = [];
    for (const { pairs, counts, sum, count } of this.values.values()) {
      // Buckets are cumulative in the exposition: each counts every observation at or below its bound.
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += counts[index]!;
        samples.push({ name: `${this.name}_bucket`, labels: [...pairs, ["le", formatBound(bound)]], value: cumulative });
      });
      samples.push({ name: `${this.name}_bucket`, labels: [...pairs, ["le", "+Inf"]], value: count });
      samples.push({ name: `${this.name}_sum`, labels: pairs, value: sum });
      samples.push({ name: `${this.name}_count`, labels: pairs, value: count });
    }
    return { name: this.name, help: this.help, type: "histogram", samples };
  }
}

/** A bucket bound as Prometheus clients write it: `0.005`, `1`, `2.5`. */
function formatBound(bound: number): string {
  return String(bound);
}

/** Families computed when scraped (process basics, readiness), beside the kept ones. */
export type Collector = () => readonly FamilySnapshot[];

/** The families of one gateway, in the order they were registered. */
export class MetricRegistry {
  private readonly families: Family[] = [];
  private readonly collectors: Collector[] = [];
  private readonly names = new Set<string>();

  counter(name: string, help: string, labels: readonly LabelSpec[] = []): Counter {
    return this.add(new Counter(name, help, labels));
  }

  gauge(name: string, help: string, labels: readonly LabelSpec[] = []): Gauge {
    return this.add(new Gauge(name, help, labels));
  }

  histogram(name: string, help: string, bounds: readonly number[], labels: readonly LabelSpec[] = []): Histogram {
    return this.add(new Histogram(name, help, bounds, labels));
  }

  /** Adds families computed at each scrape; their names must not clash with the kept ones. */
  collect(collector: Collector): void {
    this.collectors.push(collector);
  }

  /** Every family, kept ones first, then the collected ones; a collected name already seen is dropped. */
  snapshot(): FamilySnapshot[] {
    const snapshots = this.families.map((family) => family.snapshot());
    const seen = new Set(this.names);
    for (const collector of this.collectors) {
      for (const family of collector()) {
        if (seen.has(family.name)) continue; // one HELP and TYPE per family, whoever adds it
        seen.add(family.name);
        snapshots.push(family);
      }
    }
    return snapshots;
  }

  private add<T extends Family>(family: T): T {
    if (this.names.has(family.name)) throw new TypeError(`metric ${family.name} is registered twice`);
    this.names.add(family.name);
    this.families.push(family);
    return family;
  }
}
