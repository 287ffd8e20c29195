/**
 * The file interface: `<folder>/req/<name>.req` (JSON or XML) is registered like POST /register and
 * answered by `<folder>/res/<name>.res` (and `<name>.bmp` with Fis_QR); then the request file goes.
 *
 * Each request is registered at most once, whatever fails after it was taken:
 *   1. once the file is whole, `req/<name>.req` is claimed: renamed to `req/.<name>.req.work`, a name the
 *      look at req/ ignores, so nothing can take it up a second time;
 *   2. the work file is read and registered; the Reply is kept in memory;
 *   3. the answer is written to `res/.<name>.res.tmp` (and the image to `res/.<name>.bmp.tmp`) and flushed;
 *   4. the image is renamed to `res/<name>.bmp`;
 *   5. the work file is renamed to `req/.<name>.req.done`: from here on the request counts as answered;
 *   6. the answer is renamed to `res/<name>.res`, the folders are flushed;
 *   7. the marker `.done` is removed.
 * When a step from 3 on fails (disk full, no right to write, a dropped network share), only steps 3-7 are
 * tried again with the Reply in hand (after 1 s, 2 s, 4 s ... at most every 30 s), never the registration;
 * a stop makes one last attempt.
 *
 * At start, a marker `.done` finishes its answer (step 6 again if the temporary file is still there) instead
 * of registering the request again. A work file left by a stop between 1 and 5 is registered now: if it was
 * registered before the stop, a request with a TN is answered #DUPLICATE with the original's SQ and Fis (so
 * it is still answered exactly once), one without TN becomes a second record, as an HTTP retry would. A
 * temporary answer without a marker is dropped (its request is answered now). A `.res` that exists when a
 * request of the same name is answered is an answer the POS has read before it reused the name: it is
 * replaced. A request whose name is still being answered waits until that answer is out.
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
const WORK = /^\.(.+)\.req\.work$/;
const MARKER = /^\.(.+)\.req\.done$/;
const TEMPORARY = /^\.(.+)\.(res|bmp)\.tmp$/;
/** the longest wait between two attempts to write an answer (ms) */
const RETRY_MAX_MS = 30_000;

/** The request files' base names in a listing: files ending in `.req` (any case), not our work files and markers. */
export function requestNames(entries: ReadonlyArray<{ name: string; isFile(): boolean }>): string[] {
  return entries.filter((e) => e.isFile() && REQ.test(e.name)).map((e) => e.name);
}

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function baseOf(name: string): string {
  return (REQ.exec(name) as RegExpExecArray)[1] as string;
}

/** A request taken out of the look at req/, from its claim until its answer is out. */
interface Job {
  /** req/<base>.req, res/<base>.res */
  base: string;
  /**
   * 'claimed': `req/.<base>.req.work` holds the request, not registered by this run;
   * 'registered': the Reply is in hand, its answer not yet out;
   * 'marked': `req/.<base>.req.done` says the answer is in `res/.<base>.res.tmp` (or already in place).
   */
  phase: 'claimed' | 'registered' | 'marked';
  reply?: Reply;
  request?: TextRequest;
  image?: Buffer;
  /** failed attempts in a row */
  failures: number;
}

export class FileInterface {
  readonly reqDir: string;
  readonly resDir: string;
  private readonly pollMs: number;
  private readonly sweepMs: number;
  private readonly settleMs: number;
  private readonly concurrency: number;
  private readonly maxBytes: number;
  /** request files queued, being looked at or waiting to settle */
  private readonly known = new Set<string>();
  private readonly queue: string[] = [];
  /** claimed requests by base name, until their answer is out */
  private readonly jobs = new Map<string, Job>();
  /** jobs to be taken up (recovered at start, or to be tried again) */
  private readonly ready: Job[] = [];
  /** base names of files being claimed right now */
  private readonly claiming = new Set<string>();
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

  /** Takes up what a stop left (markers, work files), then answers what waits in req/ and watches it. */
  async start(): Promise<void> {
    await this.recover();
    this.watch = new FolderWatch(this.reqDir, () => this.kick(), { pollMs: this.pollMs, sweepMs: this.sweepMs, polling: this.options.polling === true }, this.log);
    this.kick();
    this.log?.info({ type: 'FILE_IF', folder: this.options.folder, watch: this.watch.mode }, 'file interface started');
  }

  /**
   * Stops taking files; the requests being answered are answered first, and an answer waiting to be tried
   * again gets one last attempt. Files not started stay for the next start.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.watch?.close();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    this.ready.length = 0;
    await this.scanDone;
    while (this.inflight.size) await Promise.all([...this.inflight]);
    for (const job of [...this.jobs.values()]) {
      // not registered yet: its work file is registered at the next start
      if (job.phase === 'claimed') continue;
      try {
        await this.answer(job);
        this.finished(job);
      } catch (e) {
        const left = job.phase === 'marked' ? `.${job.base}.req.done` : `.${job.base}.req.work`;
        this.log?.error({ type: 'FILE_IF', name: `${job.base}.req`, err: e }, `the answer could not be written before the stop; req/${left} is taken up at the next start`);
      }
    }
  }

  private sync(): boolean {
    return !this.ctx.profiles.settings('def').ioNosync;
  }

  private debug(): boolean {
    const v = this.ctx.profiles.settings('def').raw.get('io_debug');
    return v !== undefined && !['false', '0', 'no', 'off'].includes(v.toLowerCase());
  }

  private workPath(base: string): string {
    return join(this.reqDir, `.${base}.req.work`);
  }

  private markerPath(base: string): string {
    return join(this.reqDir, `.${base}.req.done`);
  }

  /** Markers finish their answers, work files are registered (see the top of this file); stray temporary answers go. */
  private async recover(): Promise<void> {
    const reqEntries = await readdir(this.reqDir);
    for (const name of reqEntries) {
      const base = MARKER.exec(name)?.[1];
      if (base !== undefined) this.jobs.set(base, { base, phase: 'marked', failures: 0 });
    }
    for (const name of reqEntries) {
      const base = WORK.exec(name)?.[1];
      if (base === undefined) continue;
      if (this.jobs.has(base)) {
        // cannot happen by the order of the steps; the marker's answer is the one the POS may have read
        this.log?.warn({ type: 'FILE_IF', name }, 'a work file beside the marker of the same name is left alone');
        continue;
      }
      this.jobs.set(base, { base, phase: 'claimed', failures: 0 });
      this.log?.warn({ type: 'FILE_IF', name: `${base}.req` }, 'a request taken before a stop and not answered is registered now (with a TN: #DUPLICATE if it was registered)');
    }
    for (const name of await readdir(this.resDir)) {
      const m = TEMPORARY.exec(name);
      if (!m) continue;
      // the temporary answer of a marker is the answer to complete
      if (m[2] === 'res' && this.jobs.get(m[1] as string)?.phase === 'marked') continue;
      await unlink(join(this.resDir, name)).catch(() => undefined);
    }
    this.ready.push(...this.jobs.values());
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
        this.pump();
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
    while (!this.closed && this.active < this.concurrency) {
      const job = this.ready.shift();
      const name = job ? undefined : this.queue.shift();
      if (!job && name === undefined) return;
      this.active += 1;
      const run = (job ? this.advance(job) : this.take(name as string)).finally(() => {
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

  /** Tries a job again after a wait that doubles with each failure. */
  private retry(job: Job): void {
    // on close, the last attempt is made by close()
    if (this.closed) return;
    const ms = Math.min(this.settleMs * 2 ** Math.min(job.failures - 1, 10), RETRY_MAX_MS);
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.closed) return;
      this.ready.push(job);
      this.pump();
    }, ms);
    this.timers.add(t);
  }

  /** A request file in req/: when it is whole, claims it and answers it. Nothing is registered before the claim. */
  private async take(name: string): Promise<void> {
    const base = baseOf(name);
    if (this.jobs.has(base) || this.claiming.has(base)) {
      // the answer to an earlier request of this name is not out yet
      this.later(name, this.settleMs);
      return;
    }
    this.claiming.add(base);
    try {
      if (!(await this.whole(name))) return;
      try {
        await rename(join(this.reqDir, name), this.workPath(base));
      } catch (e) {
        if (isMissing(e)) {
          this.forget(name);
          return;
        }
        throw e;
      }
    } catch (e) {
      // the request stays in req/ and is tried again at the next look
      this.log?.error({ type: 'FILE_IF', name, err: e }, 'the request file could not be taken; tried again');
      this.later(name, this.settleMs);
      return;
    } finally {
      this.claiming.delete(base);
    }
    this.forget(name);
    const job: Job = { base, phase: 'claimed', failures: 0 };
    this.jobs.set(base, job);
    await this.advance(job);
  }

  private forget(name: string): void {
    this.known.delete(name);
    this.unsettled.delete(name);
  }

  /**
   * Whether the file is ready to be claimed: too large (refused later), or a whole document. A file that is
   * no document is looked at again after the settle time and taken when it has not changed meanwhile.
   */
  private async whole(name: string): Promise<boolean> {
    const path = join(this.reqDir, name);
    let st: Stats;
    let bytes: Buffer;
    try {
      st = await stat(path);
      if (st.size > this.maxBytes) return true;
      bytes = await readFile(path);
    } catch (e) {
      if (isMissing(e)) {
        // taken back by the POS
        this.forget(name);
        return false;
      }
      throw e;
    }
    if (looksIncomplete(readRequestText(bytes.toString('utf8'))) || bytes.length !== st.size) {
      const seen = `${st.size}/${st.mtimeMs}/${bytes.length}`;
      if (this.unsettled.get(name) !== seen) {
        // perhaps still being written: read again when it had time to settle
        this.unsettled.set(name, seen);
        this.later(name, this.settleMs);
        return false;
      }
    }
    return true;
  }

  /** Takes a claimed job to its answer; what fails after the registration is tried again without registering. */
  private async advance(job: Job): Promise<void> {
    try {
      if (job.phase === 'claimed' && !(await this.registerClaimed(job))) return;
      await this.answer(job);
      if (job.failures > 0) this.log?.info({ type: 'FILE_IF', name: `${job.base}.req`, attempts: job.failures + 1 }, 'the answer was written after all');
      this.finished(job);
    } catch (e) {
      job.failures += 1;
      if (job.failures === 1 || job.failures % 20 === 0) {
        const what = job.phase === 'claimed' ? 'the request file could not be read; tried again' : 'the answer could not be written; tried again (the request is not registered again)';
        this.log?.error({ type: 'FILE_IF', name: `${job.base}.req`, phase: job.phase, attempts: job.failures, err: e }, what);
      }
      this.retry(job);
    }
  }

  /** Reads the work file and registers it; false when it is gone (removed by hand). */
  private async registerClaimed(job: Job): Promise<boolean> {
    const work = this.workPath(job.base);
    let st: Stats;
    let bytes: Buffer | undefined;
    try {
      st = await stat(work);
      if (st.size <= this.maxBytes) bytes = await readFile(work);
    } catch (e) {
      if (!isMissing(e)) throw e;
      this.log?.warn({ type: 'FILE_IF', name: `${job.base}.req` }, 'the claimed request file is gone; not answered');
      this.jobs.delete(job.base);
      return false;
    }
    if (bytes === undefined) {
      job.reply = this.refusal(new FiscalError('#TOO_LARGE', { value: this.maxBytes }), 'json');
    } else {
      const request = readRequestText(bytes.toString('utf8'));
      job.request = request;
      job.reply = await registerText(this.ctx, request);
      const image = this.image(job.base, job.reply, request);
      if (image) job.image = image;
    }
    job.phase = 'registered';
    return true;
  }

  private finished(job: Job): void {
    this.jobs.delete(job.base);
    if (this.debug() && job.reply) {
      const format = job.request ? bodyFormat(undefined, job.request.text) : 'json';
      this.log?.info({ type: 'FILE_IF', name: `${job.base}.req`, status: job.reply.status, format, bmp: job.image !== undefined }, 'request file answered');
    }
  }

  private refusal(e: FiscalError, format: Format): Reply {
    return failureReply(format, 'TraC', failureOf(e, this.ctx.registers.lang(this.ctx.registers.get('def'))), false);
  }

  /** The image of Fis.Code when the register's profile has Fis_QR; undefined otherwise or when it cannot be made. */
  private image(base: string, reply: Reply, request: TextRequest): Buffer | undefined {
    const rn = registerOfRequest(this.ctx, request);
    const fisQr = rn === undefined ? undefined : this.ctx.profiles.settings(rn).raw.get('fis_qr');
    if (fisQr === undefined) return undefined;
    const code = fisCodeOf(reply);
    if (!code) return undefined;
    try {
      return fisQrBmp(code, fisQr);
    } catch (e) {
      this.log?.warn({ type: 'FILE_IF', name: `${base}.req`, err: e }, 'Fis_QR: no image for this answer');
      return undefined;
    }
  }

  /** Steps 3-7 from where the job stands; may be repeated after any failure. */
  private async answer(job: Job): Promise<void> {
    const base = job.base;
    const sync = this.sync();
    const resTmp = join(this.resDir, `.${base}.res.tmp`);
    const marker = this.markerPath(base);
    if (job.phase === 'registered') {
      await writeFlushed(resTmp, (job.reply as Reply).body, sync);
      if (job.image) {
        const bmpTmp = join(this.resDir, `.${base}.bmp.tmp`);
        await writeFlushed(bmpTmp, job.image, sync);
        await rename(bmpTmp, join(this.resDir, `${base}.bmp`));
      }
      await rename(this.workPath(base), marker);
      job.phase = 'marked';
    } else if (job.reply) {
      // marked by this run and tried again: the temporary answer is written anew (it may be gone)
      await writeFlushed(resTmp, job.reply.body, sync);
    }
    try {
      await rename(resTmp, join(this.resDir, `${base}.res`));
      if (!job.reply) this.log?.info({ type: 'FILE_IF', name: `${base}.req` }, 'the answer interrupted by a stop was completed');
    } catch (e) {
      // a marker from before the start without its temporary answer: that answer is in place already
      if (!isMissing(e) || job.reply) throw e;
    }
    if (sync) await Promise.all([syncFolder(this.resDir), syncFolder(this.reqDir)]);
    await unlink(marker).catch((e: unknown) => {
      if (!isMissing(e)) throw e;
    });
  }
}
