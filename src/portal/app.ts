/**
 * Builds the portal's Fastify app (no listen here): JSON bodies validated by the route schemas (all errors at
 * once), every answer in the envelope, bearer-token authentication, the OpenAPI document and its reference page.
 */
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import { authHook } from './auth/hook.js';
import type { PortalContext } from './context.js';
import { PortalError, invalid, sendFailure } from './envelope.js';
import { authRoutes } from './routes/auth.js';
import { companyExtraRoutes } from './routes/companies-extra.js';
import { companyApiKeyRoutes } from './routes/company-api-keys.js';
import { docsRoutes } from './routes/docs.js';
import { entityRoutes } from './routes/entities.js';
import { registerRoutes } from './routes/registers.js';
import { recorderRoutes } from './routes/recorder.js';
import { receiptRoutes } from './routes/receipts.js';
import { StoreBadQuery, StoreReferenceMissing, StoreUnavailable } from './store/types.js';
import { coerceUrlValues } from './validation/coerce-url-values.js';
import { type SchemaError, issuesOfSchemaErrors, unstorableIssues } from './validation/schema-issues.js';

export const PORTAL_BODY_LIMIT = 1024 * 1024;

function failureOf(error: unknown, req: FastifyRequest): PortalError {
  const log: FastifyBaseLogger = req.log;
  if (error instanceof PortalError) return error;
  if (error instanceof StoreBadQuery) return invalid([{ field: error.field, key: 'format', params: { format: error.message } }]);
  if (error instanceof StoreUnavailable) {
    log.warn({ err: error }, 'the portal database is not available');
    return new PortalError('SERVICE_UNAVAILABLE');
  }
  // a row referred to vanished between the service's check and the write
  if (error instanceof StoreReferenceMissing) return new PortalError('NOT_FOUND', { what: `The entity named by ${error.field}` });
  const e = error as FastifyError & { validation?: SchemaError[]; validationContext?: string };
  if (Array.isArray(e.validation)) return invalid(issuesOfSchemaErrors(e.validation, e.validationContext));
  const status = e.statusCode ?? 500;
  if (status === 413) return new PortalError('PAYLOAD_TOO_LARGE', { limit: PORTAL_BODY_LIMIT });
  if (status === 415) return new PortalError('UNSUPPORTED_MEDIA_TYPE', { type: contentTypeOf(req.headers['content-type']) });
  if (status < 500) return invalid([{ field: 'body', key: 'json', params: { detail: e.message } }]);
  log.error({ err: error }, 'unexpected error');
  return new PortalError('INTERNAL');
}

/** The refused content type as sent (without parameters, shortened), for the message. */
function contentTypeOf(header: string | undefined): string {
  const type = (header ?? '').split(';')[0]?.trim().slice(0, 100);
  return type ? type : '(none)';
}

export interface PortalAppOptions {
  /** Fastify's trustProxy: the client address (req.ip) from X-Forwarded-For; default off (server.ts, PORTAL_TRUST_PROXY) */
  trustProxy?: boolean | string[];
}

export async function buildPortalApp(ctx: PortalContext, logger?: FastifyBaseLogger, options: PortalAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
    bodyLimit: PORTAL_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true },
    // bodies are JSON and must have the right types; path and query values are coerced before validation
    ajv: { customOptions: { allErrors: true, coerceTypes: false, useDefaults: true, removeAdditional: false } },
    return503OnClosing: false,
    // errors fastify meets before routing (a malformed URL, a bad content type header) also get the envelope
    frameworkErrors: (error, req, reply) => {
      void sendFailure(req, reply, invalid([{ field: 'url', key: 'format', params: { format: error.message } }]));
    },
  });

  // JSON bodies: an empty body is no body (routes without a body may still be sent Content-Type: application/json)
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(invalid([{ field: 'body', key: 'json', params: { detail: e instanceof Error ? e.message : String(e) } }]), undefined);
    }
  });
  // OAuth 2.0 token requests come as forms
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  // the response schemas document the answers; the objects are written as they are
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.setErrorHandler((error, req, reply) => sendFailure(req, reply, failureOf(error, req)));
  app.setNotFoundHandler((req, reply) => sendFailure(req, reply, new PortalError('NOT_FOUND', { what: `${req.method} ${req.url.split('?')[0] ?? ''}` })));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'EFR management portal API',
        version: 'v1',
        description:
          'Organizations, companies, locations, contacts, registers and notifications. Every answer is the envelope (success, errorCode, errorMessage, errorMessageTranslated, validationErrors). Authenticate with POST /api/v1/auth/token and send Authorization: Bearer <token>. Accept-Language: de gives German messages.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
  });

  app.addHook('preValidation', async (req) => {
    const schema = req.routeOptions.schema;
    if (!schema) return;
    coerceUrlValues(req.params, schema.params);
    coerceUrlValues(req.query, schema.querystring);
  });

  app.addHook('preHandler', async (req) => {
    const issues = [...unstorableIssues(req.params, ''), ...unstorableIssues(req.query, ''), ...unstorableIssues(req.body, '')];
    if (issues.length) throw invalid(issues);
  });

  authHook(app, ctx);
  authRoutes(app, ctx);
  entityRoutes(app, ctx);
  companyExtraRoutes(app, ctx);
  companyApiKeyRoutes(app, ctx);
  registerRoutes(app, ctx);
  recorderRoutes(app, ctx);
  receiptRoutes(app, ctx);
  docsRoutes(app);
  return app;
}
