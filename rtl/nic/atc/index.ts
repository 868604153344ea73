export { Atc, type AtcMonitor, type FillPorts } from './atc.ts';
export * from './types.ts';
export { MshrFile, MSHR_FREE, MSHR_PENDING, MSHR_DRAINING } from './mshr.ts';
export { RefreshEngine, REFRESH_PROBE, REFRESH_SWEEP, REFRESH_BUFFER, REFRESH_BAD, REFRESH_MODE_NAMES } from './refresh.ts';
export { TrueLru, TreePlru, makeReplacement, type ReplacementState } from './replacement.ts';
export { TagArray } from './tagArray.ts';
export { buildAtcWithHost, type AtcWithHost } from './system.ts';
