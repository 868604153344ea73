/**
 * Transaction-layer packets and the NIC-side requests of the PCIe model (docs/nic-frontend.md,
 * "PCIe"). Objects are handed along channels by reference; the owner named on each field writes it.
 */

/** memory write (posted): NIC DMA writes upstream, CPU PIO writes downstream */
export const TLP_MWR = 0;
/** memory read request (non-posted), NIC to host */
export const TLP_MRD = 1;
/** completion with data, host to NIC */
export const TLP_CPLD = 2;
export const TLP_KIND_NAMES = ['MWr', 'MRd', 'CplD'] as const;

/** A NIC DMA read of `len` bytes at host address `addr`; the NIC block that issues it owns it. */
export class DmaRead {
  /** requester's tag, returned unchanged */
  tag = 0;
  addr = 0;
  len = 0;
  // ---- written by the read mux (rtl/nic/pcie/readMux.ts), when one stands before the endpoint ----
  /** the mux input the read came in on: the completions' way back (the tag's extension) */
  port = 0;
  // ---- written by the endpoint ----
  /** bytes received so far (the read is complete when received === len) */
  received = 0;
  /** the data, filled in as completions arrive (allocated by the endpoint when it takes the read) */
  data: Uint8Array | null = null;
  /** cycle the endpoint took the read */
  acceptCycle = -1;
  /** first cycle the requester can pop the chunk that completed it */
  doneCycle = -1;
  /** '' or why the endpoint refused the read (it then completes with no data) */
  error = '';
}

/** A NIC DMA write (posted) of `data` to host address `addr`. */
export class DmaWrite {
  tag = 0;
  addr = 0;
  data: Uint8Array = new Uint8Array(0);
  // ---- written by the endpoint ----
  /** cycle the endpoint took the write */
  acceptCycle = -1;
  /** cycle its last TLP entered the link (after that, a read the NIC issues is ordered behind it) */
  emittedCycle = -1;
  /** '' or why the endpoint refused the write (nothing is sent then) */
  error = '';
}

/** A CPU store of `data` to NIC address `addr` (PIO: descriptors into the HDQ, doorbells). */
export class PioWrite {
  tag = 0;
  addr = 0;
  /**
   * the virtual port whose register page the storing process has mapped (-1: the kernel, which
   * may write any page). The MMU makes this the only page a user process can reach; the model
   * carries it with the store so the NIC can refuse a store to another VP's page.
   */
  writer = -1;
  data: Uint8Array = new Uint8Array(0);
  // ---- written by the root complex ----
  /** TLPs it was split into (write combining) */
  tlps = 0;
}

/** One TLP on the link. */
export class Tlp {
  kind = TLP_MWR;
  /** host address (MWr/MRd upstream, CplD: address of its first byte) or NIC address (PIO MWr) */
  addr = 0;
  /** payload bytes (MRd: bytes requested, no payload on the wire) */
  len = 0;
  /** PCIe tag of a read and of its completions */
  tag = 0;
  /** payload (MWr, CplD) */
  data: Uint8Array | null = null;
  /** order of the sender's submissions (ordering rules compare it) */
  seq = 0;
  /** CplD: the request it answers and the offset of its first byte in it */
  req: DmaRead | null = null;
  offset = 0;
  /** PIO MWr: the store it belongs to, and whether it is the store's last TLP */
  pio: PioWrite | null = null;
  last = false;
  // ---- written by the link ----
  /** cycle its serialization started, and first cycle the receiver can pop it */
  sentCycle = -1;
  arriveCycle = -1;
}

/** A piece of read data handed to the NIC requester: `len` bytes at `offset` of `req` (req.data holds them). */
export class ReadChunk {
  constructor(
    readonly req: DmaRead,
    readonly offset: number,
    readonly len: number,
    /** true for the chunk that completed the read */
    readonly last: boolean,
  ) {}
}
