/** Data moved between the sPIN runtime's blocks: packets, match entries, handler tasks, reports. */
/** A loaded handler ELF (the shape models/hpu/elf.ts's parseElf returns). */
export interface HandlerImage {
  entry: number;
  segments: { vaddr: number; data: Uint8Array; memsz: number; flags: number }[];
  symbols: Map<string, number>;
}
/** ELF segment flag: writable */
export const SEG_WRITABLE = 2;

/** One packet as it arrives from the link (a message's packets carry its length and their number). */
export interface SpinPacket {
  msgId: number;
  /** match tag (compared with the match entries' tags on a message's first packet) */
  tag: number;
  source: number;
  /** packet number in the message, from 0 (0 = the header packet) */
  index: number;
  /** packets in the message */
  count: number;
  /** byte offset of this payload in the message, and the message length */
  offset: number;
  msgLen: number;
  payload: Uint8Array;
  /** earliest cycle the sender puts it on the wire */
  sendCycle: number;
  /** cycle its last bit arrived (set by the link) */
  arrival: number;
}

export const HANDLER_HEADER = 0;
export const HANDLER_PAYLOAD = 1;
export const HANDLER_COMPLETION = 2;
export const HANDLER_NAMES = ['header', 'payload', 'completion'] as const;

/** A match entry: the messages whose first packet carries `tag` run these handlers. */
export interface MatchEntry {
  tag: number;
  /** the handler ELF (code in the L2 handler-code region at its link address) */
  elf: HandlerImage;
  name: string;
  /** host window the handlers may DMA to and from */
  hostBase: number;
  hostLen: number;
  /** initial contents of each message's HPU memory (the rest is zero) */
  hpuMemInit: Uint8Array;
}

/** A handler invocation, from the message engine through the scheduler to an HPU. */
export interface SpinTask {
  slot: number; // message table entry
  msgId: number;
  entry: number; // match entry index
  kind: number; // HANDLER_*
  packet: SpinPacket | null; // header/payload handlers
  msgLen: number; // from the message's first packet
  msgPackets: number;
  source: number;
  droppedBytes: number; // completion handler
  flowControl: number;
  cluster: number; // set by the scheduler
  l1Slot: number;
  readyAt: number; // cycle the packet is in L1
}

export const DONE_OK = 0;
export const DONE_FAILED = 1; // handler returned non-zero (header/payload)
export const DONE_TRAP = 2;
export const DONE_BUDGET = 3;

/** HPU -> scheduler -> message engine: a handler finished; or scheduler -> engine: a payload was dropped. */
export interface SpinReport {
  task: SpinTask;
  dropped: boolean;
  status: number; // DONE_*
  value: number; // the handler's return value
  reason: string;
}

/** One handler run (for the ordering checks, the tables and the CLI). */
export interface HandlerRecord {
  msgId: number;
  kind: number;
  hpu: number;
  cluster: number;
  start: number;
  end: number;
  status: number;
  instructions: number;
  packetArrival: number;
  /** packet number (-1 for a completion handler) */
  packetIndex: number;
}

/** The completion event the host receives for a message. */
export interface CompletionEvent {
  msgId: number;
  cycle: number;
  ok: boolean;
  reason: string;
  /** the completion handler's return value (0 without one) */
  value: number;
  droppedBytes: number;
  flowControl: boolean;
  packets: number;
}

/** A put sent by a handler. */
export interface PutRecord {
  msgId: number;
  dest: number;
  data: Uint8Array;
  /** cycle its last bit left */
  cycle: number;
}
