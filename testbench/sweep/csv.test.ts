/**
 * The CSV beside a sweep's results (experiments/sweep/results.ts toCsv): one column per flattened
 * field in the order first met, RFC 4180 quoting, empty cells for fields a point lacks.
 */
import { describe, expect, it } from 'vitest';
import { csvPathFor, toCsv, type ResultLine } from '../../experiments/sweep/results.ts';

const line = (index: number, params: ResultLine['params'], exit: number, result: unknown, error?: string): ResultLine => ({ id: index.toString(16).padStart(16, '0'), index, command: 'x y', params, exit, result, ...(error === undefined ? {} : { error }) });

describe('sweep CSV', () => {
  it('flattens objects and arrays to dotted columns, quotes commas, quotes and newlines, and leaves missing fields empty', () => {
    const csv = toCsv([
      line(0, { ways: [1, 2], trace: 'zipf' }, 0, { rows: [{ hit: 0.5 }, { hit: 0.25 }], label: 'a,b', ok: true, none: null }),
      line(1, { ways: [4], extra: true }, 1, { rows: [], label: 'say "hi"\nthere' }, 'failed, badly'),
    ]);
    expect(csv).toBe(
      [
        'id,index,command,params.ways,params.trace,params.extra,exit,error,result.rows.0.hit,result.rows.1.hit,result.label,result.ok,result.none,result.rows',
        '0000000000000000,0,x y,"1,2",zipf,,0,,0.5,0.25,"a,b",true,,',
        '0000000000000001,1,x y,4,,true,1,"failed, badly",,,"say ""hi""\nthere",,,',
        '',
      ].join('\n'),
    );
  });

  it('FILE.jsonl gets FILE.csv; any other name gets .csv appended', () => {
    expect(csvPathFor('out/a.jsonl')).toBe('out/a.csv');
    expect(csvPathFor('out/a.json')).toBe('out/a.json.csv');
  });
});
