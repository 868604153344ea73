/**
 * Host-memory queues of the TH Express-2 NIC (seed 003, section 2.7; docs/nic-rdma.md "Host-memory
 * queues"): kinds, entry sizes, interrupt types, the entry and software-write descriptors, and the
 * configuration.
 */

/** Queue kinds. EQ and MPQ exist once per VP; INTQ and EPQ once per NIC. */
export const Q_EQ = 0;
export const Q_MPQ = 1;
export const Q_INTQ = 2;
export const Q_EPQ = 3;
export const Q_KIND_NAMES = ['eq', 'mpq', 'intq', 'epq'] as const;
export type QueueKindName = (typeof Q_KIND_NAMES)[number];

/** Entry sizes in bytes (every entry of a queue has its kind's size). */
export const Q_ENTRY_BYTES: readonly number[] = [32, 128, 16, 128];

/** INTQ entry types (byte 0 of an INTQ entry). */
/** an operation of the VP failed (RDMA engine: key, range, translation; descriptor decode) */
export const INT_ERROR = 1;
/** a descriptor asked for an interrupt on completion (its `interrupt` flag) */
export const INT_DESC = 2;
/** an entry for the VP's EQ, MPQ or the EPQ found the queue full and was dropped */
export const INT_QUEUE_FULL = 3;
/** an entry for the VP's EQ or MPQ found the queue not registered and was dropped */
export const INT_QUEUE_UNREGISTERED = 4;
/** a software write to the queue port was refused (consumer index beyond the producer, bad registration) */
export const INT_SW_ERROR = 5;
/**
 * an entry for a virtual-mode EQ or MPQ was refused by the memory checker or found no translation:
 * dropped (the producer index does not move); code = kind, detail = the checker's reason (1-7) or
 * 17 (no translation), address = the entry's virtual address
 */
export const INT_QUEUE_FAULT = 6;
export const INT_TYPE_NAMES = ['', 'error', 'descriptor', 'queue_full', 'queue_unregistered', 'sw_error', 'queue_fault'] as const;

/**
 * An entry the NIC puts into a queue: `data` holds exactly Q_ENTRY_BYTES[kind] bytes. `vp` selects
 * the EQ or MPQ (ignored for INTQ and EPQ, which are single queues; their entries carry the VP in
 * their bytes).
 */
export interface QueueEntry {
  kind: number;
  vp: number;
  data: Uint8Array;
}

/** Software writes to the queue engine's registers. */
export const QS_REGISTER = 0;
export const QS_CONSUME = 1;
/** the read pointer register (EQ_RPTR, MPQ_RPTR, INTQ_RPTR, EPQ_RPTR): `count` is the new consumer index */
export const QS_RPTR = 2;
/**
 * A software write: `register` (re)sets a queue to `base` (host address, aligned to the entry size)
 * and `size` entries (a power of two in [1, 65536]; 0 unregisters it), producer and consumer
 * indices 0; `consume` advances the consumer index by `count` entries (software has read them);
 * `rptr` sets the consumer index to `count` (software's read-pointer register store: between the
 * current consumer index and the producer index, both free-running).
 */
export interface QueueSwWrite {
  op: number;
  kind: number;
  vp: number;
  base: number;
  size: number;
  count: number;
  /**
   * register (EQ / MPQ only): `base` is a virtual address of the VP; every entry is checked by the
   * memory checker as a write by the VP to item `item` with key `key` and translated by the ATC
   * with the VP's translations (docs/nic-rdma.md, "Virtual-address mode"). Default false.
   */
  virtual?: boolean;
  item?: number;
  key?: number;
}

/** INTQ entry layout (16 bytes, little-endian). */
export interface IntqFields {
  /** INT_* type */
  type: number;
  /** for queue_full / queue_unregistered / sw_error: the queue kind; for error: the error code */
  code: number;
  /** the VP the interrupt is about */
  vp: number;
  /** 32-bit detail (error: reason detail; descriptor: user tag) */
  info: number;
  /** 48-bit source address (0 when none) */
  addr: number;
}

export function encodeIntq(f: IntqFields): Uint8Array {
  const b = new Uint8Array(Q_ENTRY_BYTES[Q_INTQ]!);
  const v = new DataView(b.buffer);
  b[0] = f.type;
  b[1] = f.code;
  v.setUint16(2, f.vp, true);
  v.setUint32(4, f.info >>> 0, true);
  v.setUint32(8, f.addr % 2 ** 32, true);
  v.setUint16(12, Math.floor(f.addr / 2 ** 32), true);
  return b;
}

export interface QueueConfig {
  /** virtual ports (EQ and MPQ each), default 40 */
  vps: number;
  /** the EPQ takes error packets (when false they are discarded and counted), default false */
  epqEnabled: boolean;
  /** capacity of the entry input channel, default 4 */
  inCapacity: number;
  /** host address bits, default 48 */
  addrBits: number;
}

export const QUEUE_DEFAULTS: Readonly<QueueConfig> = { vps: 40, epqEnabled: false, inCapacity: 4, addrBits: 48 };

export function queueConfig(p: Partial<QueueConfig> = {}): QueueConfig {
  for (const k of Object.keys(p)) if (!(k in QUEUE_DEFAULTS)) throw new RangeError(`queue config: unknown parameter ${k}`);
  const c: QueueConfig = { ...QUEUE_DEFAULTS, ...p };
  const int = (n: string, v: number, lo: number, hi: number): void => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`queue config: ${n} must be an integer in [${lo}, ${hi}], got ${v}`);
  };
  int('vps', c.vps, 1, 256);
  int('inCapacity', c.inCapacity, 2, 1024);
  int('addrBits', c.addrBits, 13, 52);
  if (typeof c.epqEnabled !== 'boolean') throw new RangeError(`queue config: epqEnabled must be a boolean`);
  return c;
}

/** Maximum queue size in entries. */
export const Q_MAX_SIZE = 65536;
