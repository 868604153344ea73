/**
 * The virtual-port register map (docs/nic-frontend.md, "Virtual ports"): VP v's registers sit in
 * its own page at barBase + v * pageBytes; PIO VPs are 0 .. pioVps - 1, DMA VPs follow.
 */

/** Register offsets within a VP's page; every register is 8 bytes, written whole. */
export const VR_KEY = 0x000;
export const VR_EQ_BASE = 0x008;
export const VR_EQ_SIZE = 0x010;
export const VR_MPQ_BASE = 0x018;
export const VR_MPQ_SIZE = 0x020;
export const VR_SDQ_BASE = 0x028;
export const VR_SDQ_SIZE = 0x030;
export const VR_DOORBELL = 0x038;
export const VR_HDQ_FREE = 0x040;
/** read pointers (entries software has read, free-running): a store hands the new value to the queue engine */
export const VR_EQ_RPTR = 0x048;
export const VR_MPQ_RPTR = 0x050;
/** write pointers (entries the NIC has written): the queue engine's, read-only */
export const VR_EQ_WPTR = 0x058;
export const VR_MPQ_WPTR = 0x060;
/**
 * EQ_BASE / MPQ_BASE bit 0: the queue is at a virtual address of the VP (then bits 48-63 hold the
 * memory-checker item covering it, checked with the VP's KEY; docs/nic-rdma.md "Virtual-address mode")
 */
export const VR_BASE_VIRTUAL = 1;
/** the last register of a VP page */
export const VR_LAST = VR_MPQ_WPTR;
/** PIO VPs: descriptors are written into this window (up to the end of the page) */
export const VR_HDQ_WINDOW = 0x800;
/** register index = offset / 8 */
export const VR_NAMES = ['key', 'eq_base', 'eq_size', 'mpq_base', 'mpq_size', 'sdq_base', 'sdq_size', 'doorbell', 'hdq_free', 'eq_rptr', 'mpq_rptr', 'eq_wptr', 'mpq_wptr'] as const;
/** registers the file stores: key .. mpq_rptr (the doorbell and hdq_free slots read 0) */
export const VR_STORED = 11;

/**
 * The NIC control page, right after the last VP's page (barBase + (pioVps + dmaVps) x pageBytes):
 * the NIC-wide INTQ and EPQ registrations, kernel only. Same value rules as the VP queue registers.
 */
export const NC_INTQ_BASE = 0x00;
export const NC_INTQ_SIZE = 0x08;
export const NC_INTQ_RPTR = 0x10;
export const NC_EPQ_BASE = 0x18;
export const NC_EPQ_SIZE = 0x20;
export const NC_EPQ_RPTR = 0x28;
export const NC_NAMES = ['intq_base', 'intq_size', 'intq_rptr', 'epq_base', 'epq_size', 'epq_rptr'] as const;

/** Error kinds the register file reports (an INTQ entry on the offending VP). */
export const VE_BAD_ADDRESS = 0; // not inside any VP's page or the control page
export const VE_FOREIGN_VP = 1; // a process wrote another VP's page
export const VE_PRIVILEGED = 2; // a process wrote the key or the control page (kernel only)
export const VE_BAD_ACCESS = 3; // register store not 8 bytes at an 8-byte-aligned offset
export const VE_BAD_REGISTER = 4; // no register at that offset
export const VE_READ_ONLY = 5; // HDQ_FREE, EQ_WPTR, MPQ_WPTR
export const VE_NOT_THIS_KIND = 6; // SDQ registers / doorbell on a PIO VP, HDQ window on a DMA VP
export const VE_BAD_VALUE = 7; // base not 64-byte aligned or >= 2^48, size not a power of two in [1, 65536] (EQ / MPQ / INTQ / EPQ: or 0), value above 2^48
export const VE_BAD_DOORBELL = 8; // count 0, above the SDQ size, or SDQ not configured
export const VE_NAMES = ['bad_address', 'foreign_vp', 'privileged', 'bad_access', 'bad_register', 'read_only', 'not_this_kind', 'bad_value', 'bad_doorbell'] as const;

export interface VpConfig {
  /** VPs taking descriptors by PIO into the HDQ (default 8) */
  pioVps: number;
  /** VPs whose descriptors are fetched by DMA into the SDQ (default 32) */
  dmaVps: number;
  /** register page size, bytes (power of two >= 4096, default 4096) */
  pageBytes: number;
  /** NIC address of VP 0's page (a multiple of pageBytes, default 0) */
  barBase: number;
}

export const VP_DEFAULTS: Readonly<VpConfig> = { pioVps: 8, dmaVps: 32, pageBytes: 4096, barBase: 0 };

export function vpConfig(p: Partial<VpConfig> = {}): VpConfig {
  const c = { ...VP_DEFAULTS, ...p };
  for (const k of Object.keys(p)) if (!(k in VP_DEFAULTS)) throw new RangeError(`VP config: unknown parameter '${k}'`);
  const int = (k: keyof VpConfig, lo: number, hi: number): void => {
    const v = c[k];
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`VP config: ${k} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
  };
  int('pioVps', 0, 256);
  int('dmaVps', 0, 256);
  if (c.pioVps + c.dmaVps < 1 || c.pioVps + c.dmaVps > 256) throw new RangeError(`VP config: pioVps + dmaVps must be in [1, 256], got ${c.pioVps + c.dmaVps}`);
  int('pageBytes', 4096, 1 << 20);
  if ((c.pageBytes & (c.pageBytes - 1)) !== 0) throw new RangeError(`VP config: pageBytes must be a power of two, got ${c.pageBytes}`);
  int('barBase', 0, 2 ** 48);
  if (c.barBase % c.pageBytes !== 0) throw new RangeError(`VP config: barBase must be a multiple of pageBytes, got ${c.barBase}`);
  return c;
}
