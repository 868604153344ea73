#!/usr/bin/env node
// The `netoffload` bin: runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';

register();
const { runCli, stdio } = await import('./main.ts');
process.exitCode = await runCli(process.argv.slice(2), stdio);
