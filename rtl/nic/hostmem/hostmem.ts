import { Channel, Component, NEVER, NumChannel, Rng, type Scope } from '../../kernel/index.ts';
import { AttTable } from './att.ts';

/**
 * One ATT read: the entry of `page` in the table of virtual port `vp`, `tag` (< 1024, the ATC's
 * MSHR number) returned with the completion. The issuer owns the object (one per MSHR, reused);
 * host memory copies the fields when it accepts the read.
 */
export class AttRead {
  page = 0;
  vp = 0;
  tag = 0;
}

/**
 * Host memory behind PCIe, as seen by the ATC's fill port: it serves ATT reads.
 *
 * Ports (latency 1):
 * - `req` (Channel<AttRead>): a read of (vp, page) with a tag (tag < 1024, the ATC's MSHR number).
 * - `resp` (NumChannel): its completion, packed as frame * 2048 + valid * 1024 + tag.
 *
 * Timing: a read pushed by the ATC in cycle i is accepted here in cycle i + 1, when the ATT entry
 * is sampled, and its completion is visible to the ATC in cycle i + readLatency + j, where j is
 * drawn uniformly from [0, jitter] by this block's own seeded Rng, one draw per read in acceptance
 * order. Completions therefore come back out of order. At most one read is accepted and one
 * completion returned per cycle (a completion due in a cycle that is taken waits for the next);
 * at most `maxReads` reads are outstanding (PCIe tags); further reads wait in the channel.
 */
export interface HostMemConfig {
  /** cycles from the ATC issuing a read to the completion being visible, without jitter (>= 2, default 500) */
  readLatency: number;
  /** extra cycles drawn uniformly from [0, jitter] per read (default 100) */
  jitter: number;
  /** seed of the latency variation */
  seed: number;
  /** outstanding reads (default 256) */
  maxReads: number;
  vaBits: number;
  paBits: number;
}

export const HOSTMEM_DEFAULTS: Readonly<HostMemConfig> = { readLatency: 500, jitter: 100, seed: 1, maxReads: 256, vaBits: 48, paBits: 48 };

export const READ_TAG_LIMIT = 1024;


function checkLatency(readLatency: number, jitter: number): void {
  if (!Number.isInteger(readLatency) || readLatency < 2 || readLatency > 1e7) throw new RangeError(`host memory: readLatency must be an integer in [2, 10^7], got ${readLatency}`);
  if (!Number.isInteger(jitter) || jitter < 0 || jitter > 1e7) throw new RangeError(`host memory: jitter must be an integer in [0, 10^7], got ${jitter}`);
}

export class HostMemory extends Component {
  readonly cfg: HostMemConfig;
  readonly att: AttTable;
  readonly req: Channel<AttRead>;
  readonly resp: NumChannel;
  private readonly rng: Rng;
  private readLatency: number;
  private jitter: number;
  // outstanding reads: a binary min-heap in these three arrays ordered by (due cycle, acceptance
  // order), so that the read to complete next is entry 0 (a scan of every outstanding read, twice
  // per evaluation, was 12 % of an ATC benchmark's time)
  private readonly due: Float64Array;
  private readonly seq: Float64Array;
  private readonly value: Float64Array;
  private n = 0;
  private nextSeq = 0;
  private readonly cReads;

  constructor(parent: Scope, name: string, cfg: Partial<HostMemConfig> = {}, att?: AttTable) {
    super(parent, name);
    const c: HostMemConfig = { ...HOSTMEM_DEFAULTS, ...cfg };
    checkLatency(c.readLatency, c.jitter);
    if (!Number.isInteger(c.maxReads) || c.maxReads < 1 || c.maxReads > 65536) throw new RangeError(`host memory: maxReads must be an integer in [1, 65536], got ${c.maxReads}`);
    this.cfg = c;
    this.att = att ?? new AttTable(c.vaBits, c.paBits);
    this.req = new Channel<AttRead>(this, 'req', { capacity: 2, latency: 1 }).bindConsumer(this);
    this.resp = new NumChannel(this, 'resp', { capacity: 4, latency: 1 }).bindProducer(this);
    this.rng = new Rng(c.seed);
    this.readLatency = c.readLatency;
    this.jitter = c.jitter;
    this.due = new Float64Array(c.maxReads);
    this.seq = new Float64Array(c.maxReads);
    this.value = new Float64Array(c.maxReads);
    this.cReads = this.counter('reads');
  }

  /** Change the read latency and jitter (between cycles); reads already accepted keep their timing. */
  setLatency(readLatency: number, jitter: number): void {
    checkLatency(readLatency, jitter);
    this.readLatency = readLatency;
    this.jitter = jitter;
  }

  get outstanding(): number {
    return this.n;
  }

  override reset(): void {
    this.n = 0;
    this.nextSeq = 0;
    this.rng.reseed(this.cfg.seed);
    this.readLatency = this.cfg.readLatency;
    this.jitter = this.cfg.jitter;
  }

  tick(t: number): number {
    // accept one read: sample the ATT now, schedule the completion push so it is visible at issue + latency + jitter
    if (this.n < this.due.length && this.req.canPop()) {
      const r = this.req.pop();
      const tag = r.tag;
      const e = this.att.read(r.page, r.vp);
      const extra = this.jitter > 0 ? this.rng.int(this.jitter + 1) : 0;
      this.insert(t + this.readLatency - 2 + extra, this.nextSeq++, e * READ_TAG_LIMIT + tag); // frame * 2048 + valid * 1024 + tag
      this.cReads.inc();
    }
    // completion: the oldest-due read (ties: accepted first), the heap's top, once its due cycle has come
    let waiting = false;
    if (this.n > 0 && this.due[0]! <= t) {
      if (this.resp.canPush()) {
        this.resp.push(this.value[0]!);
        this.removeTop();
        waiting = this.n > 0 && this.due[0]! <= t; // another one is already due
      } else waiting = true;
    }
    if (waiting || this.req.canPop()) return t + 1;
    if (this.n === 0) return NEVER;
    const next = this.due[0]!;
    return next > t ? next : t + 1;
  }

  /** Entry i completes before entry j: earlier due cycle, or the same and accepted first. */
  private before(i: number, j: number): boolean {
    const di = this.due[i]!;
    const dj = this.due[j]!;
    return di < dj || (di === dj && this.seq[i]! < this.seq[j]!);
  }

  private move(from: number, to: number): void {
    this.due[to] = this.due[from]!;
    this.seq[to] = this.seq[from]!;
    this.value[to] = this.value[from]!;
  }

  /** Adds a read (n < maxReads): placed at the end, then moved up past later-completing parents. */
  private insert(due: number, seq: number, value: number): void {
    let i = this.n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const dp = this.due[p]!;
      if (dp < due || (dp === due && this.seq[p]! < seq)) break;
      this.move(p, i);
      i = p;
    }
    this.due[i] = due;
    this.seq[i] = seq;
    this.value[i] = value;
  }

  /** Removes entry 0: the last entry takes its place and moves down past earlier-completing children. */
  private removeTop(): void {
    const n = --this.n;
    if (n === 0) return;
    this.move(n, 0);
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const c = l + 1 < n && this.before(l + 1, l) ? l + 1 : l;
      if (!this.before(c, i)) break;
      this.swap(c, i);
      i = c;
    }
  }

  private swap(i: number, j: number): void {
    let x = this.due[i]!;
    this.due[i] = this.due[j]!;
    this.due[j] = x;
    x = this.seq[i]!;
    this.seq[i] = this.seq[j]!;
    this.seq[j] = x;
    x = this.value[i]!;
    this.value[i] = this.value[j]!;
    this.value[j] = x;
  }
}
