/**
 * The seed's Tables II, III and IV (four-process recursive-doubling barrier), held here as data
 * and compared entry for entry with the generator (rtl/coredirect/barrier.ts) and the posting rule
 * (rtl/coredirect/driver.ts), and with the golden model's own generator and posting rule.
 */
import { describe, expect, it } from 'vitest';
import { barrierMwr, barrierOps, barrierPeers } from '../../rtl/coredirect/barrier.ts';
import { postMwr, QueueHeads } from '../../rtl/coredirect/driver.ts';
import { F_DISABLED, Q_MQ, T_SEND, T_SEND_ENABLE, T_WAIT } from '../../rtl/coredirect/tasks.ts';
import { type GEntry, goldenPost, type GQueues, goldenSchedule } from '../../models/coredirect/golden.ts';

/** Table II: MWR task list for each rank (columns proc 0..3). */
const TABLE_II = [
  ['send to 1', 'send to 0', 'send to 3', 'send to 2'],
  ['recv wait from 1', 'recv wait from 0', 'recv wait from 3', 'recv wait from 2'],
  ['send to 2', 'send to 3', 'send to 0', 'send to 1'],
  ['recv wait from 2', 'recv wait from 3', 'recv wait from 0', 'recv wait from 1'],
];
/** Table III: queue pair task list (a different QP per peer). */
const TABLE_III = [
  ['send to 1', 'send to 0', 'send to 3', 'send to 2'],
  ['send enabled', 'send enabled', 'send enabled', 'send enabled'],
  ['send to 2', 'send to 3', 'send to 0', 'send to 1'],
  ['send not enabled', 'send not enabled', 'send not enabled', 'send not enabled'],
];
/** Table IV: management queue task list. */
const TABLE_IV = [
  ['send enable 1', 'send enable 0', 'send enable 3', 'send enable 2'],
  ['MQ recv wait from 1', 'MQ recv wait from 0', 'MQ recv wait from 3', 'MQ recv wait from 2'],
  ['send enable 2', 'send enable 3', 'send enable 0', 'send enable 1'],
  ['MQ recv wait from 2', 'MQ recv wait from 3', 'MQ recv wait from 0', 'MQ recv wait from 1'],
];
const column = (t: string[][], r: number): string[] => t.map((row) => row[r]!);

/** The RTL generator + driver for rank r of 4 (send/recv channel semantics, as the tables). */
function rtlTables(r: number): { ii: string[]; iii: string[]; iv: string[] } {
  const ops = barrierOps(4, r);
  const peers = barrierPeers(ops);
  const qpOf = (p: number): number => peers.indexOf(p);
  const mwr = barrierMwr(ops, qpOf, false);
  const ii = mwr.map((t) => (t.kind === T_SEND ? `send to ${peers[t.qp]}` : t.kind === T_WAIT ? `recv wait from ${peers[t.cq]}` : '?'));
  const posted = postMwr(mwr, new QueueHeads(peers.length), 16000);
  const iii: string[] = [];
  const iv: string[] = [];
  for (const e of posted) {
    if (e.queue === Q_MQ) iv.push(e.kind === T_SEND_ENABLE ? `send enable ${peers[e.qp]}` : e.kind === T_WAIT ? `MQ recv wait from ${peers[e.cq]}` : '?');
    else iii.push(`send to ${peers[e.qp]}`, e.flags & F_DISABLED ? 'send not enabled' : 'send enabled');
  }
  return { ii, iii, iv };
}

function goldenTables(r: number): { ii: string[]; iii: string[]; iv: string[] } {
  const steps = goldenSchedule(4, r);
  const ii = steps.map((s) => (s.kind === 'signal' ? `send to ${s.peer}` : `recv wait from ${s.peer}`));
  const q: GQueues = new Map();
  goldenPost(
    steps.map((s) => (s.kind === 'signal' ? { op: 'send' as const, qp: s.peer } : { op: 'wait' as const, queue: null, cq: s.peer, count: 1 })),
    q,
  );
  const iii: string[] = [];
  for (const p of [r ^ 1, r ^ 2]) for (const e of q.get(`sq${p}`) as GEntry[]) iii.push(`send to ${p}`, e.enabledAtPost ? 'send enabled' : 'send not enabled');
  const iv = (q.get('mq') as GEntry[]).map((e) => (e.op === 'send_enable' ? `send enable ${e.qp}` : `MQ recv wait from ${e.cq}`));
  return { ii, iii, iv };
}

describe('seed Tables II, III and IV (four processes)', () => {
  for (const r of [0, 1, 2, 3]) {
    it(`rank ${r}: the RTL generator and driver give the tables entry for entry`, () => {
      const t = rtlTables(r);
      expect(t.ii).toEqual(column(TABLE_II, r));
      expect(t.iii).toEqual(column(TABLE_III, r));
      expect(t.iv).toEqual(column(TABLE_IV, r));
    });
    it(`rank ${r}: the golden model gives the same tables`, () => {
      const t = goldenTables(r);
      expect(t.ii).toEqual(column(TABLE_II, r));
      expect(t.iii).toEqual(column(TABLE_III, r));
      expect(t.iv).toEqual(column(TABLE_IV, r));
    });
  }
});
