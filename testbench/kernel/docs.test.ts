import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run } from '../../docs/examples/accumulator.ts';

describe('docs/kernel.md example', () => {
  it('is the tested file, verbatim, and produces what the text says', () => {
    const doc = readFileSync(new URL('../../docs/kernel.md', import.meta.url), 'utf8');
    const src = readFileSync(new URL('../../docs/examples/accumulator.ts', import.meta.url), 'utf8');
    expect(doc).toContain('```ts\n' + src + '```');
    const r = run();
    expect(r).toEqual({ cycle: 16, sum: 55, evaluations: 27 });
    expect(doc).toContain('`{ cycle: 16, sum: 55, evaluations: 27 }`');
  });
});
