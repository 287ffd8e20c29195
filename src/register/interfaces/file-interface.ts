/**
 * The file interface: `<folder>/req/<name>.req` (JSON or XML) is registered like POST /register and
 * answered by `<folder>/res/<name>.res` (and `<name>.bmp` with Fis_QR); then the request file goes.
 *
 * Each request is answered once. Order of one answer:
 *   1. the answer is written to `res/.<name>.res.tmp` (and the image to `res/.<name>.bmp.tmp`) and flushed;
 *   2. the image is renamed to `res/<name>.bmp`;
 *   3. `req/<name>.req` is renamed to `req/.<name>.req.done`: from here on the request counts as answered;
 *   4. the answer is renamed to `res/<name>.res`, the folders are flushed;
 *   5. the marker `.done` is removed.
 * At start, a marker left by a stop between 3 and 5 finishes its answer (step 4 again if the temporary
 * file is still there) instead of registering the request again; a temporary answer without a marker
 * is dropped (its request is still in req/ and is answered now). A `.res` that exists when a request
 * of the same name is answered is an answer the POS has read before it reused the name: it is replaced.
 *
 * A file that is empty or not well-formed may still be being written: it is read again after the
 * settle time (1 s), and answered RC BAD only when it has not changed meanwhile.
 */
import { type Stats } from 'node:fs';
import { readFile, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { FiscalError } from '../../shared/errors.js';
import { type Format, bodyFormat } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { fisQrBmp } from '../render/qr/fis-qr.js';
import { type Reply, failureOf, failureReply } from '../respond.js';
import type { LogSink } from '../security/tls-runtime.js';
import { TRANSACTION_LIMIT } from '../security/route-access.js';
import { syncFolder, writeFlushed } from './durable-file.js';
import { FolderWatch, type WatchMode } from './folder-watch.js';
import { type TextRequest, fisCodeOf, looksIncomplete, readRequestText, registerOfRequest, registerText } from './request-text.js';

export interface FileInterfaceOptions {
  /** the folder holding req/ and res/ */
  folder: string;
  /** poll instead of watching natively (a network folder, FileWatch_path) */
  polling?: boolean;
  /** polling interval (ms), 300 */
  pollMs?: number;
  /** with native watching, a look at the folder every so often anyway (ms), 5000 */
  sweepMs?: number;
  /** how long a file that is no document yet must stay unchanged before it is answered RC BAD (ms), 1000 */
  settleMs?: number;
  /** requests registered at the same time, 16 */
  concurrency?: number;
  /** largest request file (bytes), the limit of POST /register */
  maxBytes?: number;
}

const REQ = /^(.+)\.req$/i;
const MARKER = /^\.(.+)\.req\.done$/;
const TEMPORARY = /^\..+\.(?:res|bmp)\.tmp$/;

/** The request files' base names in a listing: files ending in `.req` (any case), not our markers. */
export function requestNames(entries: ReadonlyArray<{ name: string; isFile(): boolean }>): string[] {
  return entries.filter((e) => e.isFile() && REQ.test(e.name)).map((e) => e.name);
}

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

export class FileInterface {
  readonly reqDir: string;
  readonly resDir: string;
  private readonly pollMs: number;
  private readonly sweepMs: number;
  private readonly settleMs: number;
  private readonly concurrency: number;
  private readonly maxBytes: number;
  /** request files queued, being answered or waiting to settle */
  private readonly known = new Set<string>();
  private readonly queue: string[] = [];
  /** files that were no document: their size and time when last read */
  private readonly unsettled = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inflight = new Set<Promise<void>>();
  private active = 0;
  private scanning = false;
  private rescan = false;
  private closed = false;
  private unreadable = false;
  private watch: FolderWatch | undefined;
  private scanDone: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: FileInterfaceOptions,
    private readonly log?: LogSink,
  ) {
    this.reqDir = join(options.folder, 'req');
    this.resDir = join(options.folder, 'res');
    this.pollMs = options.pollMs ?? 300;
    this.sweepMs = options.sweepMs ?? 5000;
    this.settleMs = options.settleMs ?? 1000;
    this.concurrency = Math.max(1, options.concurrency ?? 16);
    this.maxBytes = options.maxBytes ?? TRANSACTION_LIMIT;
  }

  get watchMode(): WatchMode | undefined {
    return this.watch?.mode;
  }

  /** Finishes answers a stop interrupted, then answers what waits in req/ and watches it. */
  async start(): Promise<void> {
    await this.recover();
    this.watch = new FolderWatch(this.reqDir, () => this.kick(), { pollMs: this.pollMs, sweepMs: this.sweepMs, polling: this.options.polling === true }, this.log);
    this.kick();
    this.log?.info({ type: 'FILE_IF', folder: this.options.folder, watch: this.watch.mode }, 'file interface started');
  }

  /** Stops taking files; the requests being answered are answered first. Files not started stay for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    this.watch?.close();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    await this.scanDone;
    while (this.inflight.size) await Promise.all([...this.inflight]);
  }

  private sync(): boolean {
    return !this.ctx.profiles.settings('def').ioNosync;
  }

  private debug(): boolean {
    const v = this.ctx.profiles.settings('def').raw.get('io_debug');
    return v !== undefined && !['false', '0', 'no', 'off'].includes(v.toLowerCase());
  }

  private async recover(): Promise<void> {
    const reqEntries = await readdir(this.reqDir);
    for (const name of reqEntries) {
      const m = MARKER.exec(name);
      if (!m) continue;
      const base = m[1] as string;
      const tmp = join(this.resDir, `.${base}.res.tmp`);
      try {
        await rename(tmp, join(this.resDir, `${base}.res`));
        this.log?.info({ type: 'FILE_IF', name: `${base}.req` }, 'the answer interrupted by a stop was completed');
      } catch (e) {
        if (!isMissing(e)) throw e;
      }
      await syncFolder(this.resDir);
      await unlink(join(this.reqDir, name)).catch(() => undefined);
    }
    for (const name of await readdir(this.resDir)) {
      if (TEMPORARY.test(name)) await unlink(join(this.resDir, name)).catch(() => undefined);
    }
  }

  /** Something may have changed in req/: look (once more, if a look is under way). */
  private kick(): void {
    if (this.closed) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = true;
    this.scanDone = this.scan().finally(() => {
      this.scanning = false;
    });
  }

  private async scan(): Promise<void> {
    do {
      this.rescan = false;
      let names: string[];
      try {
        names = requestNames(await readdir(this.reqDir, { withFileTypes: true }));
      } catch (e) {
        // once, not at every look, until it can be read again
        if (!this.unreadable) this.log?.error({ type: 'FILE_IF', dir: this.reqDir, err: e }, 'the request folder cannot be read');
        this.unreadable = true;
        return;
      }
      this.unreadable = false;
      names.sort();
      for (const name of names) {
        if (this.closed) return;
        if (this.known.has(name)) continue;
        this.known.add(name);
        this.queue.push(name);
      }
      this.pump();
    } while (this.rescan && !this.closed);
  }

  private pump(): void {
    while (!this.closed && this.active < this.concurrency && this.queue.length > 0) {
      const name = this.queue.shift() as string;
      this.active += 1;
      const run = this.handle(name)
        .catch((e: unknown) => {
          // the request stays in req/ and is tried again at the next look
          this.log?.error({ type: 'FILE_IF', name, err: e }, 'the request file could not be answered; tried again');
          this.later(name, this.settleMs);
        })
        .finally(() => {
          this.active -= 1;
          this.inflight.delete(run);
          this.pump();
        });
      this.inflight.add(run);
    }
  }

  /** Takes the file up again after `ms`. */
  private later(name: string, ms: number): void {
    if (this.closed) {
      this.known.delete(name);
      return;
    }
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.closed) return;
      this.queue.push(name);
      this.pump();
    }, ms);
    this.timers.add(t);
  }

  private async handle(name: string): Promise<void> {
    const path = join(this.reqDir, name);
    let st: Stats;
    let bytes: Buffer | undefined;
    try {
      st = await stat(path);
      if (st.size <= this.maxBytes) bytes = await readFile(path);
    } catch (e) {
      if (isMissing(e)) {
        // taken back by the POS (or answered by a look that overlapped)
        this.known.delete(name);
        this.unsettled.delete(name);
        return;
      }
      throw e;
    }
    let reply: Reply;
    let request: TextRequest | undefined;
    if (bytes === undefined) {
      reply = this.refusal(new FiscalError('#TOO_LARGE', { value: this.maxBytes }), 'json');
    } else {
      request = readRequestText(bytes.toString('utf8'));
      if (looksIncomplete(request) || bytes.length !== st.size) {
        const seen = `${st.size}/${st.mtimeMs}/${bytes.length}`;
        if (this.unsettled.get(name) !== seen) {
          // perhaps still being written: read again when it had time to settle
          this.unsettled.set(name, seen);
          this.later(name, this.settleMs);
          return;
        }
      }
      this.unsettled.delete(name);
      reply = await registerText(this.ctx, request);
    }
    await this.answer(name, path, reply, request);
  }

  private refusal(e: FiscalError, format: Format): Reply {
    return failureReply(format, 'TraC', failureOf(e, this.ctx.registers.lang(this.ctx.registers.get('def'))), false);
  }

  /** The image of Fis.Code when the register's profile has Fis_QR; undefined otherwise or when it cannot be made. */
  private image(name: string, reply: Reply, request: TextRequest | undefined): Buffer | undefined {
    if (!request) return undefined;
    const rn = registerOfRequest(this.ctx, request);
    const fisQr = rn === undefined ? undefined : this.ctx.profiles.settings(rn).raw.get('fis_qr');
    if (fisQr === undefined) return undefined;
    const code = fisCodeOf(reply);
    if (!code) return undefined;
    try {
      return fisQrBmp(code, fisQr);
    } catch (e) {
      this.log?.warn({ type: 'FILE_IF', name, err: e }, 'Fis_QR: no image for this answer');
      return undefined;
    }
  }

  private async answer(name: string, path: string, reply: Reply, request: TextRequest | undefined): Promise<void> {
    const base = (REQ.exec(name) as RegExpExecArray)[1] as string;
    const sync = this.sync();
    const bmp = this.image(name, reply, request);
    const resTmp = join(this.resDir, `.${base}.res.tmp`);
    await writeFlushed(resTmp, reply.body, sync);
    if (bmp) {
      const bmpTmp = join(this.resDir, `.${base}.bmp.tmp`);
      await writeFlushed(bmpTmp, bmp, sync);
      await rename(bmpTmp, join(this.resDir, `${base}.bmp`));
    }
    const marker = join(this.reqDir, `.${base}.req.done`);
    await rename(path, marker);
    await rename(resTmp, join(this.resDir, `${base}.res`));
    if (sync) await Promise.all([syncFolder(this.resDir), syncFolder(this.reqDir)]);
    await unlink(marker);
    this.known.delete(name);
    if (this.debug()) {
      const format = request ? bodyFormat(undefined, request.text) : 'json';
      this.log?.info({ type: 'FILE_IF', name, status: reply.status, format, bmp: bmp !== undefined }, 'request file answered');
    }
  }
}
