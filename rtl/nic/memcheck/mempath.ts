import type { Scope } from '../../kernel/index.ts';
import { type AtcWithHost, buildAtcWithHost } from '../atc/system.ts';
import type { AtcConfig } from '../atc/types.ts';
import type { HostMemConfig } from '../hostmem/hostmem.ts';
import { MemChecker } from './memchecker.ts';
import type { MemCheckConfig } from './types.ts';

export interface MemPath extends AtcWithHost {
  checker: MemChecker;
}

/**
 * The NIC memory path: memory checker -> ATC -> host memory (ATT). Passing checks go on to the ATC;
 * item writes with `refresh` drive the ATC's refresh procedure. Components: `memcheck`, `atc`,
 * `hostmem`. The checker and ATC use the same virtual address width.
 */
export function buildMemPath(parent: Scope, cfg: { checker?: Partial<MemCheckConfig>; atc?: Partial<AtcConfig>; host?: Partial<HostMemConfig> } = {}): MemPath {
  const vaBits = cfg.atc?.vaBits ?? cfg.checker?.vaBits ?? 48;
  const sys = buildAtcWithHost(parent, { ...cfg.atc, vaBits }, cfg.host ?? {});
  const checker = new MemChecker(parent, 'memcheck', { ...cfg.checker, vaBits }, sys.atc);
  return { ...sys, checker };
}
