/**
 * The metric families written on every request and every upstream attempt, hand-written; the
 * others (process and runtime metrics, build info, the breaker, the typed schema) are
 * prom-client's. Measured side by side (bench/pairs.ts, docs/benchmarks.md "Library or hand-written"),
 * prom-client's Counter and Histogram cost the gateway measurably more CPU per request than
 * these (the figure is in docs/benchmarks.md): each call validates its label object and hashes it into a
 * string, and each observation makes a closure. Here a series is found through one Map per label, which allocates nothing.
 *
 * They implement what prom-client's Registry reads of a metric (`name`, `help`, `type`, `get()`),
 * so they register in the gateway's registry and `/metrics` renders them with prom-client's own.
 */
import type { Metric, Registry } from 'prom-client';

type Labels = Record<string, string | number>;

interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

interface Series<T> {
  readonly labels: Labels;
  readonly data: T;
}

/** The series of one family by their label values (up to three labels). */
class SeriesTable<T> {
  private readonly root = new Map<string, unknown>();
  readonly all: Series<T>[] = [];
  private readonly labelNames: readonly string[];
  private readonly create: () => T;

  constructor(labelNames: readonly string[], create: () => T) {
    if (labelNames.length > 3) throw new Error('at most three labels');
    this.labelNames = labelNames;
    this.create = create;
    if (labelNames.length === 0) this.all.push({ labels: {}, data: create() });
  }

  find(a?: string, b?: string, c?: string): T {
    const depth = this.labelNames.length;
    if (depth === 0) return (this.all[0] as Series<T>).data;
    let level = this.root;
    for (let i = 0; i < depth; i += 1) {
      const value = (i === 0 ? a : i === 1 ? b : c) as string;
      let next = level.get(value);
      if (next === undefined) {
        next = i === depth - 1 ? this.add([a, b, c].slice(0, depth) as string[]) : new Map();
        level.set(value, next);
      }
      if (i === depth - 1) return next as T;
      level = next as Map<string, unknown>;
    }
    throw new Error('unreachable');
  }

  private add(values: readonly string[]): T {
    const labels: Labels = {};
    this.labelNames.forEach((name, i) => {
      labels[name] = values[i] as string;
    });
    const data = this.create();
    this.all.push({ labels, data });
    return data;
  }
}

abstract class Family {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly name: string;
  readonly help: string;
  /** prom-client's cluster aggregation reads it. */
  readonly aggregator = 'sum';

  constructor(name: string, help: string, registry: Registry) {
    this.name = name;
    this.help = help;
    registry.registerMetric(this as unknown as Metric);
  }

  protected abstract values(): MetricValue[];

  async get() {
    return { name: this.name, help: this.help, type: this.type, values: this.values() };
  }
}

interface Count {
  value: number;
}

export class FastCounter extends Family {
  readonly type = 'counter';
  private readonly series: SeriesTable<Count>;

  constructor(name: string, help: string, labelNames: readonly string[], registry: Registry) {
    super(name, help, registry);
    this.series = new SeriesTable(labelNames, () => ({ value: 0 }));
  }

  /** One more, for the series of these label values (in the order of `labelNames`). */
  inc(a?: string, b?: string, c?: string): void {
    this.series.find(a, b, c).value += 1;
  }

  protected values(): MetricValue[] {
    return this.series.all.map(({ labels, data }) => ({ labels, value: data.value }));
  }
}

export class FastGauge extends Family {
  readonly type = 'gauge';
  private value = 0;

  inc(): void {
    this.value += 1;
  }

  dec(): void {
    this.value -= 1;
  }

  protected values(): MetricValue[] {
    return [{ labels: {}, value: this.value }];
  }
}

interface Buckets {
  /** Per-bucket counts (not cumulative); the last one is +Inf. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class FastHistogram extends Family {
  readonly type = 'histogram';
  private readonly series: SeriesTable<Buckets>;
  private readonly bounds: readonly number[];

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    bounds: readonly number[],
    registry: Registry,
  ) {
    super(name, help, registry);
    this.bounds = bounds;
    this.series = new SeriesTable(labelNames, () => ({
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
      count: 0,
    }));
  }

  observe(value: number, a?: string, b?: string): void {
    const buckets = this.series.find(a, b);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i += 1;
    buckets.counts[i] = (buckets.counts[i] as number) + 1;
    buckets.sum += value;
    buckets.count += 1;
  }

  protected values(): MetricValue[] {
    const values: MetricValue[] = [];
    for (const { labels, data } of this.series.all) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += data.counts[i] as number;
        values.push({
          labels: { ...labels, le: bound },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      });
      values.push(
        { labels: { ...labels, le: '+Inf' }, value: data.count, metricName: `${this.name}_bucket` },
        { labels, value: data.sum, metricName: `${this.name}_sum` },
        { labels, value: data.count, metricName: `${this.name}_count` },
      );
    }
    return values;
  }
}
