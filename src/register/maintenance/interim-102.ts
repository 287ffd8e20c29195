/**
 * HttpServer_respond102 (spec "Limits", and its attribute table: "default 9000"): while a request is still
 * being processed after the interval, an interim `HTTP/1.1 102 Processing` is sent, and again after every
 * further interval, until the final answer. A POS whose HTTP client resets its timeout on any bytes received
 * then waits for a slow answer (a register lock held by a concurrent transaction, a slow disk, a printout)
 * instead of giving up.
 *
 * The attribute is read for each request from the profile of the register the request is for (its own
 * attribute, else the one of `def`), so a change applies at once:
 * - absent, or the bare name: every 9000 ms (the spec's default);
 * - `NO`, `off`, `false`, `0`: no interim answers (for a client that cannot parse 1xx);
 * - a whole number of milliseconds, at least MIN_INTERVAL_MS.
 * The register is known from the query (`rn`, or TaxId/TL/TT) when the request arrives; a transaction names
 * it in its body, and the route hands it over once decoded (`interimRegister`): the interval is then that
 * register's, still counted from the request's arrival.
 * HTTP/1.0 clients never get a 1xx answer (RFC 9110, 15.2).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { rnOfQuery } from '../register-number.js';

export const DEFAULT_INTERVAL_MS = 9000;
export const MIN_INTERVAL_MS = 100;
export const MAX_INTERVAL_MS = 3_600_000;

const OFF = new Set(['no', 'off', 'false', '0']);

/** The interval in ms, null for off, or an error text for a value that is neither. */
export function respond102Of(value: string | undefined): { ms: number | null } | { error: string } {
  const text = value?.trim();
  if (text === undefined || text === '' || text.toLowerCase() === 'true') return { ms: DEFAULT_INTERVAL_MS };
  if (OFF.has(text.toLowerCase())) return { ms: null };
  if (!/^\d{1,7}$/.test(text)) return { error: `"${text}" is no whole number of milliseconds` };
  const ms = Number(text);
  if (ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS) return { error: `${ms} ms is outside ${MIN_INTERVAL_MS}-${MAX_INTERVAL_MS} ms` };
  return { ms };
}

/** The interval in force for a register (a value the profile check would refuse means the default). */
export function interimIntervalOf(ctx: ServiceContext, rn: string): number | null {
  const parsed = respond102Of(ctx.profiles.settings(rn).raw.get('httpserver_respond102'));
  return 'ms' in parsed ? parsed.ms : DEFAULT_INTERVAL_MS;
}

/** The interim answers of one request: a timer from its arrival, set again when its register becomes known. */
class Interim {
  private timer: NodeJS.Timeout | undefined;
  private last: number;
  private stopped = false;

  constructor(
    private readonly res: ServerResponse,
    private ms: number | null,
  ) {
    this.last = Date.now();
    const stop = (): void => this.stop();
    res.once('finish', stop);
    res.once('close', stop);
    this.schedule();
  }

  /** the interval of the request's register: the next interim answer comes one interval after the last (or the arrival) */
  retime(ms: number | null): void {
    if (ms === this.ms || this.stopped) return;
    this.ms = ms;
    clearTimeout(this.timer);
    this.schedule();
  }

  private schedule(): void {
    if (this.ms === null || this.stopped) return;
    const ms = this.ms;
    this.timer = setTimeout(() => this.beat(), Math.max(0, this.last + ms - Date.now()));
    // a request's timer never keeps the process alive (nor an injected request's, which may never finish)
    this.timer.unref();
  }

  private beat(): void {
    const res = this.res;
    // the final answer has begun (or the client went away): no more interim answers
    if (res.headersSent || res.writableEnded || res.destroyed) {
      this.stop();
      return;
    }
    res.writeProcessing();
    this.last = Date.now();
    this.schedule();
  }

  private stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}

const running = new WeakMap<IncomingMessage, Interim>();

/** The request turned out to be for this register (named in its body): its interval applies from now on. */
export function interimRegister(ctx: ServiceContext, req: IncomingMessage, rn: string): void {
  running.get(req)?.retime(interimIntervalOf(ctx, rn));
}

/** The register a request names in its query, before its body is read; def when it names none (or none that is valid). */
function queryRegister(ctx: ServiceContext, query: unknown): string {
  try {
    return rnOfQuery(ctx, typeof query === 'object' && query !== null ? (query as Record<string, string>) : {});
  } catch {
    return 'def';
  }
}

export function interim102Hook(app: FastifyInstance, ctx: ServiceContext): void {
  app.addHook('onRequest', (req, reply, done) => {
    const raw = req.raw;
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1) {
      running.set(raw, new Interim(reply.raw, interimIntervalOf(ctx, queryRegister(ctx, req.query))));
    }
    done();
  });
}
