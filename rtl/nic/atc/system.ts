import type { Scope } from '../../kernel/index.ts';
import { AttTable } from '../hostmem/att.ts';
import { type HostMemConfig, HostMemory } from '../hostmem/hostmem.ts';
import { Atc } from './atc.ts';
import type { AtcConfig } from './types.ts';

export interface AtcWithHost {
  atc: Atc;
  host: HostMemory;
  att: AttTable;
}

/**
 * An ATC wired to its host-memory model (the ATT behind a PCIe read latency). The ATT uses the
 * ATC's address widths. Names: `<prefix>atc` and `<prefix>hostmem`.
 */
export function buildAtcWithHost(parent: Scope, atcCfg: Partial<AtcConfig> = {}, hostCfg: Partial<HostMemConfig> = {}, prefix = ''): AtcWithHost {
  const vaBits = atcCfg.vaBits ?? 48;
  const paBits = atcCfg.paBits ?? 48;
  const att = new AttTable(vaBits, paBits);
  const host = new HostMemory(parent, `${prefix}hostmem`, { ...hostCfg, vaBits, paBits }, att);
  const atc = new Atc(parent, `${prefix}atc`, atcCfg, host);
  return { atc, host, att };
}
