/**
 * Golden model of the HDQ's descriptor assembly (docs/nic-frontend.md, "HDQ"), sharing no code with
 * rtl/nic/vp: window stores in arrival order become whole descriptors per VP, or refusals. It
 * assumes the queues never fill (the full rule is timing-dependent and tested separately).
 */
export type HdqModelError = { vp: number; error: 'hdq_sequence' | 'hdq_bad_size' };

export class HdqModel {
  readonly accepted = new Map<number, number[][]>();
  readonly errors: HdqModelError[] = [];
  private readonly partial = new Map<number, { size: number; bytes: number[] }>();

  store(vp: number, offset: number, data: Uint8Array): void {
    const cur = this.partial.get(vp);
    if (offset === 0) {
      if (cur) this.errors.push({ vp, error: 'hdq_sequence' });
      this.partial.delete(vp);
      const code = (data[0]! >> 4) & 3;
      const size = code === 0 ? 64 : code === 1 ? 128 : -1;
      if (size < 0 || data.length > size) {
        this.errors.push({ vp, error: 'hdq_bad_size' });
        return;
      }
      this.partial.set(vp, { size, bytes: [...data] });
    } else {
      if (!cur || offset !== cur.bytes.length || offset + data.length > cur.size) {
        this.partial.delete(vp);
        this.errors.push({ vp, error: 'hdq_sequence' });
        return;
      }
      cur.bytes.push(...data);
    }
    const p = this.partial.get(vp)!;
    if (p.bytes.length === p.size) {
      if (!this.accepted.has(vp)) this.accepted.set(vp, []);
      this.accepted.get(vp)!.push(p.bytes);
      this.partial.delete(vp);
    }
  }
}
