/**
 * Statistics: named counters and histograms, registered per component path and
 * exported as JSON. Components count events (a grant, a stall that started and
 * ended), never "cycles I was evaluated", so statistics are identical with
 * activity skipping on and off.
 */

export class Counter {
  value = 0;
  constructor(readonly path: string) {}
  inc(n = 1): void {
    this.value += n;
  }
  reset(): void {
    this.value = 0;
  }
}

export interface HistogramOptions {
  /** Width of each linear bucket (default 1). */
  bucketWidth?: number;
  /** Number of linear buckets before the overflow bucket (default 256). */
  buckets?: number;
}

/**
 * Latency histogram: linear buckets of a fixed width plus one overflow
 * bucket. Exact min, max, sum and count are kept beside the buckets, so the
 * mean is exact; percentiles are exact when bucketWidth is 1 and the value is
 * below the overflow bucket.
 */
export class Histogram {
  readonly bucketWidth: number;
  readonly counts: Float64Array;
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;

  constructor(readonly path: string, opts: HistogramOptions = {}) {
    const width = opts.bucketWidth ?? 1;
    const n = opts.buckets ?? 256;
    if (!(width > 0) || !Number.isInteger(n) || n < 1) throw new RangeError(`histogram ${path}: bucketWidth must be > 0 and buckets a positive integer`);
    this.bucketWidth = width;
    this.counts = new Float64Array(n + 1);
  }

  record(value: number): void {
    const n = this.counts.length - 1;
    let b = Math.floor(value / this.bucketWidth);
    if (b < 0) b = 0;
    else if (b > n) b = n;
    this.counts[b]! += 1;
    this.count++;
    this.sum += value;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
  }

  mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /**
   * Smallest bucket lower bound L such that at least p (0..1) of the samples
   * are < L + bucketWidth. Returns max for the overflow bucket.
   */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const want = Math.ceil(p * this.count);
    let acc = 0;
    const n = this.counts.length - 1;
    for (let b = 0; b < n; b++) {
      acc += this.counts[b]!;
      if (acc >= want && acc > 0) return Math.max(this.min, b * this.bucketWidth);
    }
    return this.max;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
    this.min = Number.POSITIVE_INFINITY;
    this.max = Number.NEGATIVE_INFINITY;
  }

  toJSON(): Record<string, unknown> {
    const buckets: Record<string, number> = {};
    const n = this.counts.length - 1;
    for (let b = 0; b <= n; b++) {
      const c = this.counts[b]!;
      if (c !== 0) buckets[b === n ? `>=${n * this.bucketWidth}` : String(b * this.bucketWidth)] = c;
    }
    return {
      count: this.count,
      sum: this.sum,
      min: this.count ? this.min : null,
      max: this.count ? this.max : null,
      mean: this.mean(),
      p50: this.percentile(0.5),
      p99: this.percentile(0.99),
      bucket_width: this.bucketWidth,
      buckets,
    };
  }
}

export class StatsRegistry {
  private readonly counters = new Map<string, Counter>();
  private readonly histograms = new Map<string, Histogram>();

  counter(path: string): Counter {
    if (this.counters.has(path) || this.histograms.has(path)) throw new Error(`statistic ${path} is already registered`);
    const c = new Counter(path);
    this.counters.set(path, c);
    return c;
  }

  histogram(path: string, opts?: HistogramOptions): Histogram {
    if (this.counters.has(path) || this.histograms.has(path)) throw new Error(`statistic ${path} is already registered`);
    const h = new Histogram(path, opts);
    this.histograms.set(path, h);
    return h;
  }

  get(path: string): Counter | Histogram | undefined {
    return this.counters.get(path) ?? this.histograms.get(path);
  }

  reset(): void {
    for (const c of this.counters.values()) c.reset();
    for (const h of this.histograms.values()) h.reset();
  }

  /** Flat JSON object keyed by full statistic path, sorted by path, so output is stable. */
  toJSON(): Record<string, unknown> {
    const entries: [string, unknown][] = [];
    for (const [p, c] of this.counters) entries.push([p, c.value]);
    for (const [p, h] of this.histograms) entries.push([p, h.toJSON()]);
    entries.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    return Object.fromEntries(entries);
  }
}
