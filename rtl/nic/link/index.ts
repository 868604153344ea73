export * from './packet.ts';
export { NetLink, LINK_DEFAULTS, linkConfig, type LinkConfig } from './link.ts';
