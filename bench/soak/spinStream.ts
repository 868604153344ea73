/**
 * An endless, seeded message stream for the sPIN runtime (rtl/hpu/spin) and its checker, for the
 * `spin-runtime` soak entry. The stream is the link's `PacketSource`: it makes each message when
 * the link asks for a packet and none is open, and each message's result is checked against the
 * golden handler model (models/spin/golden.ts) when its completion event arrives, then dropped.
 *
 * Match entries: `perHandler` entries for each of the five handlers (pingpong, accumulate,
 * histogram, unpack, probe), each with its own host window, so a message has its window to itself
 * (at most one message in flight per entry; the link waits when every entry is busy). Up to three
 * messages are open on the link at once, their packets interleaved at random. About one probe
 * message in 16 is bad: its first payload handler returns non-zero or stores outside its sandbox,
 * which must fail that message alone (unless flow control dropped that packet: then the message
 * is judged as a good one).
 *
 * Checked per message as it completes: exactly one completion event; the handlers that ran (one
 * header handler and one completion handler where the ELF has them, none for a failed message; a
 * header handler after its packet arrived and before every payload handler; a completion handler
 * after every payload handler, the event after every handler; no payload handler twice); flow
 * control (each packet ran its payload handler or was dropped, the dropped bytes and the flag);
 * every handler ok; the host window (accumulate, histogram, unpack) equal to the golden model's
 * shadow copy, the puts (pingpong) equal to the golden puts, the completion value (probe) the
 * golden one. Also: an HPU runs one handler at a time. Kept: the shadow host windows, the
 * messages in flight (at most one per entry) and counters.
 */
import { Rng } from '../../rtl/kernel/rng.ts';
import type { PacketSource } from '../../rtl/hpu/spin/link.ts';
import { DONE_OK, HANDLER_COMPLETION, HANDLER_HEADER, HANDLER_PAYLOAD, type CompletionEvent, type HandlerRecord, type MatchEntry, type PutRecord, type SpinPacket } from '../../rtl/hpu/spin/types.ts';
import { goldenAccumulate, goldenHistogram, goldenPingpong, goldenProbeValue, goldenUnpack, type GoldenMessage } from '../../models/spin/golden.ts';
import { matchEntry } from '../../experiments/hpu/spinTraffic.ts';

export const STREAM_HANDLERS = ['pingpong', 'accumulate', 'histogram', 'unpack', 'probe'] as const;
type Handler = (typeof STREAM_HANDLERS)[number];

/** handlers each ELF defines (bit HANDLER_*) */
const HAS: Record<Handler, number> = {
  pingpong: 1 << HANDLER_PAYLOAD,
  accumulate: 1 << HANDLER_PAYLOAD,
  histogram: (1 << HANDLER_PAYLOAD) | (1 << HANDLER_COMPLETION),
  unpack: 1 << HANDLER_PAYLOAD,
  probe: (1 << HANDLER_HEADER) | (1 << HANDLER_PAYLOAD) | (1 << HANDLER_COMPLETION),
};

export const WINDOW = 16 << 10;
const MAX_PACKETS = 6;
const MTUS = [64, 128, 256] as const;
const OPEN = 3;

interface Entry {
  handler: Handler;
  tag: number;
  hostBase: number;
  hpuMemInit: Uint8Array;
  blocklen: number;
  stride: number;
  busy: boolean;
}

interface InFlight {
  entry: Entry;
  id: number;
  source: number;
  data: Uint8Array;
  mtu: number;
  packets: number;
  /** packets put on the link so far */
  sent: number;
  bad: boolean;
  firstSend: number;
  ran: Set<number>;
  headers: number;
  headerEnd: number;
  completions: number;
  completionStart: number;
  payloadStartMin: number;
  payloadEndMax: number;
  lastEnd: number;
  notOk: number;
  puts: PutRecord[];
}

const u32s = (...w: number[]): Uint8Array => new Uint8Array(Uint32Array.from(w).buffer);

/** A random double in +-2^±60, never NaN or infinite (products stay finite). */
function randomDouble(rng: Rng): number {
  const m = 1 + rng.u32() / 2 ** 32 + rng.u32() / 2 ** 64;
  return (rng.int(2) ? -1 : 1) * m * 2 ** (rng.int(121) - 60);
}

export class SpinStream implements PacketSource {
  readonly entries: MatchEntry[] = [];
  /** the golden model's copy of every entry's host window */
  readonly shadow: Uint8Array;
  private readonly ents: Entry[] = [];
  private readonly inFlight = new Map<number, InFlight>();
  private readonly open: InFlight[] = [];
  private readonly hpuLastEnd: Float64Array;
  private readonly rng: Rng;
  private nextId = 1;
  private nextSend = 0;
  /** the link asked for a packet and got none (every entry busy): poke it when one frees */
  private starved = false;
  /** the unit's host memory (set before the run) */
  host: Uint8Array = new Uint8Array(0);
  /** called when the stream had no packet and now has one (SpinLink.poke) */
  poke: () => void = () => {};
  readonly problems: string[] = [];
  messages = 0;
  failedAsExpected = 0;
  droppedPackets = 0;
  handlers = 0;
  puts = 0;
  readonly byHandler = new Map<Handler, number>();

  constructor(seed: number, hpus: number, readonly perHandler = 4, private readonly maxGap = 2000) {
    this.rng = new Rng(seed);
    this.hpuLastEnd = new Float64Array(hpus).fill(-1);
    const rng = this.rng;
    let tag = 1;
    for (const handler of STREAM_HANDLERS)
      for (let k = 0; k < perHandler; k++) {
        const hostBase = this.ents.length * WINDOW;
        let hpuMemInit: Uint8Array = new Uint8Array(0);
        let blocklen = 0;
        let stride = 0;
        if (handler === 'pingpong') hpuMemInit = Uint8Array.from({ length: rng.int(MAX_PACKETS * 256 + 1) }, () => rng.int(256));
        if (handler === 'probe') hpuMemInit = u32s(rng.int(100), rng.int(100));
        if (handler === 'unpack') {
          blocklen = 8 + rng.int(41);
          stride = blocklen + rng.int(32);
          hpuMemInit = u32s(blocklen, stride);
        }
        const e: Entry = { handler, tag: tag++, hostBase, hpuMemInit, blocklen, stride, busy: false };
        this.ents.push(e);
        this.entries.push(matchEntry(e.tag, handler, { hostBase, hostLen: WINDOW, hpuMemInit }));
      }
    this.shadow = new Uint8Array(this.ents.length * WINDOW);
  }

  /** Host bytes the entries' windows need. */
  get hostBytes(): number {
    return this.shadow.length;
  }

  private fail(m: string): void {
    if (this.problems.length < 10) this.problems.push(m);
  }

  /** A new message on a free entry (null: every entry busy). */
  private startMessage(t: number): InFlight | null {
    const rng = this.rng;
    const free = this.ents.filter((e) => !e.busy);
    if (free.length === 0) return null;
    const entry = free[rng.int(free.length)]!;
    entry.busy = true;
    const mtu = MTUS[rng.int(MTUS.length)]!;
    const packets = 1 + rng.int(MAX_PACKETS);
    const len = (packets - 1) * mtu + 16 * (1 + rng.int(mtu / 16));
    const data = new Uint8Array(len);
    const dv = new DataView(data.buffer);
    let bad = false;
    const win = entry.hostBase;
    if (entry.handler === 'probe') {
      for (let off = 0; off + 8 <= len; off += mtu) dv.setUint32(off + 4, rng.int(200), true);
      if (rng.int(16) === 0) {
        bad = true;
        // op 3: return a non-zero value; op 2: store outside the sandbox (a trap)
        if (rng.int(2)) dv.setUint32(0, 3, true), dv.setUint32(4, 1 + rng.int(100), true);
        else dv.setUint32(0, 2, true), dv.setUint32(4, 0x10, true);
      }
    } else if (entry.handler === 'accumulate') {
      // fresh operands in the window (the host writes it while no message uses it): products stay finite
      const hv = new DataView(this.host.buffer, this.host.byteOffset + win, len);
      for (let off = 0; off < len; off += 8) dv.setFloat64(off, randomDouble(rng), true);
      for (let off = 0; off < len; off += 8) hv.setFloat64(off, randomDouble(rng), true);
      this.shadow.set(this.host.subarray(win, win + len), win);
    } else for (let k = 0; k < len; k++) data[k] = rng.int(256);
    this.nextSend = Math.max(this.nextSend, t) + rng.int(this.maxGap);
    const m: InFlight = {
      entry,
      id: this.nextId,
      source: rng.int(64),
      data,
      mtu,
      packets,
      sent: 0,
      bad,
      firstSend: this.nextSend,
      ran: new Set(),
      headers: 0,
      headerEnd: -1,
      completions: 0,
      completionStart: -1,
      payloadStartMin: Infinity,
      payloadEndMax: -1,
      lastEnd: -1,
      notOk: 0,
      puts: [],
    };
    this.nextId = this.nextId >= 0x7fff_ffff ? 1 : this.nextId + 1;
    this.inFlight.set(m.id, m);
    return m;
  }

  next(t: number): SpinPacket | null {
    while (this.open.length < OPEN) {
      const m = this.startMessage(t);
      if (m === null) break;
      this.open.push(m);
    }
    if (this.open.length === 0) {
      this.starved = true;
      return null;
    }
    const k = this.rng.int(this.open.length);
    const m = this.open[k]!;
    const i = m.sent++;
    if (m.sent === m.packets) this.open.splice(k, 1);
    const offset = i * m.mtu;
    const payload = m.data.subarray(offset, Math.min(m.data.length, offset + m.mtu));
    return { msgId: m.id, tag: m.entry.tag, source: m.source, index: i, count: m.packets, offset, msgLen: m.data.length, payload, sendCycle: m.firstSend, arrival: -1 };
  }

  onRecord = (r: HandlerRecord): void => {
    this.handlers++;
    if (r.start <= this.hpuLastEnd[r.hpu]!) this.fail(`HPU ${r.hpu} runs two handlers at once (one ended at ${this.hpuLastEnd[r.hpu]}, the next started at ${r.start})`);
    this.hpuLastEnd[r.hpu] = r.end;
    const m = this.inFlight.get(r.msgId);
    if (m === undefined) return this.fail(`a handler ran for message ${r.msgId}, which is not in flight`);
    if (r.status !== DONE_OK) m.notOk++;
    m.lastEnd = Math.max(m.lastEnd, r.end);
    if (r.kind === HANDLER_HEADER) {
      m.headers++;
      m.headerEnd = r.end;
      if (r.start <= r.packetArrival) this.fail(`message ${m.id}: header handler started at ${r.start}, before its packet arrived (${r.packetArrival})`);
    } else if (r.kind === HANDLER_PAYLOAD) {
      if (m.ran.has(r.packetIndex)) this.fail(`message ${m.id}: the payload handler of packet ${r.packetIndex} ran twice`);
      m.ran.add(r.packetIndex);
      m.payloadStartMin = Math.min(m.payloadStartMin, r.start);
      m.payloadEndMax = Math.max(m.payloadEndMax, r.end);
      if (r.start <= r.packetArrival) this.fail(`message ${m.id}: payload handler of packet ${r.packetIndex} started at ${r.start}, before the packet arrived (${r.packetArrival})`);
    } else {
      m.completions++;
      m.completionStart = r.start;
    }
  };

  onPut = (p: PutRecord): void => {
    this.puts++;
    const m = this.inFlight.get(p.msgId);
    if (m === undefined) return this.fail(`a put for message ${p.msgId}, which is not in flight`);
    m.puts.push(p);
  };

  onEvent = (e: CompletionEvent): void => {
    const m = this.inFlight.get(e.msgId);
    if (m === undefined) return this.fail(`a completion event for message ${e.msgId}, which is not in flight (a second event?)`);
    this.inFlight.delete(e.msgId);
    m.entry.busy = false;
    this.judge(m, e);
    this.messages++;
    this.byHandler.set(m.entry.handler, (this.byHandler.get(m.entry.handler) ?? 0) + 1);
    if (this.starved) {
      this.starved = false;
      this.poke();
    }
  };

  private judge(m: InFlight, e: CompletionEvent): void {
    const h = m.entry.handler;
    const tag = `message ${m.id} (${h}, ${m.packets} packets of ${m.mtu} B)`;
    if (m.sent !== m.packets) return this.fail(`${tag}: completion event after ${m.sent} of its packets were sent`);
    if (e.cycle < m.lastEnd) this.fail(`${tag}: completion event at ${e.cycle}, before a handler ended (${m.lastEnd})`);
    if (m.bad && m.ran.has(0)) {
      if (e.ok) this.fail(`${tag}: its first payload handler failed on purpose, but the message completed ok`);
      else this.failedAsExpected++;
      if (m.completions !== 0) this.fail(`${tag}: failed, yet its completion handler ran`);
      return;
    }
    if (!e.ok) return this.fail(`${tag}: failed: ${e.reason}`);
    if (m.notOk > 0) this.fail(`${tag}: ${m.notOk} handlers did not finish ok`);
    const has = HAS[h];
    if (m.headers !== ((has >> HANDLER_HEADER) & 1)) this.fail(`${tag}: ${m.headers} header handlers`);
    if (m.completions !== ((has >> HANDLER_COMPLETION) & 1)) this.fail(`${tag}: ${m.completions} completion handlers`);
    if (m.headers > 0 && m.payloadStartMin <= m.headerEnd) this.fail(`${tag}: a payload handler started at ${m.payloadStartMin}, the header handler ran until ${m.headerEnd}`);
    if (m.completions > 0 && m.completionStart <= m.payloadEndMax) this.fail(`${tag}: completion handler started at ${m.completionStart}, a payload handler ran until ${m.payloadEndMax}`);
    let dropped = 0;
    for (let k = 0; k < m.packets; k++) if (!m.ran.has(k)) dropped += Math.min(m.data.length, (k + 1) * m.mtu) - k * m.mtu;
    this.droppedPackets += m.packets - m.ran.size;
    if (e.droppedBytes !== dropped) this.fail(`${tag}: ${e.droppedBytes} dropped bytes reported, ${dropped} bytes of packets did not run`);
    if (e.flowControl !== m.ran.size < m.packets) this.fail(`${tag}: flow-control flag ${e.flowControl} with ${m.packets - m.ran.size} dropped packets`);
    const g: GoldenMessage = { data: m.data, mtu: m.mtu, source: m.source, ran: m.ran };
    const base = m.entry.hostBase;
    if (h === 'probe') {
      if (e.value !== goldenProbeValue(e.droppedBytes, e.flowControl)) this.fail(`${tag}: completion value ${e.value}, expected ${goldenProbeValue(e.droppedBytes, e.flowControl)}`);
    } else if (h === 'pingpong') {
      const key = (x: { dest: number; data: Uint8Array }): string => `${x.dest}:${Buffer.from(x.data).toString('hex')}`;
      const got = m.puts.map(key).sort().join();
      const want = goldenPingpong(g, m.entry.hpuMemInit).map(key).sort().join();
      if (got !== want) this.fail(`${tag}: ${m.puts.length} puts differ from the golden model's`);
    } else {
      if (h === 'accumulate') goldenAccumulate(this.shadow, base, g);
      else if (h === 'histogram') goldenHistogram(this.shadow, base, g);
      else goldenUnpack(this.shadow, base, m.entry.blocklen, m.entry.stride, g);
      for (let i = base; i < base + WINDOW; i++)
        if (this.shadow[i] !== this.host[i]) {
          this.fail(`${tag}: host memory differs from the golden model first at 0x${i.toString(16)}: 0x${this.host[i]!.toString(16)}, expected 0x${this.shadow[i]!.toString(16)}`);
          this.host.set(this.shadow.subarray(base, base + WINDOW), base); // report it once
          break;
        }
    }
  }

  /** Messages in flight, and the cycle the oldest was sent (Infinity: none). */
  oldest(): { count: number; firstSend: number } {
    let first = Infinity;
    for (const m of this.inFlight.values()) first = Math.min(first, m.firstSend);
    return { count: this.inFlight.size, firstSend: first };
  }
}
