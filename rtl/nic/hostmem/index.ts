export { AttTable, ATT_DEFAULT_OFFSET } from './att.ts';
export { HostMemory, HOSTMEM_DEFAULTS, READ_TAG_LIMIT, packRead, type HostMemConfig } from './hostmem.ts';
