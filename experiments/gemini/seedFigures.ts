/**
 * Seed 004's figures (Vishnu, ten Bruggencate, Olson; /work/shared/REFERENCE.md): each row of
 * `netoffload gemini table`, what the model runs for it, and whether the fit uses it (latencies
 * only). The seed gives the AMO latencies for its "Inter-NIC, Inter-ASIC" configuration, read
 * here as inter-ASIC (the NICs of two different ASICs). Latency rows are 8-byte calls (an AMO's
 * word already in the atomic cache, as in the seed's repeated-call benchmark); bandwidth rows the peak over large sizes with one call in
 * flight; strided rows 128-byte stride, the best over element sizes.
 */
import { AMO_ADD, AMO_FADD } from '../../rtl/gemini/amo/ops.ts';
import type { CallSpec } from './calls.ts';

export interface SeedRow {
  key: string;
  label: string;
  unit: 'us' | 'MB/s';
  seed: number;
  /** the fit uses this row */
  fit: boolean;
  spec: CallSpec;
  /** bandwidth rows: sizes (or element sizes, strided) over which the peak is taken */
  sizes?: number[];
}

export const BANDWIDTH_SIZES = [4096, 65536, 262144];
export const STRIDED_ELEMENTS = [8, 16, 32, 64];
export const STRIDED_COUNT = 256;

export const SEED_ROWS: SeedRow[] = [
  { key: 'put_lat_inter_nic', label: 'put latency, inter-NIC', unit: 'us', seed: 0.9, fit: true, spec: { kind: 'put', placement: 'inter-nic', bytes: 8 } },
  { key: 'put_lat_intra_nic', label: 'put latency, intra-NIC', unit: 'us', seed: 0.72, fit: true, spec: { kind: 'put', placement: 'intra-nic', bytes: 8 } },
  { key: 'get_lat_inter_nic', label: 'get latency, inter-NIC', unit: 'us', seed: 1.0, fit: true, spec: { kind: 'get', placement: 'inter-nic', bytes: 8 } },
  { key: 'get_lat_intra_nic', label: 'get latency, intra-NIC', unit: 'us', seed: 1.0, fit: true, spec: { kind: 'get', placement: 'intra-nic', bytes: 8 } },
  { key: 'get_lat_inter_asic', label: 'get latency, inter-ASIC', unit: 'us', seed: 1.24, fit: true, spec: { kind: 'get', placement: 'inter-asic', bytes: 8 } },
  { key: 'amo_lat_nonfetch_inter_asic', label: 'AMO ADD (non-fetching), inter-ASIC', unit: 'us', seed: 1.24, fit: true, spec: { kind: 'amo', placement: 'inter-asic', bytes: 8, amoOp: AMO_ADD } },
  { key: 'amo_lat_fetch_inter_asic', label: 'AMO FADD (fetching), inter-ASIC', unit: 'us', seed: 1.25, fit: true, spec: { kind: 'amo', placement: 'inter-asic', bytes: 8, amoOp: AMO_FADD } },
  { key: 'put_bw_inter_nic', label: 'put bandwidth, inter-NIC (peak)', unit: 'MB/s', seed: 6681, fit: false, spec: { kind: 'put', placement: 'inter-nic', bytes: 0 }, sizes: BANDWIDTH_SIZES },
  { key: 'put_bw_intra_nic', label: 'put bandwidth, intra-NIC (peak)', unit: 'MB/s', seed: 4758, fit: false, spec: { kind: 'put', placement: 'intra-nic', bytes: 0 }, sizes: BANDWIDTH_SIZES },
  { key: 'get_bw_inter_nic', label: 'get bandwidth, inter-NIC (peak)', unit: 'MB/s', seed: 6893, fit: false, spec: { kind: 'get', placement: 'inter-nic', bytes: 0 }, sizes: BANDWIDTH_SIZES },
  { key: 'get_bw_intra_nic', label: 'get bandwidth, intra-NIC (peak)', unit: 'MB/s', seed: 5215, fit: false, spec: { kind: 'get', placement: 'intra-nic', bytes: 0 }, sizes: BANDWIDTH_SIZES },
  { key: 'get_bw_strided', label: 'strided get, 128 B stride, inter-ASIC (best)', unit: 'MB/s', seed: 312, fit: false, spec: { kind: 'get', placement: 'inter-asic', bytes: 0, stride: 128 }, sizes: STRIDED_ELEMENTS },
  { key: 'put_bw_strided', label: 'strided put, 128 B stride, inter-ASIC (best)', unit: 'MB/s', seed: 420, fit: false, spec: { kind: 'put', placement: 'inter-asic', bytes: 0, stride: 128 }, sizes: STRIDED_ELEMENTS },
];

/** The PIO/DMA switch: put bandwidth just below and at the threshold (seed: a slight drop at 2 KB). */
export const SWITCH_SIZES = [1024, 2047, 2048, 4096];
