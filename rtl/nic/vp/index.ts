export * from './regmap.ts';
export { VpRegisterFile, type HdqWrite, type VpError } from './regfile.ts';
export { Hdq, HE_BAD_SIZE, HE_FULL, HE_NAMES, HE_SEQUENCE, type HdqDesc } from './hdq.ts';
export { Readout, type DispatchedDesc, type QueuedDesc } from './readout.ts';
