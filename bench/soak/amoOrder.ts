/**
 * Checks a Gemini AMO unit's answers against the BigInt golden model (models/gemini) as they
 * arrive, for the soak entries. The unit executes one operation at a time in acceptance order
 * (`AmoReq.acceptCycle`, at most one per cycle), so the golden model must see the operations in
 * that order; answers reach their initiators in another order (other ports, other NICs, the
 * network). An answered operation waits here until no operation still unanswered was accepted
 * before it, then goes through the golden model and is compared (status, old value, hit) and
 * dropped. Operations not yet accepted when an answer arrives will be accepted later than every
 * answered one, so they never hold anything back. Kept: the outstanding and the waiting
 * operations (both bounded by what the initiators keep in flight) and counts.
 */
import { AMO_NAMES, AMO_OK, AMO_STATUS_NAMES } from '../../rtl/gemini/amo/ops.ts';
import type { AmoReq } from '../../rtl/gemini/types.ts';
import type { GoldenAmoUnit } from '../../models/gemini/amoModel.ts';

const word = (hi: number, lo: number): bigint => (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
const hex = (v: bigint): string => '0x' + v.toString(16);

export class AcceptOrderChecker {
  /** operations answered and checked against the golden model */
  checked = 0;
  ok = 0;
  errors = 0;
  hits = 0;
  mismatches = 0;
  firstMismatch = '';
  private readonly outstanding = new Set<AmoReq>();
  private waiting: AmoReq[] = [];
  private lastAccept = -1;

  constructor(
    private readonly golden: GoldenAmoUnit,
    /** names the unit in messages */
    private readonly where: string,
  ) {}

  /** operations issued and not yet checked (outstanding + answered but waiting for an earlier one) */
  get held(): number {
    return this.outstanding.size + this.waiting.length;
  }

  issued(r: AmoReq): void {
    this.outstanding.add(r);
  }

  answered(r: AmoReq): void {
    if (!this.outstanding.delete(r)) return this.miss(`an answer for an operation that was not outstanding (tag ${r.tag})`);
    if (r.acceptCycle < 0) return this.miss(`an answer for an operation the unit never accepted (tag ${r.tag})`);
    this.waiting.push(r);
    let bound = Infinity;
    for (const o of this.outstanding) if (o.acceptCycle >= 0 && o.acceptCycle < bound) bound = o.acceptCycle;
    if (this.waiting.length > 1) this.waiting.sort((a, b) => a.acceptCycle - b.acceptCycle);
    let n = 0;
    while (n < this.waiting.length && this.waiting[n]!.acceptCycle < bound) this.check(this.waiting[n++]!);
    if (n > 0) this.waiting = n === this.waiting.length ? [] : this.waiting.slice(n);
  }

  private check(r: AmoReq): void {
    this.checked++;
    if (r.acceptCycle <= this.lastAccept) this.miss(`two operations accepted in one cycle or out of order (cycle ${r.acceptCycle} after ${this.lastAccept})`);
    this.lastAccept = r.acceptCycle;
    const g = this.golden.op(r.op, r.addr, r.size, word(r.aHi, r.aLo), word(r.bHi, r.bLo));
    const old = word(r.oldHi, r.oldLo);
    if (r.status !== g.status || (g.status === AMO_OK && (old !== g.old || r.hit !== g.hit))) {
      const name = AMO_NAMES[r.op] ?? `op ${r.op}`;
      const got = `${AMO_STATUS_NAMES[r.status] ?? r.status} old ${hex(old)} hit ${r.hit}`;
      const want = `${AMO_STATUS_NAMES[g.status]} old ${hex(g.old)} hit ${g.hit}`;
      this.miss(`${name} @${r.addr} accepted at cycle ${r.acceptCycle}: unit ${got}, golden model ${want}`);
    }
    if (g.status === AMO_OK) this.ok++;
    else this.errors++;
    if (g.hit) this.hits++;
  }

  private miss(m: string): void {
    if (this.mismatches++ === 0) this.firstMismatch = `${this.where}: ${m}`;
  }
}
