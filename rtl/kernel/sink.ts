import { closeSync, openSync, writeSync } from 'node:fs';

/** Where a tracer writes text. */
export interface TextSink {
  write(text: string): void;
  close(): void;
}

/** Streams to a file through a 64 KiB buffer (a long trace never sits in memory). */
export function fileSink(path: string): TextSink {
  const fd = openSync(path, 'w');
  let parts: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (parts.length > 0) writeSync(fd, parts.join(''));
    parts = [];
    size = 0;
  };
  return {
    write(text: string): void {
      parts.push(text);
      size += text.length;
      if (size >= 65536) flush();
    },
    close(): void {
      flush();
      closeSync(fd);
    },
  };
}

/** Keeps everything in memory (tests, small traces). */
export class MemorySink implements TextSink {
  private readonly parts: string[] = [];
  closed = false;
  write(text: string): void {
    this.parts.push(text);
  }
  close(): void {
    this.closed = true;
  }
  text(): string {
    return this.parts.join('');
  }
}

/**
 * Component-path selection for tracing. A pattern matches a path when it equals the path, is a
 * prefix ending at a '.' boundary, or matches as a glob ('*' any characters within one path
 * segment, '**' any characters across segments).
 */
export function pathSelected(patterns: readonly string[] | undefined, path: string): boolean {
  if (patterns === undefined) return true;
  for (const p of patterns) {
    if (p === path || path.startsWith(p + '.')) return true;
    if (p.includes('*') && globToRegExp(p).test(path)) return true;
  }
  return false;
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        re += '.*';
        i++;
      } else re += '[^.]*';
    } else re += ch.replace(/[\\^$+?.()|[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${re}(\\..*)?$`);
}
