export { AttTable, ATT_DEFAULT_OFFSET, ATT_VP_STRIDE, ATT_MAX_VP } from './att.ts';
export { HostMemory, HOSTMEM_DEFAULTS, READ_TAG_LIMIT, AttRead, type HostMemConfig } from './hostmem.ts';
