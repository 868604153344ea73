/**
 * Address traces for the ATC: synthetic (uniform, zipf, stream) from the project Rng, or a file
 * of hexadecimal virtual addresses. A trace is a Float64Array of virtual addresses.
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import { Rng } from '../../rtl/kernel/index.ts';

export type TraceKind = 'uniform' | 'zipf' | 'stream';

export interface TraceOptions {
  kind: TraceKind;
  requests: number;
  seed: number;
  /** distinct pages the synthetic traces draw from (default 262,144 = 1 GiB of 4 KiB pages) */
  pages?: number;
  /** zipf exponent (default 0.99) */
  zipfS?: number;
}

export const TRACE_DEFAULT_PAGES = 262144;
export const TRACE_DEFAULT_ZIPF_S = 0.99;

/**
 * Page number of the rank-th page of the universe: a bijective scramble on 32 bits, so the hot
 * pages of a zipf trace are spread over the sets instead of sitting in consecutive ones.
 */
export function scramblePage(rank: number): number {
  return Math.imul(rank + 1, 0x9e3779b1) >>> 0;
}

/** Cumulative zipf(s) distribution over n ranks (rank 0 most popular). */
export function zipfCdf(n: number, s: number): Float64Array {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let k = 0; k < n; k++) {
    acc += 1 / Math.pow(k + 1, s);
    cdf[k] = acc;
  }
  for (let k = 0; k < n; k++) cdf[k]! /= acc;
  cdf[n - 1] = 1;
  return cdf;
}

function searchCdf(cdf: Float64Array, u: number): number {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid]! >= u) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * An endless address stream. uniform: pages drawn uniformly from the universe; zipf: page ranks
 * drawn from zipf(s); both with a random 64-byte-aligned offset in the page. stream: consecutive
 * 64-byte lines (64 requests per page) through the universe, wrapping.
 */
export function traceSampler(o: Omit<TraceOptions, 'requests'>): () => number {
  const pages = o.pages ?? TRACE_DEFAULT_PAGES;
  if (!Number.isInteger(pages) || pages < 1 || pages > 2 ** 26) throw new InputError(`trace: pages must be an integer in [1, 2^26], got ${pages}`);
  const rng = new Rng(o.seed);
  if (o.kind === 'stream') {
    const span = pages * 64;
    let i = 0;
    return () => {
      const line = i % span;
      i++;
      return 0x10000000 + line * 64;
    };
  }
  if (o.kind === 'uniform') return () => scramblePage(rng.int(pages)) * 4096 + rng.int(64) * 64;
  const s = o.zipfS ?? TRACE_DEFAULT_ZIPF_S;
  if (!(s > 0 && s < 10)) throw new InputError(`trace: zipf exponent must be in (0, 10), got ${s}`);
  const cdf = zipfCdf(pages, s);
  return () => scramblePage(searchCdf(cdf, rng.float())) * 4096 + rng.int(64) * 64;
}

/** `requests` addresses of a synthetic trace. */
export function generateTrace(o: TraceOptions): Float64Array {
  const n = o.requests;
  if (!Number.isInteger(n) || n < 1) throw new InputError(`trace: requests must be a positive integer, got ${n}`);
  const next = traceSampler(o);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = next();
  return out;
}

/**
 * A trace file: one hexadecimal virtual address per line ("0x" prefix optional); blank lines and
 * text after '#' are ignored. Every malformed line is an InputError naming the line number.
 */
export function parseTraceText(text: string, source: string, vaBits = 48): Float64Array {
  const lines = text.split(/\r?\n/);
  const vals: number[] = [];
  const limit = 2 ** vaBits;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const hash = raw.indexOf('#');
    const s = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (s === '') continue;
    if (!/^(0[xX])?[0-9a-fA-F]+$/.test(s)) throw new InputError(`${source}:${i + 1}: '${s.length > 40 ? s.slice(0, 40) + '...' : s}' is not a hexadecimal address`);
    const digits = s.replace(/^0[xX]/, '').replace(/^0+(?=.)/, '');
    if (digits.length > 13) throw new InputError(`${source}:${i + 1}: address ${s} does not fit in ${vaBits} bits`);
    const v = parseInt(digits, 16);
    if (v >= limit) throw new InputError(`${source}:${i + 1}: address ${s} does not fit in ${vaBits} bits`);
    vals.push(v);
  }
  if (vals.length === 0) throw new InputError(`${source}: no addresses (expected one hexadecimal virtual address per line)`);
  return Float64Array.from(vals);
}

/** Repeat (or cut) a trace to `n` requests. */
export function fitTrace(trace: Float64Array, n: number): Float64Array {
  if (trace.length === n) return trace;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = trace[i % trace.length]!;
  return out;
}
