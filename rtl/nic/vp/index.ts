export * from './regmap.ts';
export { VpRegisterFile, type HdqWrite, type VpError } from './regfile.ts';
