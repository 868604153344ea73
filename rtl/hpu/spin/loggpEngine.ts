/**
 * A LogGP transfer engine shared by the HPUs: the host DMA engine (L = dmaLatencyNs, G =
 * dmaPsPerBit) and the outbound put engine (G = putPsPerBit, g = putGapNs). One request channel
 * and one response channel per HPU; a round-robin arbiter picks the next request when the engine
 * is free. A transfer of n bytes occupies the engine for max(g, 8 n G) and completes L + 8 n G
 * after it starts (transfers overlap in their latency). The data moves when the transfer starts
 * (`perform`); the response (the result code) is returned when it completes.
 */
import { Channel, Component, Fifo, NEVER, RoundRobinArbiter, type Scope } from '../../kernel/index.ts';

export interface TransferRequest {
  op: number;
  /** HPU-visible address */
  local: number;
  /** host address (DMA) or destination node (put) */
  remote: number;
  len: number;
  msgId: number;
}

interface InFlight {
  hpu: number;
  doneAt: number;
  result: number;
}

export class LogGpEngine extends Component {
  readonly req: Channel<TransferRequest>[] = [];
  readonly resp: Channel<number>[] = [];
  private readonly arb: RoundRobinArbiter;
  private readonly inflight: Fifo<InFlight>;
  private busyUntilPs = 0;
  private readonly psPerCycle: number;
  private readonly canReq: (i: number) => boolean;
  transfers = 0;
  bytes = 0;

  constructor(
    parent: Scope,
    name: string,
    hpus: number,
    freqHz: number,
    private readonly latencyNs: number,
    private readonly psPerBit: number,
    private readonly gapNs: number,
    private readonly perform: (r: TransferRequest, cycle: number) => number,
  ) {
    super(parent, name);
    for (let h = 0; h < hpus; h++) {
      this.req.push(new Channel<TransferRequest>(this, `req${h}`, { capacity: 2, latency: 1 }).bindConsumer(this));
      this.resp.push(new Channel<number>(this, `resp${h}`, { capacity: 2, latency: 1 }).bindProducer(this));
    }
    this.arb = new RoundRobinArbiter(this, 'arb', hpus);
    this.inflight = new Fifo<InFlight>(this, hpus + 1);
    this.psPerCycle = 1e12 / freqHz;
    this.canReq = (i: number): boolean => this.req[i]!.canPop();
  }

  tick(t: number): number {
    let next = NEVER;
    if (this.inflight.canPop()) {
      const f = this.inflight.peek();
      if (f.doneAt <= t && this.resp[f.hpu]!.canPush()) {
        this.inflight.pop();
        this.resp[f.hpu]!.push(f.result);
      }
      next = Math.max(t + 1, f.doneAt);
    }
    const nowPs = t * this.psPerCycle;
    if (nowPs >= this.busyUntilPs - 1e-6 && this.inflight.canPush()) {
      const h = this.arb.grant(this.canReq);
      if (h >= 0) {
        const r = this.req[h]!.pop();
        const serialPs = r.len * 8 * this.psPerBit;
        this.busyUntilPs = nowPs + Math.max(serialPs, this.gapNs * 1000);
        const doneAt = Math.max(t + 1, Math.ceil((nowPs + this.latencyNs * 1000 + serialPs) / this.psPerCycle - 1e-9));
        this.inflight.push({ hpu: h, doneAt, result: this.perform(r, t) });
        this.transfers++;
        this.bytes += r.len;
        next = Math.min(next, t + 1);
      }
    } else if (this.busyUntilPs > nowPs) next = Math.min(next, Math.ceil(this.busyUntilPs / this.psPerCycle - 1e-9));
    return next;
  }
}
