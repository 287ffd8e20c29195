/**
 * Builds the Fastify app from its route plugins (no listen here). Every body arrives as text
 * and is decoded by the codec; query parameter names are case-insensitive; no error ever
 * leaves as a 5xx with a stack trace.
 */
import { uiRoutes } from './routes/ui.js';
import { cfgPageRoutes } from './ui/pages/cfg.js';
import { journalPageRoutes } from './ui/pages/journal.js';
import { profilePageRoutes } from './ui/pages/profile.js';
import { statusPageRoutes } from './ui/pages/status.js';
import Fastify, { LogController, type FastifyInstance, type FastifyBaseLogger } from 'fastify';
import { FiscalError } from '../shared/errors.js';
import type { ServiceContext } from './context.js';
import { failureOf, failureReply } from './respond.js';
import { configRoutes } from './routes/config.js';
import { formatOf, send } from './routes/http.js';
import { transactionRoutes } from './routes/transactions.js';
import { journalRoutes } from './routes/journal.js';
import { reprintRoutes } from './routes/reprint.js';
import { repoRoutes } from './routes/repo.js';
import { exportRoutes } from './routes/export.js';
import { renderRoutes } from './routes/render.js';
import { layoutsRoutes } from './routes/layouts.js';
import { qrRoutes } from './routes/qr.js';
import { authTokenRoutes } from './routes/auth-token.js';
import { certificateRoutes } from './routes/certificates.js';
import { diskRoutes } from './routes/disk.js';
import { clientCertificateHook } from './security/client-certificates.js';
import { corsHook } from './security/cors.js';
import { cloudTokenHook } from './security/cloud-auth.js';
import { routeAccessHook } from './security/route-access.js';
import { logRoutes } from './routes/logs.js';
import { backupRoutes } from './routes/backup.js';
import { serviceRoutes } from './routes/service.js';
import { peripheralRoutes } from './routes/peripherals.js';
import { interim102Hook } from './maintenance/interim-102.js';
import { lazyRequestLogger } from './logs/request-logger.js';

export const BODY_LIMIT = 8 * 1024 * 1024;

/**
 * A body as text: the charset of Content-Type, else the encoding of an XML declaration, else UTF-8;
 * a byte order mark is dropped.
 */
export function bodyText(body: Buffer, contentTypeHeader: string | undefined): string {
  let label = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentTypeHeader ?? '')?.[1];
  if (!label) {
    const head = body.subarray(0, 100).toString('latin1');
    if (head.startsWith('<?xml')) label = /encoding\s*=\s*["']([\w.:-]+)["']/.exec(head)?.[1];
  }
  return decoderFor(label ?? 'utf-8').decode(body);
}

/** Decoders by label, made once: decode() without streaming keeps no state between bodies. */
const decoders = new Map<string, TextDecoder>();

function decoderFor(label: string): TextDecoder {
  const known = decoders.get(label);
  if (known !== undefined) return known;
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    throw new FiscalError('#MALFORMED', { format: 'request', detail: `unknown character set "${label}"` });
  }
  // labels come from clients: a bounded number is kept
  if (decoders.size < 64) decoders.set(label, decoder);
  return decoder;
}

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
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: BODY_LIMIT,
    routerOptions: { querystringParser: parseQuery, caseSensitive: true, ignoreTrailingSlash: true },
    return503OnClosing: false,
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
    try {
      done(null, bodyText(body as Buffer, req.headers['content-type']));
    } catch (e) {
      done(e instanceof Error ? e : new Error(String(e)), undefined);
    }
  });

  app.setErrorHandler((error, req, res) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    const code = (error as { code?: string }).code;
    let e: unknown = error;
    if (error instanceof FiscalError) e = error;
    else if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') e = new FiscalError('#TOO_LARGE', { value: req.routeOptions.bodyLimit ?? BODY_LIMIT });
    else if (status < 500) e = new FiscalError('#MALFORMED', { format: 'HTTP request', detail: error instanceof Error ? error.message : String(error) });
    else req.log.error({ err: error }, 'unexpected error');
    const failure = failureOf(e, ctx.registers.lang(ctx.registers.get('def')));
    const path = req.url.split('?')[0] ?? '';
    const root = path === '/register' || path === '/restart' ? 'TraC' : 'Result';
    return send(res, failureReply(formatOf(req), root, failure, ctx.profiles.settings('def').respond200));
  });

  app.setNotFoundHandler((req, res) => {
    const failure = failureOf(new FiscalError('#NOT_FOUND', { value: `${req.method} ${req.url.split('?')[0] ?? ''}` }), 'en');
    return send(res, failureReply(formatOf(req), 'Result', failure, false));
  });

  // interim 102 answers while a request takes long (HttpServer_respond102), whatever the request is
  interim102Hook(app, ctx);
  // who may ask, in this order: a trusted TLS client certificate (when required), CORS (a preflight is
  // answered here), the cloud bearer token, then the route's own rule (local-or-password, browser pages)
  clientCertificateHook(app, ctx);
  corsHook(app, ctx);
  cloudTokenHook(app, ctx);
  routeAccessHook(app, ctx);

  authTokenRoutes(app, ctx);
  certificateRoutes(app, ctx);
  transactionRoutes(app, ctx);
  configRoutes(app, ctx);
  journalRoutes(app, ctx);
  reprintRoutes(app, ctx);
  repoRoutes(app, ctx);
  exportRoutes(app, ctx);
  renderRoutes(app, ctx);
  layoutsRoutes(app, ctx);
  qrRoutes(app, ctx);
  diskRoutes(app, ctx);
  logRoutes(app, ctx);
  backupRoutes(app, ctx);
  serviceRoutes(app, ctx);
  peripheralRoutes(app, ctx);
  uiRoutes(app, ctx, [profilePageRoutes, cfgPageRoutes, statusPageRoutes, journalPageRoutes]);
  return app;
}
