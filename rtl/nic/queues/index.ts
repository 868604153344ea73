export * from './types.ts';
export { QueueEngine } from './queueEngine.ts';
