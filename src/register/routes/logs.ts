/**
 * GET /log (the lines a client has not seen, as readable text) and GET /backup/log (the log files as a
 * zip, cut to a period). Both open (the spec: "/backup/log needs no permission"): the log holds no
 * business data (logs/service-log.ts). Also, on every answer: a changed profile is applied to the log
 * (Log_debug, Log_length, Log_remove, no restart), and with Log_debug each request is logged (method,
 * path without the query, status, time).
 */
import type { FastifyInstance } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import { formatLocalDateTime } from '../esr/datetime.js';
import type { ServiceContext } from '../context.js';
import { rnOfQuery } from '../register-number.js';
import { humanLine } from '../logs/log-format.js';
import { logPeriodOf } from '../logs/log-period.js';
import { LogSnapshot } from '../logs/log-snapshot.js';
import { IidMarks, linesAfter } from '../logs/log-tail.js';
import { type LogFilter, logZip } from '../logs/log-zip.js';
import { logDirOf, serviceLogOf } from '../logs/service-log.js';
import { formatOf, guarded, queryOf, registerOf, sendDoc } from './http.js';

const MAX_IID = 200;

/** A file name from query text: letters, digits, `$`, `-`, `_`, `.`; anything else `-`. */
function namePart(text: string): string {
  return text.replace(/[^A-Za-z0-9$_.-]/g, '-');
}

export function logRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const marks = new IidMarks();

  // Fastify gives each request a logger at the level of the start; Log_debug set later reaches it here
  app.addHook('onRequest', (req, _res, done) => {
    const root = serviceLogOf(ctx)?.logger;
    if (root && req.log.level !== root.level) req.log.level = root.level;
    done();
  });

  app.addHook('onResponse', (req, res, done) => {
    const log = serviceLogOf(ctx);
    if (log) {
      // a POST /profile just answered may have changed Log_*: in force from here on
      log.refresh();
      if (req.log.level !== log.logger.level) req.log.level = log.logger.level;
    }
    // the PROFILE line "profile changed" is written by saveProfile (save-profile.ts), for the API and the page
    if (req.log.level === 'debug' || req.log.level === 'trace') {
      req.log.debug({ type: 'HTTP', method: req.method, path: req.url.split('?')[0] ?? '', status: res.statusCode, ms: Math.round(res.elapsedTime) }, 'request');
    }
    done();
  });

  app.get('/log', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const iid = queryOf(req).iid;
      if (iid !== undefined && iid.length > MAX_IID) throw new FiscalError('#INVALID_VALUE', { field: 'iid', detail: `at most ${MAX_IID} characters` });
      const snapshot = LogSnapshot.open(logDirOf(ctx.dataDir));
      let lines: string[];
      try {
        const read = linesAfter(snapshot, iid ? marks.get(iid) : undefined);
        if (iid) marks.set(iid, read.mark);
        lines = read.lines;
      } finally {
        snapshot.close();
      }
      return sendDoc(res, formatOf(req), 'Log', { Lines: lines.map(humanLine) });
    }),
  );

  app.get('/backup/log', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const q = queryOf(req);
      const period = logPeriodOf(q);
      const filter: LogFilter = { ...period };
      let rn = 'def';
      // the instance (def) is every line, also before its first transaction; a register must exist
      if ((q.rn || q.tl || q.tt || q.taxid) && rnOfQuery(ctx, q) !== 'def') {
        rn = (await registerOf(ctx, q)).state.rn;
        filter.rn = rn;
      }
      const now = ctx.clock.now();
      const { zip, done } = await logZip(logDirOf(ctx.dataDir), filter, now);
      zip.on('end', done);
      zip.on('error', (e) => {
        done();
        req.log.error({ err: e }, 'log backup failed while streaming');
      });
      res.raw.on('close', done);
      const name = `efr-log_${namePart(rn)}_${namePart(q.from || 'start')}_${namePart(q.till || formatLocalDateTime(now).slice(0, 10))}.zip`;
      return res.code(200).type('application/zip').header('content-disposition', `attachment; filename="${name}"`).header('cache-control', 'no-store').send(zip);
    }),
  );
}
