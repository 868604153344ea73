/**
 * Parameters of the SDQ path (docs/nic-frontend.md, "SDQ"), their defaults and validation.
 */
import { SCHED_POLICIES, type SchedPolicy } from './scheduler.ts';

export interface SdqConfig {
  /** PIO VPs (numbered 0 .. pioVps - 1; the SDQ serves the VPs after them). Default 8. */
  pioVps: number;
  /** DMA VPs (numbered pioVps .. pioVps + dmaVps - 1). Default 32. */
  dmaVps: number;
  /** on-chip SDQ buffer entries, shared by all DMA VPs (each holds one ring entry). Default 64. */
  depth: number;
  /** descriptor read requests the SDQ may have outstanding on PCIe. Default 8. */
  maxReads: number;
  /** most descriptors fetched by one read request (a read never crosses the ring's end). Default 4. */
  batch: number;
  /** bytes per ring entry in host memory (64 or 128; a 64-byte descriptor in a 128-byte entry leaves its second half unused). Default 128. */
  entryBytes: number;
  /** VP scheduler policy. Default round-robin. */
  policy: SchedPolicy;
}

export const SDQ_DEFAULTS: Readonly<SdqConfig> = { pioVps: 8, dmaVps: 32, depth: 64, maxReads: 8, batch: 4, entryBytes: 128, policy: 'round-robin' };

/** Defaults overridden by `p`; RangeError naming the first bad parameter. */
export function sdqConfig(p: Partial<SdqConfig> = {}): SdqConfig {
  for (const k of Object.keys(p)) if (!(k in SDQ_DEFAULTS)) throw new RangeError(`SDQ config: unknown parameter '${k}'`);
  const c: SdqConfig = { ...SDQ_DEFAULTS, ...p };
  const int = (k: keyof SdqConfig, lo: number, hi: number): void => {
    const v = c[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`SDQ config: ${k} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
  };
  int('pioVps', 0, 255);
  int('dmaVps', 1, 256);
  if (c.pioVps + c.dmaVps > 256) throw new RangeError(`SDQ config: pioVps + dmaVps must be at most 256, got ${c.pioVps + c.dmaVps}`);
  int('depth', 1, 65536);
  int('maxReads', 1, 1024);
  int('batch', 1, 64);
  if (c.entryBytes !== 64 && c.entryBytes !== 128) throw new RangeError(`SDQ config: entryBytes must be 64 or 128, got ${String(c.entryBytes)}`);
  if (!(SCHED_POLICIES as readonly string[]).includes(c.policy)) throw new RangeError(`SDQ config: policy must be one of ${SCHED_POLICIES.join(', ')}, got ${String(c.policy)}`);
  return c;
}
