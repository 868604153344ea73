/**
 * An HPU core of the organisation its parameters name: 'five-stage' (rtl/hpu/core/core.ts, the
 * default) or 'ri5cy' (rtl/hpu/core/ri5cy.ts, PsPIN's RI5CY / CV32E40P).
 */
import type { Scope } from '../../kernel/index.ts';
import { HPU_CORE_DEFAULTS, HPU_ORGANISATIONS, type HpuCoreBase, type HpuCoreParams, type HpuProgram } from './coreBase.ts';
import { HpuCore } from './core.ts';
import type { HpuMemory } from './memory.ts';
import { Ri5cyCore } from './ri5cy.ts';

export function createHpuCore(parent: Scope, name: string, program: HpuProgram, params: Partial<HpuCoreParams> = {}, memory?: HpuMemory): HpuCoreBase {
  const org = params.organisation ?? HPU_CORE_DEFAULTS.organisation;
  if (org === 'ri5cy') return new Ri5cyCore(parent, name, program, params, memory);
  if (org === 'five-stage') return new HpuCore(parent, name, program, params, memory);
  throw new RangeError(`organisation '${String(org)}': expected one of ${HPU_ORGANISATIONS.join(', ')}`);
}
