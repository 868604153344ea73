import type { BenchRevision } from './benchHistory.ts';

/** What every section of the report is built with. */
export interface ReportOptions {
  /** smaller runs (fewer requests, packets, sizes) for CI; the captions name the exact commands either way */
  quick: boolean;
  /** revisions of bench/results.json, oldest first (readBenchRevisions) */
  bench: readonly BenchRevision[];
  /** called after each section of the report is built (progress): sections done, sections in the run */
  onSection?: (done: number, total: number) => void;
}
