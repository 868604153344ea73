/**
 * --help of every command (issue 10 item 15): flag and description never run together, lines fit
 * the help width, and every allowed value of an enumerated flag is printed as a readable list.
 */
import { describe, expect, it } from 'vitest';
import { HELP_WIDTH } from '../../cli/args.ts';
import { loadCommands } from '../../cli/main.ts';
import { cli } from '../lib/cli.ts';


describe('netoffload <command> --help', async () => {
  const cmds = await loadCommands();
  for (const c of cmds) {
    it(`${c.path.join(' ')}: readable flags and enumerations`, async () => {
      const r = await cli([...c.path, '--help']);
      expect(r.code).toBe(0);
      const lines = r.out.split('\n');
      for (const l of lines) if (!(c.details ?? '').includes(l)) expect(l.length, `line too long: '${l}'`).toBeLessThanOrEqual(HELP_WIDTH);
      for (const f of c.flags) {
        const i = lines.findIndex((l) => l.startsWith(`  --${f.name} `) || l === `  --${f.name}`);
        expect(i, `--${f.name} listed`).toBeGreaterThan(-1);
        // the flag (and its placeholder) and the description are separated by at least two spaces,
        // or the description starts on the next line
        expect(lines[i]!, `--${f.name}`).toMatch(/^ {2}--\S+( <[a-z]+>)?( {2,}\S.*)?$/);
        if (f.choices) {
          const rest = lines.slice(i + 1).join(' ');
          const m = /one of: ([^]*?)(?: {2}--|$)/.exec(rest);
          expect(m, `--${f.name} enumerates its values`).not.toBeNull();
          const listed = m![1]!.split(/,\s*/).map((x) => x.trim());
          for (const v of f.choices) expect(listed, `--${f.name} lists ${v}`).toContain(v);
        }
      }
    });
  }
});
