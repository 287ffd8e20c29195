/**
 * POST /api/v1/auth/token: client credentials (JSON `clientId`/`clientSecret`, or OAuth 2.0 form or JSON
 * `grant_type=client_credentials&client_id=&client_secret=`, or HTTP Basic) -> a bearer token.
 * POST /api/v1/clients: a new API client with grants (the secret is shown once).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { callerOf } from '../auth/hook.js';
import type { PortalContext } from '../context.js';
import { okEnvelope } from '../envelope.js';
import { type NewClientBody, createClient, exchangeCredentials } from '../services/clients.js';
import { ClientCreate, TokenRequest, withEnvelope } from '../validation/schemas.js';
import { errorResponses } from './responses.js';

function basicCredentials(req: FastifyRequest): { id?: string; secret?: string } {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!m?.[1]) return {};
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? {} : { id: decodeURIComponent(text.slice(0, colon)), secret: decodeURIComponent(text.slice(colon + 1)) };
}

export function authRoutes(app: FastifyInstance, ctx: PortalContext): void {
  app.post('/api/v1/auth/token', {
    config: { publicRoute: true },
    // HTTP Basic needs no body
    preValidation: async (req) => {
      req.body ??= {};
    },
    schema: {
      tags: ['Authentication'],
      operationId: 'get_token',
      summary: 'Exchange client credentials for a bearer token',
      description: 'The token (JWT HS256) is valid for one hour; send it as `Authorization: Bearer <token>`.',
      body: TokenRequest,
      response: { 200: withEnvelope({ access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer() }), ...errorResponses },
    },
  }, async (req) => {
    const b = (req.body ?? {}) as { client_id?: string; client_secret?: string; clientId?: string; clientSecret?: string };
    const basic = basicCredentials(req);
    const token = await exchangeCredentials(ctx, b.clientId ?? b.client_id ?? basic.id, b.clientSecret ?? b.client_secret ?? basic.secret);
    return okEnvelope(token);
  });

  app.post('/api/v1/clients', {
    schema: {
      tags: ['Authentication'],
      operationId: 'create_client',
      summary: 'Create an API client with permissions',
      description: 'The caller may grant only permissions it holds itself on that entity, and only where it holds ManageCompany. The secret is shown once.',
      body: ClientCreate,
      response: { 200: withEnvelope({ clientId: Type.String(), clientSecret: Type.String() }), ...errorResponses },
    },
  }, async (req) => okEnvelope(await createClient(ctx, callerOf(req), req.body as NewClientBody)));
}
