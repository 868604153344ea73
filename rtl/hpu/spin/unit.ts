/**
 * The sPIN unit: link, inbound engine, message engine, cluster scheduler, the HPUs, the host DMA
 * engine and the put engine, wired with registered channels on one simulator, over one flat
 * memory the HPUs share (handler code, the clusters' L1 scratchpads, the L2 handler memory) and a
 * host memory behind the DMA engine. Packets come from a list or, for an endless run, from a
 * `PacketSource` asked for one packet at a time. By default the unit keeps every handler record,
 * put and completion event (`records`, `puts`, `engine.events`: tests, tables, the CLI); with
 * `keep: false` it keeps none of them and hands each to the opt-in callbacks as it happens
 * (`onRecord`, `onPut`, `onEvent`), so a long run's memory does not grow. Validates the
 * configuration and the match entries (their ELFs must lie in the handler-code region without overlapping, define at least one handler, and
 * their host windows must lie in host memory) and throws InputError naming the problem.
 */
import { Channel, Simulator } from '../../kernel/index.ts';
import { InputError } from '../../kernel/errors.ts';
import { HpuMemory } from '../core/memory.ts';
import { SpinHpu, SYS_DMA_FROM_HOST, SYS_DMA_TO_HOST } from './hpu.ts';
import { InboundEngine } from './inbound.ts';
import { type PacketSource, SpinLink } from './link.ts';
import { LogGpEngine, type TransferRequest } from './loggpEngine.ts';
import { MessageEngine } from './messageEngine.ts';
import { CODE_BASE, CODE_LIMIT, SPIN_DEFAULTS, spinMemBytes, spinParamsProblem, type SpinParams } from './params.ts';
import { SpinScheduler } from './scheduler.ts';
import { type CompletionEvent, SEG_WRITABLE, type HandlerRecord, type MatchEntry, type PutRecord, type SpinPacket, type SpinReport, type SpinTask } from './types.ts';

const h = (v: number): string => '0x' + (v >>> 0).toString(16);

export const HANDLER_SYMBOLS = ['header_handler', 'payload_handler', 'completion_handler'] as const;

export interface SpinUnitOptions {
  skipping?: boolean;
  /** keep every handler record, put and completion event in `records`, `puts`, `engine.events` (default true) */
  keep?: boolean;
  onRecord?: (r: HandlerRecord) => void;
  onPut?: (p: PutRecord) => void;
  onEvent?: (e: CompletionEvent) => void;
}

export class SpinUnit {
  readonly params: SpinParams;
  readonly sim: Simulator;
  readonly memory: HpuMemory;
  readonly host: Uint8Array;
  readonly link: SpinLink;
  readonly inbound: InboundEngine;
  readonly engine: MessageEngine;
  readonly scheduler: SpinScheduler;
  readonly hpus: SpinHpu[] = [];
  readonly dma: LogGpEngine;
  readonly put: LogGpEngine;
  readonly records: HandlerRecord[] = [];
  readonly puts: PutRecord[] = [];
  private readonly packetCount: number;

  /** `skipping: false` evaluates every component every cycle (the kernel's check that no wake-up is lost). */
  constructor(params: Partial<SpinParams>, readonly entries: readonly MatchEntry[], packets: readonly SpinPacket[] | PacketSource, opts: SpinUnitOptions = {}) {
    const p = (this.params = { ...SPIN_DEFAULTS, ...params });
    const problem = spinParamsProblem(p);
    if (problem !== null) throw new InputError(`sPIN parameters: ${problem}`);
    if (entries.length === 0) throw new InputError('no match entry');
    // handler images: in the code region, not overlapping
    const images: { lo: number; hi: number }[] = [];
    const masks: number[] = [];
    const segments = [];
    for (const e of entries) {
      let lo = Infinity;
      let hi = 0;
      for (const s of e.elf.segments) {
        lo = Math.min(lo, s.vaddr);
        hi = Math.max(hi, s.vaddr + s.memsz);
        segments.push({ vaddr: s.vaddr, data: s.data, memsz: s.memsz, writable: (s.flags & SEG_WRITABLE) !== 0 });
      }
      if (lo < CODE_BASE || hi > CODE_LIMIT) throw new InputError(`handler ${e.name}: image ${h(lo)}..${h(hi)} is outside the handler-code region ${h(CODE_BASE)}..${h(CODE_LIMIT)} (link it there; rtl/hpu/handlers/build.sh)`);
      for (let i = 0; i < images.length; i++) {
        const o = images[i]!;
        if (lo < o.hi && o.lo < hi && entries[i]!.elf !== e.elf) throw new InputError(`handler ${e.name}: image ${h(lo)}..${h(hi)} overlaps handler ${entries[i]!.name} (${h(o.lo)}..${h(o.hi)}); give it its own slot in build.sh`);
      }
      images.push({ lo, hi });
      let mask = 0;
      HANDLER_SYMBOLS.forEach((n, k) => {
        const a = e.elf.symbols.get(n);
        if (a !== undefined && a !== 0) mask |= 1 << k;
      });
      if (mask === 0) throw new InputError(`handler ${e.name}: the ELF defines none of ${HANDLER_SYMBOLS.join(', ')}`);
      if (!e.elf.symbols.has('_start') || e.elf.symbols.get('_start') !== e.elf.entry) throw new InputError(`handler ${e.name}: entry point is not _start (link with rtl/hpu/handlers/crt0.S)`);
      masks.push(mask);
      if (e.hostBase < 0 || e.hostLen < 0 || e.hostBase + e.hostLen > p.hostBytes) throw new InputError(`handler ${e.name}: host window ${h(e.hostBase)} + ${e.hostLen} bytes is outside the ${p.hostBytes}-byte host memory`);
      if (e.hpuMemInit.length > p.hpuMemBytes) throw new InputError(`handler ${e.name}: ${e.hpuMemInit.length} bytes of initial HPU memory exceed hpuMemBytes ${p.hpuMemBytes}`);
    }
    const seen = new Set<number>();
    for (const e of entries) {
      if (seen.has(e.tag)) throw new InputError(`two match entries with tag ${e.tag}`);
      seen.add(e.tag);
    }
    for (const pk of 'next' in packets ? [] : packets) {
      if (pk.payload.length > p.maxPacketBytes) throw new InputError(`packet ${pk.index} of message ${pk.msgId}: ${pk.payload.length} bytes exceed maxPacketBytes ${p.maxPacketBytes}`);
      if (pk.count < 1 || pk.index < 0 || pk.index >= pk.count) throw new InputError(`packet ${pk.index} of message ${pk.msgId}: index outside 0..${pk.count - 1}`);
    }
    this.packetCount = 'next' in packets ? Infinity : packets.length;
    const keep = opts.keep ?? true;
    this.sim = new Simulator({ freqHz: p.freqHz, skipping: opts.skipping ?? true });
    const memBytes = spinMemBytes(p);
    this.memory = new HpuMemory(memBytes, segments);
    this.host = new Uint8Array(p.hostBytes);
    const mem = this.memory.bytes;
    const nHpu = p.clusters * p.hpusPerCluster;
    this.link = new SpinLink(this.sim, 'link', p, packets, p.inboundPackets);
    this.inbound = new InboundEngine(this.sim, 'inbound', p, this.link.out, entries);
    const dmaPerform = (r: TransferRequest): number => {
      if (r.op === SYS_DMA_FROM_HOST) mem.set(this.host.subarray(r.remote, r.remote + r.len), r.local);
      else if (r.op === SYS_DMA_TO_HOST) this.host.set(mem.subarray(r.local, r.local + r.len), r.remote);
      return 0;
    };
    const putPerform = (r: TransferRequest, cycle: number): number => {
      const put = { msgId: r.msgId, dest: r.remote, data: mem.slice(r.local, r.local + r.len), cycle };
      if (keep) this.puts.push(put);
      opts.onPut?.(put);
      return 0;
    };
    this.dma = new LogGpEngine(this.sim, 'dma', nHpu, p.freqHz, p.dmaLatencyNs, p.dmaPsPerBit, 0, dmaPerform);
    this.put = new LogGpEngine(this.sim, 'put', nHpu, p.freqHz, 0, p.putPsPerBit, p.putGapNs, putPerform);
    // channels between the engine, the scheduler and the HPUs (each bound by its producer and consumer)
    const ch = <T>(name: string, capacity: number): Channel<T> => new Channel<T>(this.sim, name, { capacity, latency: 1 });
    const tasks = ch<SpinTask>('engine_tasks', 2);
    const reports = ch<SpinReport>('scheduler_reports', 4);
    const hpuTasks = Array.from({ length: nHpu }, (_, i) => ch<SpinTask>(`hpu${i}_task`, 2));
    const done = Array.from({ length: nHpu }, (_, i) => ch<SpinReport>(`hpu${i}_done`, 2));
    this.engine = new MessageEngine(this.sim, 'engine', p, this.inbound.out, reports, tasks, entries, masks, mem);
    this.engine.keepEvents = keep;
    this.engine.onEvent = opts.onEvent ?? null;
    const onRecord = (r: HandlerRecord): void => {
      if (keep) this.records.push(r);
      opts.onRecord?.(r);
    };
    this.scheduler = new SpinScheduler(this.sim, 'scheduler', p, tasks, done, reports, hpuTasks, mem);
    const slotAddress = (c: number, s: number): number => this.scheduler.slotAddress(c, s);
    for (let i = 0; i < nHpu; i++) {
      const c = Math.floor(i / p.hpusPerCluster);
      this.hpus.push(new SpinHpu(this.sim, `hpu${i}`, i, c, p, this.memory, hpuTasks[i]!, done[i]!, entries, images, slotAddress, this.dma.req[i]!, this.dma.resp[i]!, this.put.req[i]!, this.put.resp[i]!, onRecord, this.scheduler.doneVector));
    }
  }

  /** True when every packet has been delivered and every message has sent its completion event. */
  finished(): boolean {
    return this.link.delivered === this.packetCount && this.inbound.idle() && this.engine.busyMessages() === 0 && this.engine.idle();
  }

  /** Run until finished (throws SimulationLimitError naming the limit or a deadlock). */
  run(maxCycles: number): void {
    this.sim.runUntil(() => this.finished(), maxCycles);
  }
}
