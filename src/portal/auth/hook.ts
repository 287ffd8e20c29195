/**
 * Who is calling: every route under /api/v1 except the token exchange needs `Authorization: Bearer <token>`
 * from POST /api/v1/auth/token; the client must still exist and not be revoked. Without, or with a bad or
 * expired token: 401 in the envelope.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PortalError } from '../envelope.js';
import type { PortalContext } from '../context.js';
import { type Caller, loadCaller } from '../permissions.js';

declare module 'fastify' {
  interface FastifyRequest {
    portalCaller: Caller | null;
  }
  interface FastifyContextConfig {
    /** no bearer token needed */
    publicRoute?: boolean;
  }
}

export function authHook(app: FastifyInstance, ctx: PortalContext): void {
  app.decorateRequest('portalCaller', null);
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config.publicRoute === true || !req.routeOptions.url) return;
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
    if (!m?.[1]) throw new PortalError('UNAUTHORIZED', { detail: header ? 'the Authorization header is not a bearer token' : 'no bearer token (POST /api/v1/auth/token)' });
    const clientId = await ctx.tokens.verify(m[1]);
    if (!clientId) throw new PortalError('UNAUTHORIZED', { detail: 'the bearer token is invalid or expired' });
    const client = await ctx.store.getClient(clientId);
    if (!client || client.revokedAt !== null) throw new PortalError('UNAUTHORIZED', { detail: 'the API client no longer exists or is revoked' });
    req.portalCaller = await loadCaller(ctx.store, clientId);
  });
}

/** The authenticated caller of a protected route. */
export function callerOf(req: FastifyRequest): Caller {
  if (!req.portalCaller) throw new PortalError('UNAUTHORIZED', { detail: 'no bearer token' });
  return req.portalCaller;
}
