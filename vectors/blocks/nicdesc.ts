/**
 * Golden vectors for the TH Express-2 descriptor decoder (docs/nic-frontend.md, "Descriptors").
 * Not cycle-based: each record is one descriptor's bytes and the decoder's verdict.
 *
 * Record: in {bytes: "0x.."} (the descriptor as written in memory, byte 0 first); out {reason,
 * field, desc} where desc is null for a rejected descriptor and otherwise the decoded fields
 * (addresses and keys as hex, immediate / MP data as hex bytes). Expected values come from the
 * golden model (models/nic/descModel.ts); the replayer decodes with rtl/nic/desc.
 *
 * The generator writes a valid descriptor of a random kind with the encoder, then (about two
 * times in three) breaks it in a way aimed at one reason code (truncation, opcode, size, a
 * reserved bit, a forbidden flag, child count, destination, item, length, address) or flips a
 * random bit; the model says what the result is.
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import { Rng } from '../../rtl/kernel/index.ts';
import {
  blankDesc,
  DESC_COLL,
  DESC_IMM_PUT,
  DESC_KIND_NAMES,
  DESC_MP,
  DESC_REASON_NAMES,
  type DescConfig,
  descConfig,
  decodeDescriptor,
  encodeDescriptor,
  type NicDesc,
  OFF,
} from '../../rtl/nic/desc/index.ts';
import { type ModelDesc, modelDecode } from '../../models/nic/descModel.ts';
import { canonicalJson, hexBits, hexBytes, type Json, RecordReader, type VectorFile, type VectorRecord } from '../format.ts';
import type { RecordProduced, ReplayOutcome, VectorBlock } from '../registry.ts';

const DEFAULTS: DescConfig = { vps: 40, nodes: 1024, items: 1024, vaBits: 48 };

/** A valid descriptor of a random kind (within cfg). */
export function randomValidDesc(rng: Rng, cfg: DescConfig): NicDesc {
  const kind = rng.int(5);
  const bytes = kind === DESC_IMM_PUT ? (rng.bool() ? 64 : 128) : kind === DESC_MP || kind === DESC_COLL ? 128 : 64;
  const d = blankDesc(kind, bytes);
  const small = kind === DESC_IMM_PUT || kind === DESC_MP;
  d.localEvent = rng.bool();
  d.remoteEvent = kind !== DESC_MP && rng.bool();
  d.connect = rng.bool();
  d.physical = !small && rng.bool(0.2);
  d.interrupt = rng.bool(0.2);
  d.dstNode = rng.int(cfg.nodes);
  d.dstVp = rng.int(cfg.vps);
  d.userTag = rng.int(65536);
  d.eventData = rng.u32();
  const top = 2 ** cfg.vaBits;
  if (small) {
    const cap = kind === DESC_MP ? 80 : bytes === 64 ? 16 : 80;
    d.length = 1 + rng.int(cap);
    d.data = new Uint8Array(d.length).map(() => rng.int(256));
  } else {
    d.length = rng.bool(0.1) ? 2 ** 32 - 1 - rng.int(4) : 1 + rng.int(rng.bool() ? 64 : 1 << 20);
    d.localKey = rng.u32();
    d.localItem = rng.int(cfg.items);
    d.localAddr = rng.bool(0.1) ? top - d.length : Math.floor(rng.float() * (top - d.length));
  }
  if (kind !== DESC_MP && kind !== DESC_COLL) {
    d.remoteKey = rng.u32();
    d.remoteItem = rng.int(cfg.items);
    d.remoteAddr = rng.bool(0.1) ? top - d.length : Math.floor(rng.float() * (top - d.length));
  }
  if (kind === DESC_COLL) {
    d.swapAddr = rng.bool();
    d.swapVp = rng.bool();
    d.seqId = rng.int(65536);
    const n = 1 + rng.int(5);
    for (let i = 0; i < n; i++) d.children.push({ node: rng.int(cfg.nodes), vp: rng.int(cfg.vps), key: rng.u32(), item: rng.int(cfg.items), addr: Math.floor(rng.float() * (top - d.length)) });
  }
  return d;
}

/** Bytes of a descriptor broken (or not) toward one reason; the decoder and the model judge them. */
export function randomDescBytes(rng: Rng, cfg: DescConfig): Uint8Array {
  const d = randomValidDesc(rng, cfg);
  const what = rng.int(15);
  const small = d.kind === DESC_IMM_PUT || d.kind === DESC_MP;
  switch (what) {
    case 0: {
      const b = encodeDescriptor(d);
      const n = rng.pick([0, 1, 32, 63, 65, 96, 127, 129, 192, 256]);
      const out = new Uint8Array(n);
      out.set(b.subarray(0, Math.min(n, b.length)));
      return out;
    }
    case 1: {
      const b = encodeDescriptor(d);
      b[OFF.ctl] = (b[OFF.ctl]! & 0xf0) | (5 + rng.int(11));
      return b;
    }
    case 2: {
      const b = encodeDescriptor(d);
      b[OFF.ctl] = b[OFF.ctl]! ^ (rng.bool() ? 0x10 : 0x20);
      return b;
    }
    case 3:
    case 4: {
      const b = encodeDescriptor(d);
      const bit = rng.int(b.length * 8);
      b[bit >> 3] = b[bit >> 3]! ^ (1 << (bit & 7));
      return b;
    }
    case 5: {
      const b = encodeDescriptor(d);
      if (d.kind === DESC_MP && rng.bool()) b[OFF.ctl] = b[OFF.ctl]! | 0x80;
      else b[OFF.flags] = b[OFF.flags]! | 2;
      return b;
    }
    case 6: {
      if (d.kind !== DESC_COLL) break;
      const b = encodeDescriptor(d);
      if (rng.bool()) b[OFF.collCount] = rng.pick([0, 6, 7, 255]);
      else if (d.children.length < 5) b[127 - rng.int(16)] = 1 + rng.int(255);
      return b;
    }
    case 7:
      if (rng.bool()) d.dstVp = cfg.vps + rng.int(256 - cfg.vps);
      else if (d.children.length > 0) d.children[rng.int(d.children.length)]!.vp = cfg.vps + rng.int(256 - cfg.vps);
      else if (cfg.nodes < 65536) d.dstNode = cfg.nodes + rng.int(65536 - cfg.nodes);
      break;
    case 8:
      if (cfg.items >= 4096) break;
      if (!small && rng.bool()) d.localItem = cfg.items + rng.int(4096 - cfg.items);
      else if (d.kind !== DESC_MP && d.kind !== DESC_COLL) d.remoteItem = cfg.items + rng.int(4096 - cfg.items);
      else if (d.children.length > 0) d.children[0]!.item = cfg.items + rng.int(4096 - cfg.items);
      break;
    case 9:
      if (small && rng.bool()) {
        d.length = 81 + rng.int(175);
        if (d.kind === DESC_IMM_PUT && d.bytes === 64) d.length = 17 + rng.int(239);
      } else d.length = 0;
      break;
    case 10: {
      const top = 2 ** cfg.vaBits;
      const span = small ? d.length : Math.max(1, d.length);
      if (!small && rng.bool()) d.localAddr = Math.min(2 ** 48 - 1, top - span + 1 + rng.int(span));
      else if (d.kind !== DESC_MP && d.kind !== DESC_COLL) d.remoteAddr = Math.min(2 ** 48 - 1, top - span + 1 + rng.int(span));
      else if (d.children.length > 0) d.children[0]!.addr = Math.min(2 ** 48 - 1, top - span + 1 + rng.int(span));
      break;
    }
    default:
      break;
  }
  return encodeDescriptor(d);
}

/** The decoded fields as a JSON object (the vector file's form), from either side. */
function descJson(d: { kind: string | number } & Omit<ModelDesc, 'kind' | 'data'> & { data: ArrayLike<number> }): { [k: string]: Json } {
  return {
    kind: typeof d.kind === 'number' ? DESC_KIND_NAMES[d.kind]! : d.kind,
    bytes: d.bytes,
    flags: [d.localEvent, d.remoteEvent, d.connect, d.physical, d.interrupt, d.swapAddr, d.swapVp].map((b) => (b ? '1' : '0')).join(''),
    dst_node: d.dstNode,
    dst_vp: d.dstVp,
    user_tag: d.userTag,
    length: d.length,
    local_key: hexBits(d.localKey),
    remote_key: hexBits(d.remoteKey),
    local_item: d.localItem,
    remote_item: d.remoteItem,
    local_addr: hexBits(d.localAddr),
    remote_addr: hexBits(d.remoteAddr),
    event_data: hexBits(d.eventData),
    seq_id: d.seqId,
    data: hexBytes(Uint8Array.from(d.data)),
    children: d.children.map((c) => ({ node: c.node, vp: c.vp, key: hexBits(c.key), addr: hexBits(c.addr), item: c.item })),
  };
}

function parseConfig(raw: { [k: string]: Json }): DescConfig {
  for (const k of Object.keys(raw)) if (!(k in DEFAULTS)) throw new InputError(`config: unknown field '${k}'`);
  const c = { ...DEFAULTS } as DescConfig;
  for (const k of Object.keys(DEFAULTS) as (keyof DescConfig)[]) {
    if (raw[k] === undefined) continue;
    const v = raw[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new InputError(`config.${k} must be an integer, got ${JSON.stringify(v)}`);
    c[k] = v;
  }
  try {
    return descConfig(c);
  } catch (e) {
    throw new InputError((e as Error).message);
  }
}

function generate(cfg: DescConfig, seed: number, count: number, produced?: RecordProduced): VectorRecord[] {
  const rng = new Rng(seed);
  const out: VectorRecord[] = [];
  for (let id = 0; id < count; id++) {
    const b = randomDescBytes(rng, cfg);
    const v = modelDecode(b, cfg);
    out.push({ id, in: { bytes: hexBytes(b) }, out: { reason: v.reason, field: v.field, desc: v.desc ? descJson(v.desc) : null } });
    produced?.(id + 1);
  }
  return out;
}

function replay(cfg: DescConfig, records: VectorRecord[]): ReplayOutcome[] {
  return records.map((r) => {
    const mismatches: string[] = [];
    let b: Uint8Array;
    try {
      b = new RecordReader(r, 'in').bytes('bytes', 4096);
    } catch (e) {
      return { id: r.id, ok: false, mismatches: [(e as Error).message] };
    }
    const got = decodeDescriptor(b, cfg);
    const gotOut: { [k: string]: Json } = { reason: DESC_REASON_NAMES[got.reason]!, field: got.field, desc: got.reason === 0 ? descJson(got.desc) : null };
    for (const k of ['reason', 'field']) if (gotOut[k] !== r.out[k]) mismatches.push(`out.${k}: expected ${JSON.stringify(r.out[k])}, got ${JSON.stringify(gotOut[k])}`);
    const we = r.out.desc as { [k: string]: Json } | null;
    const wg = gotOut.desc as { [k: string]: Json } | null;
    if ((we === null) !== (wg === null)) mismatches.push(`out.desc: expected ${we === null ? 'null' : 'fields'}, got ${wg === null ? 'null' : 'fields'}`);
    else if (we && wg) for (const k of Object.keys(we)) if (canonicalJson(we[k]!) !== canonicalJson(wg[k] ?? null)) mismatches.push(`out.desc.${k}: expected ${canonicalJson(we[k]!)}, got ${canonicalJson(wg[k] ?? null)}`);
    return { id: r.id, ok: mismatches.length === 0, mismatches };
  });
}

export const block: VectorBlock<DescConfig> = {
  name: 'nicdesc',
  description: 'TH Express-2 descriptor decoder: descriptor bytes -> reason code, failing field and decoded fields',
  generatorVersion: '1',
  defaultConfig: () => ({ ...DEFAULTS }),
  parseConfig,
  configToJson: (c) => ({ vps: c.vps, nodes: c.nodes, items: c.items, vaBits: c.vaBits }),
  generate,
  replay,
  tables: [
    {
      name: 'descriptors',
      layout: [
        { name: 'bytes', width: 8 },
        { name: 'reason', width: 4 },
        { name: 'desc', width: 1024 },
      ],
      rows(file: VectorFile): bigint[][] {
        return file.records.map((r) => {
          const b = new RecordReader(r, 'in').bytes('bytes', 4096);
          let x = 0n;
          for (let i = Math.min(b.length, 128) - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]!);
          const reason = DESC_REASON_NAMES.indexOf(r.out.reason as (typeof DESC_REASON_NAMES)[number]);
          return [BigInt(Math.min(b.length, 255)), BigInt(reason), x];
        });
      },
    },
  ],
};
