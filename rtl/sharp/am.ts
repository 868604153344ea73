/**
 * The Aggregation Manager (seed 000 sections III-C, III-E, III-F): the management entity that
 * builds trees over the topology, creates groups (per-AN child sets, then trimming), gives every
 * job a resource allocation at every AN it uses (quotas that the ANs enforce), installs the
 * multicast forwarding entries for UD result distribution, and handles faults: on an error report
 * from an AN, a port-state event from a switch, a dead process seen by SHArPd or a failed TCA, it
 * notifies every member host of every affected job with an error completion and revokes the job's
 * allocation on every AN (JOB_REVOKE frees its contexts) and takes back every grant it made for the
 * job. It remembers what failed (ANs, links, dead processes) and never allocates a group over a
 * failed part: a group goes on the requested tree when that tree's sub-tree for the group is
 * healthy and has room, else on the next tree that is, else it is refused with the reason. It
 * never uses timeouts.
 */
import { type Channel, Component, NEVER, type Scope } from '../kernel/index.ts';
import { mcastAddress } from './frame.ts';
import type { ToAm, ToHost } from './mgmt.ts';
import { decodePacket, encodePacket, SharpStatus } from './packet/index.ts';
import type { SharpSwitch } from './switch.ts';
import type { Topology } from './topology.ts';
import { buildTree, GroupError, MAX_TREES, multicastPorts, planGroup, type GroupPlan, type SharpTree } from './trees.ts';

export interface GroupQuota {
  /** operations a member may have outstanding in the group (default 8) */
  maxOps: number;
  /** payload bytes a member may have in flight in the group (default maxOps x 256) */
  maxBytes: number;
}

export interface JobRecord {
  job: number;
  groups: GroupPlan[];
  quota: Map<number, GroupQuota>; // group -> quota
  /** 0 while healthy, else the status it was revoked with */
  revoked: number;
  revokedAt: number;
}

export const AM_NODE_ID = 0xfffe;

function linkKey(a: number, b: number): string {
  return a < b ? `${a}-${b}` : `${b}-${a}`;
}

export class AggregationManager extends Component {
  /** channels to each AN (by switch node id), each host, and from every reporter */
  readonly toAn = new Map<number, Channel<Uint8Array>>();
  readonly toHost = new Map<number, Channel<ToHost>>();
  readonly inputs: Channel<ToAm>[] = [];
  readonly jobs = new Map<number, JobRecord>();
  private readonly trees = new Map<number, SharpTree>();
  private readonly outbox: { ch: Channel<Uint8Array> | Channel<ToHost>; msg: Uint8Array | ToHost }[] = [];
  private mgmtSeq = 1;
  /** (AN, job) -> operations and bytes granted there */
  private readonly grants = new Map<string, { ops: number; bytes: number }>();
  /**
   * Opt-in: called with every revocation the AM makes (cycle, reason, jobs revoked). Nothing is
   * kept: an array of these grew by one entry per fault for as long as the fabric ran (found by
   * the sharp-faults soak, about 0.5 KB per fault epoch).
   */
  onRevoke?: (e: { at: number; what: string; jobs: number[] }) => void;
  /** what the AM learned has failed, with the cycle it learned it: ANs, links (lower-higher node id), hosts whose process died */
  private readonly failedAns = new Map<number, number>();
  private readonly downLinks = new Map<string, number>();
  private readonly deadHosts = new Map<number, number>();
  private readonly cReports;
  private readonly cRevokes;

  constructor(
    parent: Scope,
    name: string,
    readonly topo: Topology,
    readonly routes: Map<number, Int16Array>,
    readonly switches: Map<number, SharpSwitch>,
    /** context-table capacity of every AN: the sum of quotas granted there never exceeds it */
    readonly anContexts: number,
  ) {
    super(parent, name);
    this.cReports = this.counter('reports');
    this.cRevokes = this.counter('revocations');
  }

  tree(id: number): SharpTree {
    let t = this.trees.get(id);
    if (!t) {
      t = buildTree(this.topo, id);
      this.trees.set(id, t);
    }
    return t;
  }

  /**
   * Create a group of a job: GROUP_CREATE over the untrimmed sub-tree, GROUP_TRIM to the new root
   * and the ANs above it, JOB_QUOTA updates, multicast entries, and group-ready to every member.
   * `treeId` is the tree asked for; when the group's sub-tree on it uses a failed AN, a down link or
   * a dead member, or an AN without room for the quota, the next tree (treeId + 1, ... mod 64) that
   * has none of these is used (the returned plan says which). When no tree can carry the group it
   * is refused with a GroupError naming what blocks the requested tree; a refusal changes nothing.
   * Management messages leave now and arrive after the management latency.
   */
  createGroup(job: number, group: number, treeId: number, members: readonly number[], quota: Partial<GroupQuota> = {}): GroupPlan {
    if (!Number.isInteger(job) || job < 1 || job > 0xffff) throw new RangeError(`job id ${job} is not in 1..65535 (the 16-bit job field; job 0 is reserved for reports that name no job)`);
    if (!Number.isInteger(group) || group < 0 || group > 0xffff) throw new RangeError(`group id ${group} does not fit the 16-bit group field (0..65535)`);
    const q: GroupQuota = { maxOps: quota.maxOps ?? 8, maxBytes: quota.maxBytes ?? (quota.maxOps ?? 8) * 256 };
    if (!Number.isInteger(q.maxOps) || q.maxOps < 1 || q.maxOps > 0xffff) throw new RangeError(`group quota maxOps must be in 1..65535, got ${q.maxOps}`);
    this.tree(treeId); // a bad tree id is an error, not a reason to look elsewhere
    const old = this.jobs.get(job);
    if (old?.revoked) throw new GroupError(`job ${job} was revoked (status ${old.revoked}) at cycle ${old.revokedAt}; end it before reusing its id`);
    if (old?.groups.some((g) => g.group === group)) throw new RangeError(`job ${job} already has group ${group}`);
    let plan: GroupPlan | null = null;
    let why = '';
    for (let i = 0; i < MAX_TREES && plan === null; i++) {
      const p = planGroup(this.topo, this.tree((treeId + i) % MAX_TREES), job, group, members);
      const blocked = this.blocked(p, q.maxOps);
      if (!blocked) plan = p;
      else if (i === 0) why = blocked;
    }
    if (plan === null) throw new GroupError(`no SHArP tree can carry group ${group} of job ${job}: on tree ${treeId} ${why}, and every other tree is blocked too`);
    const tree = this.tree(plan.tree);
    let rec = old;
    if (!rec) {
      rec = { job, groups: [], quota: new Map(), revoked: 0, revokedAt: -1 };
      this.jobs.set(job, rec);
    }
    // untrimmed sub-tree: the trimmed plan plus the chain of ANs above its root
    const chain = [...plan.trimmed];
    for (const [an, role] of plan.ans) {
      const grant = this.grants.get(`${an}/${job}`) ?? { ops: 0, bytes: 0 };
      const ops = grant.ops + q.maxOps;
      const bytes = grant.bytes + q.maxOps * role.children.length * 256;
      this.grants.set(`${an}/${job}`, { ops, bytes });
      this.sendAn(an, encodePacket({ type: 'JOB_QUOTA', job, seq: this.mgmtSeq++, source: AM_NODE_ID, maxOps: ops, maxBufferBytes: bytes }));
    }
    // create over the untrimmed tree (the ANs above the root see the single child below them)
    for (let i = 0; i < chain.length; i++) {
      const an = chain[i]!;
      const child = i + 1 < chain.length ? chain[i + 1]! : plan.root;
      this.sendAn(an, encodePacket({ type: 'GROUP_CREATE', job, tree: plan.tree, group, seq: this.mgmtSeq++, source: AM_NODE_ID, parent: tree.parent.get(an)! < 0 ? null : tree.parent.get(an)!, children: [child] }));
    }
    for (const [an, role] of plan.ans) {
      const parent = an === plan.root && chain.length > 0 ? chain[chain.length - 1]! : role.parent;
      this.sendAn(an, encodePacket({ type: 'GROUP_CREATE', job, tree: plan.tree, group, seq: this.mgmtSeq++, source: AM_NODE_ID, parent, children: role.children }));
    }
    // trim: the new root ends the sub-tree, the ANs above drop the group
    if (chain.length > 0) {
      for (const an of [plan.root, ...chain]) {
        this.sendAn(an, encodePacket({ type: 'GROUP_TRIM', job, tree: plan.tree, group, seq: this.mgmtSeq++, source: AM_NODE_ID, newRoot: plan.root, level: plan.rootLevel }));
      }
    }
    // multicast forwarding entries from the root's switch toward the members
    const mcast = mcastAddress(job, group);
    for (const [sw, ports] of multicastPorts(this.topo, this.routes, plan.root, plan.members)) this.switches.get(sw)!.mft.set(mcast, ports);
    rec.groups.push(plan);
    rec.quota.set(group, q);
    plan.members.forEach((h, rank) => {
      this.sendHost(h, { kind: 'group-ready', job, group, tree: plan.tree, rank, size: plan.members.length, mcast, maxOps: q.maxOps, maxBytes: q.maxBytes });
    });
    this.wake(this.sim.cycle);
    return plan;
  }

  /**
   * A job ended normally: its allocation is returned (JOB_REVOKE to every AN it used, which frees
   * its groups and contexts there) and its grants are released; members are not notified.
   */
  endJob(job: number): void {
    const rec = this.jobs.get(job);
    if (!rec) throw new RangeError(`no job ${job}`);
    for (const an of this.jobAns(rec)) this.sendAn(an, encodePacket({ type: 'JOB_REVOKE', job, seq: this.mgmtSeq++, source: AM_NODE_ID }));
    this.release(rec);
    this.jobs.delete(job);
    this.wake(this.sim.cycle);
  }

  /** Every AN a job's groups use, trimmed ones included. */
  private jobAns(rec: JobRecord): Set<number> {
    const ans = new Set<number>();
    for (const g of rec.groups) for (const an of [...g.ans.keys(), ...g.trimmed]) ans.add(an);
    return ans;
  }

  /** Take back every grant of a job and its multicast forwarding entries. */
  private release(rec: JobRecord): void {
    for (const an of this.jobAns(rec)) this.grants.delete(`${an}/${rec.job}`);
    for (const g of rec.groups) {
      const mcast = mcastAddress(rec.job, g.group);
      for (const sw of this.switches.values()) sw.mft.delete(mcast);
    }
  }

  /** Operation contexts granted to a job over all ANs (0 once it ended or was revoked). */
  grantedTo(job: number): number {
    let s = 0;
    for (const [k, g] of this.grants) if (k.endsWith(`/${job}`)) s += g.ops;
    return s;
  }

  /**
   * Why a group plan cannot be allocated ('' when it can): a member whose process died, a failed AN
   * or a down AN-to-child link in its sub-tree, or an AN without room for `maxOps` more contexts.
   */
  private blocked(plan: GroupPlan, maxOps: number): string {
    const name = (n: number): string => this.topo.nodes[n]!.name;
    for (const h of plan.members) {
      const at = this.deadHosts.get(h);
      if (at !== undefined) return `the process on ${name(h)} died (reported at cycle ${at})`;
    }
    for (const [an, role] of plan.ans) {
      const at = this.failedAns.get(an);
      if (at !== undefined) return `the aggregation node of ${name(an)} failed (reported at cycle ${at})`;
      for (const c of role.children) {
        const down = this.downLinks.get(linkKey(an, c));
        if (down !== undefined) return `the link ${name(an)}-${name(c)} is down (reported at cycle ${down})`;
      }
    }
    for (const an of plan.ans.keys()) if (this.grantedOps(an) + maxOps > this.anContexts) return `AN ${name(an)} has no room for ${maxOps} more operation contexts (capacity ${this.anContexts})`;
    return '';
  }

  /** Operation contexts granted at an AN over all jobs: end-to-end resource availability. */
  private grantedOps(an: number): number {
    let s = 0;
    for (const [k, g] of this.grants) if (k.startsWith(`${an}/`)) s += g.ops;
    return s;
  }

  private sendAn(an: number, bytes: Uint8Array): void {
    const ch = this.toAn.get(an);
    if (!ch) throw new Error(`AM: no management channel to AN ${an}`);
    this.outbox.push({ ch, msg: bytes });
  }

  private sendHost(h: number, m: ToHost): void {
    const ch = this.toHost.get(h);
    if (!ch) throw new Error(`AM: no management channel to host ${h}`);
    this.outbox.push({ ch, msg: m });
  }

  tick(t: number): number {
    for (const ch of this.inputs) while (ch.canPop()) this.handle(ch.pop(), t);
    while (this.outbox.length > 0) {
      const o = this.outbox[0]!;
      if (!o.ch.canPush()) break;
      (o.ch as Channel<unknown>).push(o.msg);
      this.outbox.shift();
    }
    return this.outbox.length > 0 ? t + 1 : NEVER;
  }

  private handle(m: ToAm, t: number): void {
    this.cReports.inc();
    if (m.kind === 'report') {
      const d = decodePacket(m.bytes);
      if (!d.ok || d.pkt.type !== 'ERROR_REPORT') return; // an unreadable report: nothing to act on
      const r = d.pkt;
      this.revokeJobs([r.job], r.status, t, `AN ${m.from} reported status ${r.status} for job ${r.job}`);
      return;
    }
    if (m.event === 'link-down') {
      if (!this.downLinks.has(linkKey(m.node, m.peer))) this.downLinks.set(linkKey(m.node, m.peer), t);
    } else if (m.event === 'node-failure') {
      if (!this.failedAns.has(m.node)) this.failedAns.set(m.node, t);
    } else if (!this.deadHosts.has(m.node)) this.deadHosts.set(m.node, t);
    const affected: number[] = [];
    for (const rec of this.jobs.values()) {
      if (rec.revoked) continue;
      const hit = rec.groups.some((g) => this.groupUses(g, m.event, m.node, m.peer));
      if (hit) affected.push(rec.job);
    }
    const status = m.event === 'link-down' ? SharpStatus.LINK_DOWN : m.event === 'node-failure' ? SharpStatus.NODE_FAILURE : SharpStatus.HOST_FAILURE;
    this.revokeJobs(affected, status, t, `${m.event} at node ${m.node} (peer ${m.peer})`);
  }

  /** Does the group's tree use the failed element? */
  private groupUses(g: GroupPlan, event: string, node: number, peer: number): boolean {
    if (event === 'host-failure') return g.members.includes(node);
    if (event === 'node-failure') return g.ans.has(node);
    // a link: an edge between a child and its AN in the group's sub-tree
    for (const [an, role] of g.ans) {
      if ((an === node && role.children.includes(peer)) || (an === peer && role.children.includes(node))) return true;
    }
    return false;
  }

  private revokeJobs(jobs: number[], status: number, t: number, why: string): void {
    const done: number[] = [];
    for (const job of new Set(jobs)) {
      const rec = this.jobs.get(job);
      if (!rec || rec.revoked) continue;
      rec.revoked = status;
      rec.revokedAt = t;
      done.push(job);
      this.cRevokes.inc();
      const hosts = new Set<number>();
      for (const g of rec.groups) for (const h of g.members) hosts.add(h);
      for (const h of hosts) this.sendHost(h, { kind: 'job-error', job, status });
      for (const an of this.jobAns(rec)) this.sendAn(an, encodePacket({ type: 'JOB_REVOKE', job, seq: this.mgmtSeq++, source: AM_NODE_ID }));
      this.release(rec);
    }
    this.onRevoke?.({ at: t, what: why, jobs: done });
  }
}
