import type { Scope } from '../../kernel/index.ts';
import { type PcieConfig, pcieConfig, type PcieTiming, pcieTiming } from './config.ts';
import { PcieDirection } from './direction.ts';
import { PcieEndpoint } from './endpoint.ts';
import { HostBytes } from './memory.ts';
import { RootComplex } from './rootComplex.ts';

export interface Pcie {
  cfg: PcieConfig;
  timing: PcieTiming;
  /** NIC to host: posted writes (A), read requests (B) */
  up: PcieDirection;
  /** host to NIC: PIO writes (A), completions (B) */
  down: PcieDirection;
  host: RootComplex;
  ep: PcieEndpoint;
  mem: HostBytes;
}

/**
 * A NIC's PCIe attachment: endpoint, the two link directions, the root complex and host memory.
 * Components: `<name>.up`, `<name>.down`, `<name>.host`, `<name>.ep`. Throws RangeError naming a bad
 * parameter.
 */
export function buildPcie(parent: Scope, name: string, p: Partial<PcieConfig> = {}, mem?: HostBytes): Pcie {
  const cfg = pcieConfig(p);
  const timing = pcieTiming(cfg);
  const scope: Scope = { sim: parent.sim, path: parent.path === '' ? name : `${parent.path}.${name}` };
  const oh = { req: cfg.reqOverhead, cpl: cfg.cplOverhead };
  const up = new PcieDirection(scope, 'up', timing, { headers: cfg.hostPostedHeaders, data: cfg.hostPostedData }, { headers: cfg.hostNonPostedHeaders, data: 0 }, oh, cfg.creditReturnCycles);
  const down = new PcieDirection(scope, 'down', timing, { headers: cfg.nicPostedHeaders, data: cfg.nicPostedData }, { headers: -1, data: 0 }, oh, cfg.creditReturnCycles);
  const m = mem ?? new HostBytes();
  const host = new RootComplex(scope, 'host', cfg, timing, m, up, down);
  const ep = new PcieEndpoint(scope, 'ep', cfg, up, down);
  return { cfg, timing, up, down, host, ep, mem: m };
}
