/**
 * Breaks a component's response channels for replayer tests: every response pushed one cycle
 * late (`late`), or the response of one tag pushed twice (`twice`) or dropped (`never`). The
 * component's own bookkeeping (doneCycle fields) is left as it is, so a replayer that trusted it
 * would not notice. Patches the prototype's tick for the duration of `run` only.
 */
export type BreakMode = 'late' | 'twice' | 'never';

interface Pushable<R> {
  push(r: R): void;
}

export async function withBrokenResponses<R extends { tag: number }, T>(proto: object, channels: (self: never) => Pushable<R>[], mode: BreakMode, tag: number, run: () => Promise<T>): Promise<T> {
  type P = { tick(t: number): number; __wrapped?: boolean; __late?: [Pushable<R>, R][] };
  const p = proto as P;
  const tick = p.tick;
  p.tick = function (this: P, t: number) {
    if (!this.__wrapped) {
      this.__wrapped = true;
      for (const ch of channels(this as never)) {
        const push = ch.push.bind(ch);
        ch.push = (r: R) => {
          if (mode === 'late') (this.__late ??= []).push([{ push }, r]);
          else if (r.tag !== tag) push(r);
          else if (mode === 'twice') {
            push(r);
            push(r);
          }
        };
      }
    }
    const q = this.__late;
    if (q && q.length > 0) for (const [ch, r] of q.splice(0)) ch.push(r);
    const n = tick.call(this, t);
    return this.__late && this.__late.length > 0 ? Math.min(n, t + 1) : n;
  };
  try {
    return await run();
  } finally {
    p.tick = tick;
  }
}
