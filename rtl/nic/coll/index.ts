export { childPut, COLL_STATE_NAMES, CollExpander } from './collExpander.ts';
