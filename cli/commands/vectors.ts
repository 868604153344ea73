import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { bool, checkOutputPath, type CommandSpec, num, optStr, str, UsageError } from '../args.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import { parse, serialize } from '../../vectors/format.ts';
import { exportTable } from '../../vectors/readmemh.ts';
import { checkFile, generateFile, getBlock, loadBlocks } from '../../vectors/registry.ts';
import { withProgress } from '../progress.ts';

function readVectorFile(path: string) {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parse(text, path);
}

export const commands: CommandSpec[] = [
  {
    path: ['vectors', 'gen'],
    summary: 'generate golden vectors for a block from a seed',
    flags: [
      { name: 'block', type: 'string', required: true, help: 'hardware block (netoffload vectors list)' },
      { name: 'count', type: 'int', required: true, min: 0, max: 1_000_000, help: 'number of transactions' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'generator seed' },
      { name: 'out', type: 'string', required: true, output: true, help: 'output .jsonl file' },
      { name: 'config', type: 'string', help: 'block configuration as a JSON object (defaults for missing fields)' },
    ],
    async run(f, io) {
      const block = await getBlock(str(f, 'block'));
      let raw = block.configToJson(block.defaultConfig());
      const text = optStr(f, 'config');
      if (text !== undefined) {
        let over: unknown;
        try {
          over = JSON.parse(text);
        } catch (e) {
          throw new UsageError(`--config: not valid JSON (${(e as Error).message})`);
        }
        if (typeof over !== 'object' || over === null || Array.isArray(over)) throw new UsageError('--config must be a JSON object');
        raw = { ...raw, ...(over as object) };
      }
      const cfg = block.parseConfig(raw);
      const count = num(f, 'count');
      const file = withProgress(io, { label: 'vectors gen', total: count, unit: `${block.name} records` }, (update) => generateFile(block, cfg, num(f, 'seed'), count, update));
      writeFileSync(str(f, 'out'), serialize(file));
      if (bool(f, 'json')) io.out(JSON.stringify({ block: block.name, count: file.records.length, seed: file.header.seed, out: str(f, 'out') }) + '\n');
      else io.out(`wrote ${file.records.length} ${block.name} vectors (seed ${file.header.seed}) to ${str(f, 'out')}\n`);
      return 0;
    },
  },
  {
    path: ['vectors', 'check'],
    summary: 'replay a vector file through the RTL and compare',
    positional: 'file',
    details: 'Prints "N passed, N failed" and the first mismatches; exits 1 on any failure.',
    flags: [
      { name: 'file', type: 'string', required: true, help: 'vector file (or give it as the only argument)' },
      { name: 'show', type: 'int', default: 5, min: 0, help: 'how many failing records to print' },
    ],
    async run(f, io) {
      const path = str(f, 'file');
      const file = readVectorFile(path);
      const res = await checkFile(file);
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ file: path, block: file.header.block, passed: res.passed, failed: res.failed, failures: res.failures.slice(0, num(f, 'show')) }) + '\n');
      } else {
        io.out(`${res.passed} passed, ${res.failed} failed\n`);
        for (const o of res.failures.slice(0, num(f, 'show'))) io.out(`  record ${o.id}: ${o.mismatches.join('; ')}\n`);
      }
      return res.failed > 0 ? 1 : 0;
    },
  },
  {
    path: ['vectors', 'export'],
    summary: 'export a vector file to Verilog $readmemh tables plus field layouts',
    positional: 'file',
    flags: [
      { name: 'format', type: 'string', default: 'readmemh', choices: ['readmemh'], help: 'export format' },
      { name: 'file', type: 'string', required: true, help: 'vector file (or give it as the only argument)' },
      { name: 'out', type: 'string', output: 'base', help: 'output base path (default: the input path without .jsonl)' },
    ],
    async run(f, io) {
      const path = str(f, 'file');
      const base = optStr(f, 'out') ?? path.replace(/\.jsonl$/, '');
      if (optStr(f, 'out') === undefined) checkOutputPath('output base (the input path without .jsonl)', base, 'base');
      const file = readVectorFile(path);
      const block = await getBlock(file.header.block);
      block.parseConfig(file.header.config);
      const written: { table: string; mem: string; layout: string; rows: number; width: number }[] = [];
      for (const t of block.tables) {
        const mem = `${base}.${t.name}.mem`;
        const layout = `${base}.${t.name}.layout`;
        const ex = exportTable(t, file, basename(layout));
        writeFileSync(mem, ex.memText);
        writeFileSync(layout, ex.layoutText);
        written.push({ table: t.name, mem, layout, rows: ex.rows, width: ex.width });
      }
      if (bool(f, 'json')) io.out(JSON.stringify({ file: path, tables: written }) + '\n');
      else for (const w of written) io.out(`${basename(w.mem)}: ${w.rows} rows x ${w.width} bits (layout in ${basename(w.layout)})\n`);
      return 0;
    },
  },
  {
    path: ['vectors', 'list'],
    summary: 'list the blocks that provide vectors',
    flags: [],
    async run(f, io) {
      const blocks = await loadBlocks();
      if (bool(f, 'json')) io.out(JSON.stringify([...blocks.values()].map((b) => ({ block: b.name, generator_version: b.generatorVersion, description: b.description }))) + '\n');
      else for (const b of blocks.values()) io.out(`${b.name.padEnd(12)} ${b.description} (generator ${b.generatorVersion})\n`);
      return 0;
    },
  },
];
