/**
 * Builds the Fastify app from its route plugins (no listen here). Every body arrives as text
 * and is decoded by the codec; query parameter names are case-insensitive; no error ever
 * leaves as a 5xx with a stack trace.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyBaseLogger } from 'fastify';
import { FiscalError } from '../shared/errors.js';
import type { ServiceContext } from './context.js';
import { failureOf, failureReply } from './respond.js';
import { configRoutes } from './routes/config.js';
import { formatOf, send } from './routes/http.js';
import { transactionRoutes } from './routes/transactions.js';

export const BODY_LIMIT = 8 * 1024 * 1024;

/** Query strings with lower-cased names; a repeated name keeps its first value. */
export function parseQuery(qs: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(qs)) {
    const key = k.toLowerCase();
    if (!(key in out)) out[key] = v;
  }
  return out;
}

export function buildApp(ctx: ServiceContext, logger?: FastifyBaseLogger): FastifyInstance {
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    routerOptions: { querystringParser: parseQuery, caseSensitive: true, ignoreTrailingSlash: true },
    return503OnClosing: false,
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error, req, res) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    const code = (error as { code?: string }).code;
    let e: unknown = error;
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') e = new FiscalError('#TOO_LARGE', { value: BODY_LIMIT });
    else if (status < 500) e = new FiscalError('#MALFORMED', { format: 'HTTP request', detail: error instanceof Error ? error.message : String(error) });
    else req.log.error({ err: error }, 'unexpected error');
    const failure = failureOf(e, ctx.registers.lang(ctx.registers.get('def')));
    return send(res, failureReply(formatOf(req), 'Result', failure, false));
  });

  app.setNotFoundHandler((req, res) => {
    const failure = failureOf(new FiscalError('#NOT_FOUND', { value: `${req.method} ${req.url.split('?')[0] ?? ''}` }), 'en');
    return send(res, failureReply(formatOf(req), 'Result', failure, false));
  });

  transactionRoutes(app, ctx);
  configRoutes(app, ctx);
  return app;
}
