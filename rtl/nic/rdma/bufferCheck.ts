import type { Channel } from '../../kernel/index.ts';
import { ATC_BYPASS, ATC_HIT, ATC_MERGED, ATC_MISS, type AtcReq, PAGE_BYTES } from '../atc/types.ts';
import { MC_NO_VP, MC_OK, type MemCheckReq, MemCheckReq as Req } from '../memcheck/types.ts';
import { RE_XLATE } from './types.ts';

/**
 * The check-and-translate step both RDMA engines take for a buffer (a register set inside the
 * engine, stepped by its `check` state): one memory-checker request acting for a VP, its verdict,
 * and one ATC answer per page, which may come in any order. `step` does one cycle's work: push the
 * request when the checker's channel has room, take the verdict and one translation.
 */
export class BufferCheck {
  readonly mc: MemCheckReq = new Req();
  /** physical address of the first byte of each page of the buffer (-1: no translation) */
  readonly pagePa: Float64Array;
  private sent = false;
  private verdict = false;
  private xlates = 0;

  constructor(maxPages: number) {
    this.pagePa = new Float64Array(maxPages);
  }

  begin(item: number, key: number, va: number, len: number, write: boolean, vp: number, physical: boolean): void {
    const m = this.mc;
    m.item = item;
    m.key = key;
    m.va = va;
    m.len = len;
    m.write = write;
    m.reqVp = vp < 0 ? MC_NO_VP : vp;
    m.physical = physical;
    this.sent = false;
    this.verdict = false;
    this.xlates = 0;
  }

  /** One cycle; true once the verdict and every page's translation are in (an engine with one check in flight). */
  step(req: Channel<MemCheckReq>, resp: Channel<MemCheckReq>, xl: Channel<AtcReq>): boolean {
    if (!this.sent && req.canPush()) this.send(req);
    if (resp.canPop()) {
      resp.pop();
      this.verdict = true;
    }
    if (xl.canPop()) this.takeXlate(xl.pop());
    return this.done;
  }

  // ---- the same steps for an engine with several checks in flight, which routes the answers by `mc.tag` ----
  /** the request has not been sent yet */
  get unsent(): boolean {
    return !this.sent;
  }

  /** Push the request (the caller saw room in the checker's channel). */
  send(req: Channel<MemCheckReq>): void {
    req.push(this.mc);
    this.sent = true;
  }

  /** The checker's verdict on this request arrived (the caller popped it: it is `mc`). */
  takeVerdict(): void {
    this.verdict = true;
  }

  /** One page's translation arrived. */
  takeXlate(x: AtcReq): void {
    const ok = x.status === ATC_HIT || x.status === ATC_MISS || x.status === ATC_MERGED || x.status === ATC_BYPASS;
    if (x.part < this.pagePa.length) this.pagePa[x.part] = ok ? x.pa - (x.va % PAGE_BYTES) : -1;
    this.xlates++;
  }

  /** the verdict and every page's translation are in */
  get done(): boolean {
    return this.sent && this.verdict && this.xlates === this.mc.pages;
  }

  /** After `step` returned true (or `done`): 0 when the buffer may be used, else the checker's reason (1-7), RE_XLATE for a missing translation. */
  get code(): number {
    if (this.mc.reason !== MC_OK) return this.mc.reason;
    if (this.mc.pages > this.pagePa.length) return RE_XLATE;
    for (let i = 0; i < this.mc.pages; i++) if (this.pagePa[i]! < 0) return RE_XLATE;
    return 0;
  }
}
