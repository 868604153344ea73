/**
 * Soak entry: the kernel's benchmark ring (rtl/examples/ring.ts), 100 stages, a token per cycle;
 * stage 0 checks every returning token. Its state is fixed-size rings and counters.
 */
import { buildRing } from '../../../rtl/examples/ring.ts';
import { type SoakBlock, steppedRun } from '../block.ts';

export const blocks: SoakBlock[] = [
  {
    name: 'kernel-ring',
    what: 'the kernel benchmark ring, 100 stages, one token per cycle, every token checked',
    start() {
      const ring = buildRing(100);
      let lastReceived = 0;
      return steppedRun(ring.sim, {
        check() {
          const s = ring.source;
          const out: string[] = [];
          if (s.errors > 0) out.push(`${s.errors} tokens came back wrong (first: ${s.firstError})`);
          if (s.received <= lastReceived) out.push(`no token returned since the last sample (${s.received} in all)`);
          lastReceived = s.received;
          return out;
        },
        summary() {
          return `${ring.source.received.toLocaleString('en-US')} tokens returned, ${ring.source.errors} wrong`;
        },
      });
    },
  },
];
