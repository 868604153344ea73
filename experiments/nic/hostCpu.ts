/**
 * The host side of the two-NIC rig (experiments/nic/rdmaRig.ts): the software costs of a process
 * posting a descriptor and detecting its completion, as named parameters with their calibrated
 * defaults, and the CPU that issues the process's stores at the times those costs give.
 *
 * The NICs, PCIe and the link are cycle-level RTL; the CPU is not: a process's work is a span of
 * time after which its stores enter the root complex in order. docs/nic-calibration.md says where
 * every value comes from.
 */
import { type Channel, Component, NEVER, type Scope } from '../../rtl/kernel/index.ts';
import type { PioWrite } from '../../rtl/nic/pcie/index.ts';

/** Host software costs of one GLEX2-level operation (ns at the rig's 1 GHz clock: whole cycles). */
export interface HostCosts {
  /** from the send call to the process's first store (building the descriptor, library checks) */
  sendNs: number;
  /**
   * between the 64-byte write-combining chunks of one PIO descriptor store: the CPU flushes one
   * write-combining buffer (store fence) before it fills the next, so a 128-byte descriptor (MP,
   * IMM_PUT over 16 bytes) reaches the HDQ this much later than a 64-byte one. DMA VPs write the
   * descriptor into cached host memory and pay nothing per chunk.
   */
  pioChunkNs: number;
  /** from a completion entry landing in host memory to the polling process having read it, per 64-byte cache line of the entry (an EQ event: 1 line; an MPQ entry, always full length: 2) */
  pollLineNs: number;
}

/**
 * The calibrated host: least-squares fit on the seed's Table 1 (`netoffload nic table --fit`
 * reproduces these values; testbench/nic/nicTable.test.ts checks that).
 */
export const HOST_COSTS: Readonly<HostCosts> = { sendNs: 306, pioChunkNs: 281, pollLineNs: 96 };

/** No host costs: stores enter the root complex at the call, completion is the entry landing (the bare NIC, as `nic rdma` and `nic sweep` measure it). */
export const NO_HOST_COSTS: Readonly<HostCosts> = { sendNs: 0, pioChunkNs: 0, pollLineNs: 0 };

export const HOST_COST_NAMES = ['sendNs', 'pioChunkNs', 'pollLineNs'] as const satisfies readonly (keyof HostCosts)[];

/** Host costs with defaults filled in; a cost that is not a whole number of ns in [0, 10^6] or an unknown name throws, naming it. */
export function hostCosts(p: Partial<HostCosts> = {}): HostCosts {
  for (const k of Object.keys(p)) if (!(HOST_COST_NAMES as readonly string[]).includes(k)) throw new RangeError(`unknown host cost '${k}' (expected ${HOST_COST_NAMES.join(', ')})`);
  const c: HostCosts = { ...HOST_COSTS, ...p };
  for (const k of HOST_COST_NAMES) if (!Number.isInteger(c[k]) || c[k] < 0 || c[k] > 1e6) throw new RangeError(`host cost ${k} must be a whole number of ns in [0, 1000000], got ${c[k]}`);
  return c;
}

export function isFree(c: HostCosts): boolean {
  return HOST_COST_NAMES.every((k) => c[k] === 0);
}

/** Wire-level lines of a completion entry the polling process reads. */
export function entryLines(bytes: number): number {
  return Math.ceil(bytes / 64);
}

/**
 * The CPU of one node: stores scheduled for a cycle enter the root complex's store queue (`out`,
 * its `pioIn`) in the order of their cycles (ties: scheduling order), at most one per cycle, when
 * the queue has room (else they wait, in order).
 */
export class HostCpu extends Component {
  private readonly due: number[] = [];
  private readonly stores: PioWrite[] = [];
  issued = 0;

  constructor(
    parent: Scope,
    name: string,
    private readonly out: Channel<PioWrite>,
  ) {
    super(parent, name);
    out.bindProducer(this);
  }

  /** stores not yet in the root complex */
  get pending(): number {
    return this.stores.length;
  }

  /** Schedule store w for cycle `cycle` (not before the simulator's next cycle). */
  schedule(cycle: number, w: PioWrite): void {
    const at = Math.max(cycle, this.sim.cycle);
    let i = this.due.length;
    while (i > 0 && this.due[i - 1]! > at) i--;
    this.due.splice(i, 0, at);
    this.stores.splice(i, 0, w);
    this.sim.wakeAt(this, i === 0 ? at : Math.max(this.due[0]!, this.sim.cycle));
  }

  tick(t: number): number {
    if (this.due.length > 0 && this.due[0]! <= t && this.out.canPush()) {
      this.due.shift();
      this.out.push(this.stores.shift()!);
      this.issued++;
    }
    if (this.due.length === 0) return NEVER;
    return Math.max(t + 1, this.due[0]!);
  }
}
