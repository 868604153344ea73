export * from './format.ts';
export { encodeDescriptor } from './encode.ts';
export { decodeDescriptor, type DecodeResult } from './decode.ts';
