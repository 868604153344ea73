/**
 * Golden vector file format (docs/vectors.md): JSON Lines. Line 1 is the header, every other
 * line one transaction. Bit patterns are lower-case hex strings with a 0x prefix. Files are
 * written with sorted keys and no spaces, so the same vectors are the same bytes.
 */
import { InputError } from '../rtl/kernel/errors.ts';

export const FORMAT_NAME = 'netoffload-vectors';
export const FORMAT_VERSION = 1;

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface VectorHeader {
  format: typeof FORMAT_NAME;
  version: number;
  block: string;
  generator_version: string;
  seed: number;
  count: number;
  config: { [k: string]: Json };
}

export interface VectorRecord {
  /** 0-based transaction number */
  id: number;
  /** stimulus: what the testbench drives */
  in: { [k: string]: Json };
  /** expected outputs */
  out: { [k: string]: Json };
  /** where the block is cycle-exact: cycles (from reset) at which inputs are accepted and outputs appear */
  cycles?: { [k: string]: Json };
}

export interface VectorFile {
  header: VectorHeader;
  records: VectorRecord[];
}

/** JSON with keys sorted at every level: a canonical byte form. */
export function canonicalJson(v: Json): string {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new Error(`cannot serialise non-finite number ${v}`);
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k] as Json)}`).join(',')}}`;
}

export function serialize(file: VectorFile): string {
  const lines = [canonicalJson(file.header as unknown as Json)];
  for (const r of file.records) lines.push(canonicalJson(r as unknown as Json));
  return lines.join('\n') + '\n';
}

function isObject(v: unknown): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parse a vector file; every problem is an InputError naming the line and field. */
export function parse(text: string, source = 'vector file'): VectorFile {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) throw new InputError(`${source}: empty file (expected a header line)`);
  const json = (i: number): unknown => {
    try {
      return JSON.parse(lines[i]!);
    } catch (e) {
      throw new InputError(`${source}:${i + 1}: not valid JSON (${(e as Error).message})`);
    }
  };
  const h = json(0);
  if (!isObject(h)) throw new InputError(`${source}:1: header must be a JSON object`);
  if (h.format !== FORMAT_NAME) throw new InputError(`${source}:1: header.format must be "${FORMAT_NAME}", got ${JSON.stringify(h.format)}`);
  if (h.version !== FORMAT_VERSION) throw new InputError(`${source}:1: unsupported header.version ${JSON.stringify(h.version)} (this tool reads version ${FORMAT_VERSION})`);
  for (const k of ['block', 'generator_version'] as const) if (typeof h[k] !== 'string') throw new InputError(`${source}:1: header.${k} must be a string`);
  for (const k of ['seed', 'count'] as const) if (typeof h[k] !== 'number' || !Number.isSafeInteger(h[k]) || (h[k] as number) < 0) throw new InputError(`${source}:1: header.${k} must be a non-negative integer`);
  if (!isObject(h.config)) throw new InputError(`${source}:1: header.config must be an object`);
  const header = h as unknown as VectorHeader;
  const records: VectorRecord[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '') throw new InputError(`${source}:${i + 1}: blank line`);
    const r = json(i);
    if (!isObject(r)) throw new InputError(`${source}:${i + 1}: record must be a JSON object`);
    if (r.id !== i - 1) throw new InputError(`${source}:${i + 1}: record id must be ${i - 1}, got ${JSON.stringify(r.id)}`);
    if (!isObject(r.in)) throw new InputError(`${source}:${i + 1}: record.in must be an object`);
    if (!isObject(r.out)) throw new InputError(`${source}:${i + 1}: record.out must be an object`);
    if (r.cycles !== undefined && !isObject(r.cycles)) throw new InputError(`${source}:${i + 1}: record.cycles must be an object`);
    for (const k of Object.keys(r)) if (!['id', 'in', 'out', 'cycles'].includes(k)) throw new InputError(`${source}:${i + 1}: unknown record field '${k}'`);
    records.push(r as unknown as VectorRecord);
  }
  if (records.length !== header.count) throw new InputError(`${source}: header.count is ${header.count} but the file holds ${records.length} records`);
  return { header, records };
}

/** Read helpers for replayers: each throws InputError naming the record and field. */
export class RecordReader {
  constructor(
    private readonly rec: VectorRecord,
    private readonly where: 'in' | 'out' | 'cycles',
  ) {}
  private ctx(k: string): string {
    return `record ${this.rec.id}: ${this.where}.${k}`;
  }
  private raw(k: string): Json | undefined {
    const obj = this.where === 'cycles' ? this.rec.cycles : this.rec[this.where];
    return obj?.[k];
  }
  has(k: string): boolean {
    return this.raw(k) !== undefined;
  }
  int(k: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
    const v = this.raw(k);
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) throw new InputError(`${this.ctx(k)} must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
    return v;
  }
  str(k: string, choices?: readonly string[]): string {
    const v = this.raw(k);
    if (typeof v !== 'string' || (choices && !choices.includes(v))) throw new InputError(`${this.ctx(k)} must be ${choices ? `one of ${choices.join(', ')}` : 'a string'}, got ${JSON.stringify(v)}`);
    return v;
  }
  bool(k: string): boolean {
    const v = this.raw(k);
    if (typeof v !== 'boolean') throw new InputError(`${this.ctx(k)} must be true or false, got ${JSON.stringify(v)}`);
    return v;
  }
  /** a hex bit pattern "0x..." of at most `bits` bits */
  hex(k: string, bits: number): bigint {
    const v = this.raw(k);
    return parseHex(v, bits, this.ctx(k));
  }
  /** a hex byte string "0x..." (even number of digits, little-endian byte order as written) */
  bytes(k: string, maxLen: number): Uint8Array {
    const v = this.raw(k);
    return parseHexBytes(v, maxLen, this.ctx(k));
  }
  list(k: string): Json[] {
    const v = this.raw(k);
    if (!Array.isArray(v)) throw new InputError(`${this.ctx(k)} must be an array`);
    return v;
  }
  json(k: string): Json | undefined {
    return this.raw(k);
  }
}

export function parseHex(v: unknown, bits: number, ctx: string): bigint {
  if (typeof v !== 'string' || !/^0x[0-9a-f]+$/.test(v)) throw new InputError(`${ctx} must be a lower-case hex string like "0x1f", got ${JSON.stringify(v)}`);
  const n = BigInt(v);
  if (n >> BigInt(bits) !== 0n) throw new InputError(`${ctx} = ${v} does not fit in ${bits} bits`);
  return n;
}

/** Bytes are written as "0x" + two hex digits per byte, byte 0 first. "0x" alone is zero bytes. */
export function parseHexBytes(v: unknown, maxLen: number, ctx: string): Uint8Array {
  if (typeof v !== 'string' || !/^0x([0-9a-f]{2})*$/.test(v)) throw new InputError(`${ctx} must be a hex byte string like "0x00ff" (two digits per byte), got ${JSON.stringify(v)}`);
  const n = (v.length - 2) / 2;
  if (n > maxLen) throw new InputError(`${ctx} has ${n} bytes, more than ${maxLen}`);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = parseInt(v.slice(2 + 2 * i, 4 + 2 * i), 16);
  return out;
}

export function hexBytes(b: Uint8Array): string {
  let s = '0x';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

export function hexBits(v: bigint | number): string {
  return '0x' + BigInt(v).toString(16);
}
