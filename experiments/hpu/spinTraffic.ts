/**
 * sPIN traffic and handlers for the runtime (rtl/hpu/spin): messages cut into packets, the
 * committed handler ELFs (rtl/hpu/handlers/elf) as match entries.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../rtl/kernel/errors.ts';
import { parseElf, type ElfImage } from '../../models/hpu/elf.ts';
import type { MatchEntry, SpinPacket } from '../../rtl/hpu/spin/types.ts';

export const HANDLER_DIR = fileURLToPath(new URL('../../rtl/hpu/handlers/elf/', import.meta.url));
export const BUILTIN_HANDLERS = ['pingpong', 'accumulate', 'unpack', 'histogram', 'probe', 'busy', 'work'] as const;

const cache = new Map<string, ElfImage>();

/** A handler ELF: a built-in name, or a path to an ELF file. */
export function loadHandler(nameOrPath: string): ElfImage {
  const path = (BUILTIN_HANDLERS as readonly string[]).includes(nameOrPath) ? `${HANDLER_DIR}${nameOrPath}.elf` : nameOrPath;
  let img = cache.get(path);
  if (img === undefined) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      throw new InputError(`cannot read handler ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    img = parseElf(bytes, path);
    cache.set(path, img);
  }
  return img;
}

export function matchEntry(tag: number, handler: string, opts: { hostBase?: number; hostLen?: number; hpuMemInit?: Uint8Array } = {}): MatchEntry {
  return { tag, elf: loadHandler(handler), name: handler, hostBase: opts.hostBase ?? 0, hostLen: opts.hostLen ?? 1 << 20, hpuMemInit: opts.hpuMemInit ?? new Uint8Array(0) };
}

export interface MessageSpec {
  msgId: number;
  tag: number;
  source: number;
  data: Uint8Array;
  /** payload bytes per packet (the last packet may be shorter) */
  mtu: number;
  /** earliest cycle its first packet may go on the wire */
  sendCycle: number;
}

/** A message's packets (a zero-length message is one empty packet). */
export function packetize(m: MessageSpec): SpinPacket[] {
  if (!Number.isInteger(m.mtu) || m.mtu < 1) throw new InputError(`message ${m.msgId}: mtu ${m.mtu} must be a positive integer`);
  const count = Math.max(1, Math.ceil(m.data.length / m.mtu));
  const out: SpinPacket[] = [];
  for (let i = 0; i < count; i++) {
    const offset = i * m.mtu;
    out.push({ msgId: m.msgId, tag: m.tag, source: m.source, index: i, count, offset, msgLen: m.data.length, payload: m.data.subarray(offset, Math.min(m.data.length, offset + m.mtu)), sendCycle: m.sendCycle, arrival: -1 });
  }
  return out;
}

/** The packets of several messages interleaved on the link in send order (stable). */
export function interleave(msgs: readonly MessageSpec[]): SpinPacket[] {
  const all = msgs.flatMap(packetize);
  return all.map((p, i) => ({ p, i })).sort((a, b) => a.p.sendCycle - b.p.sendCycle || a.i - b.i).map((x) => x.p);
}
