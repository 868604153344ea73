export { PCIE_DEFAULTS, pcieConfig, pcieTiming, peakBytesPerSecond, type PcieConfig, type PcieTiming } from './config.ts';
export { PcieDirection, type ClassCredits } from './direction.ts';
export { PcieEndpoint, DMA_MAX_LEN } from './endpoint.ts';
export { HostBytes } from './memory.ts';
export { RootComplex } from './rootComplex.ts';
export { buildPcie, type Pcie } from './link.ts';
export * from './tlp.ts';
export { ReadMux } from './readMux.ts';
