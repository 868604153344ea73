/**
 * A small Chrome DevTools Protocol client over Chromium's --remote-debugging-pipe (file
 * descriptors 3 and 4, messages as JSON terminated by a NUL byte): no WebSocket, no library.
 * `Browser.launch()` starts headless Chromium; `page()` opens a tab attached in flat mode, whose
 * `send` and `on` carry that tab's session id.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

type Params = Record<string, unknown>;
interface Message {
  id?: number;
  method?: string;
  params?: Params;
  result?: Params;
  error?: { message: string };
  sessionId?: string;
}

export class CdpError extends Error {}

export class Browser {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Params) => void; reject: (e: Error) => void; method: string }>();
  private readonly listeners: ((m: Message) => void)[] = [];
  private buffer = '';
  private exited: string | null = null;
  stderr = '';

  private constructor(
    private readonly proc: ChildProcess,
    private readonly profile: string,
  ) {
    const out = proc.stdio[4] as Readable;
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nul: number;
      while ((nul = this.buffer.indexOf('\0')) >= 0) {
        const m = JSON.parse(this.buffer.slice(0, nul)) as Message;
        this.buffer = this.buffer.slice(nul + 1);
        this.dispatch(m);
      }
    });
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (d: string) => {
      if (this.stderr.length < 20000) this.stderr += d;
    });
    proc.on('exit', (code, signal) => {
      this.exited = `chromium exited (${signal ?? code})`;
      for (const p of this.pending.values()) p.reject(new CdpError(`${p.method}: ${this.exited}; stderr: ${this.stderr.slice(-2000)}`));
      this.pending.clear();
    });
  }

  /** Start headless Chromium (`binary`, default $CHROMIUM or `chromium`) with a fresh profile. */
  static async launch(binary = process.env.CHROMIUM ?? 'chromium'): Promise<Browser> {
    const profile = mkdtempSync(join(tmpdir(), 'netoffload-chromium-'));
    const args = ['--headless=new', '--remote-debugging-pipe', `--user-data-dir=${profile}`, '--no-first-run', '--no-default-browser-check', '--disable-gpu', '--disable-extensions', '--disable-background-networking', '--disable-sync', '--disable-component-update', '--hide-scrollbars', '--mute-audio', 'about:blank'];
    if (process.getuid?.() === 0) args.unshift('--no-sandbox');
    const proc = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    const b = new Browser(proc, profile);
    await new Promise<void>((resolve, reject) => {
      proc.once('error', (e) => reject(new CdpError(`cannot start ${binary}: ${e.message}`)));
      proc.once('spawn', () => resolve());
    });
    await b.send('Browser.getVersion');
    return b;
  }

  private dispatch(m: Message): void {
    if (m.id !== undefined) {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error) p.reject(new CdpError(`${p.method}: ${m.error.message}`));
      else p.resolve(m.result ?? {});
      return;
    }
    for (const l of this.listeners) l(m);
  }

  send(method: string, params: Params = {}, sessionId?: string): Promise<Params> {
    if (this.exited) return Promise.reject(new CdpError(`${method}: ${this.exited}`));
    const id = this.nextId++;
    const msg: Message = { id, method, params, ...(sessionId ? { sessionId } : {}) };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      (this.proc.stdio[3] as Writable).write(JSON.stringify(msg) + '\0');
    });
  }

  /** A new tab, attached (flat session): its commands and events. */
  async page(): Promise<Page> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    return new Page(this, sessionId, targetId);
  }

  onEvent(l: (m: Message) => void): () => void {
    this.listeners.push(l);
    return () => this.listeners.splice(this.listeners.indexOf(l), 1);
  }

  async close(): Promise<void> {
    if (!this.exited) {
      const gone = new Promise<void>((r) => this.proc.once('exit', () => r()));
      try {
        await this.send('Browser.close');
      } catch {
        this.proc.kill('SIGKILL');
      }
      await Promise.race([gone, new Promise<void>((r) => setTimeout(r, 5000).unref())]);
      if (!this.exited) this.proc.kill('SIGKILL');
    }
    rmSync(this.profile, { recursive: true, force: true });
  }
}

export class Page {
  constructor(
    private readonly browser: Browser,
    readonly sessionId: string,
    readonly targetId: string,
  ) {}

  send(method: string, params: Params = {}): Promise<Params> {
    return this.browser.send(method, params, this.sessionId);
  }

  /** Calls `l(method, params)` for every event of this tab; returns the unsubscribe function. */
  on(l: (method: string, params: Params) => void): () => void {
    return this.browser.onEvent((m) => {
      if (m.sessionId === this.sessionId && m.method) l(m.method, m.params ?? {});
    });
  }

  /** The value of a JavaScript expression evaluated in the page (JSON-serialisable). */
  async evaluate<T>(expression: string): Promise<T> {
    const r = (await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })) as { result: { value: T }; exceptionDetails?: { text: string } };
    if (r.exceptionDetails) throw new CdpError(`evaluate: ${r.exceptionDetails.text}`);
    return r.result.value;
  }

  close(): Promise<Params> {
    return this.browser.send('Target.closeTarget', { targetId: this.targetId });
  }
}
