/**
 * HttpServer_respond102 (spec "Limits"): while a request is still being processed
 * after the interval, an interim `HTTP/1.1 102 Processing` is sent, and again after every further
 * interval, until the final answer. A POS whose HTTP client resets its timeout on any bytes received
 * then waits for a slow answer (a register lock held by a concurrent transaction, a slow disk, a
 * printout) instead of giving up.
 *
 * The attribute of the `def` profile (an instance setting) is read for each request, so a change
 * applies at once:
 * - absent, `NO`, `off`, `false`, `0`: no interim answers (a client that cannot parse 1xx stays safe);
 * - the bare name: every 9000 ms (the spec's default);
 * - a whole number of milliseconds, at least MIN_INTERVAL_MS.
 * HTTP/1.0 clients never get a 1xx answer (RFC 9110, 15.2).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';

export const DEFAULT_INTERVAL_MS = 9000;
export const MIN_INTERVAL_MS = 100;
export const MAX_INTERVAL_MS = 3_600_000;

const OFF = new Set(['no', 'off', 'false', '0']);

/** The interval in ms, null for off, or an error text for a value that is neither. */
export function respond102Of(value: string | undefined): { ms: number | null } | { error: string } {
  const text = value?.trim();
  if (text === undefined || text === '' || OFF.has(text.toLowerCase())) return { ms: null };
  if (text.toLowerCase() === 'true') return { ms: DEFAULT_INTERVAL_MS };
  if (!/^\d{1,7}$/.test(text)) return { error: `"${text}" is no whole number of milliseconds` };
  const ms = Number(text);
  if (ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS) return { error: `${ms} ms is outside ${MIN_INTERVAL_MS}-${MAX_INTERVAL_MS} ms` };
  return { ms };
}

/** The interval in force (a value the profile check would refuse means off). */
function intervalOf(ctx: ServiceContext): number | null {
  const parsed = respond102Of(ctx.profiles.settings('def').raw.get('httpserver_respond102'));
  return 'ms' in parsed ? parsed.ms : null;
}

export function interim102Hook(app: FastifyInstance, ctx: ServiceContext): void {
  app.addHook('onRequest', (req, reply, done) => {
    const ms = intervalOf(ctx);
    const raw = req.raw;
    if (ms === null || raw.httpVersionMajor !== 1 || raw.httpVersionMinor < 1) {
      done();
      return;
    }
    const res = reply.raw;
    const timer = setInterval(() => {
      // the final answer has begun (or the client went away): no more interim answers
      if (res.headersSent || res.writableEnded || res.destroyed) {
        clearInterval(timer);
        return;
      }
      res.writeProcessing();
    }, ms);
    const stop = (): void => clearInterval(timer);
    res.once('finish', stop);
    res.once('close', stop);
    done();
  });
}
