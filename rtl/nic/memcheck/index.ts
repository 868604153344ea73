export { MemChecker, type AtcPorts } from './memchecker.ts';
export * from './types.ts';
export { buildMemPath, type MemPath } from './mempath.ts';
