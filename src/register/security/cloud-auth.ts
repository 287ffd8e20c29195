/**
 * Cloud mode: every request but POST /auth/token needs `Authorization: Bearer`, and the
 * token's TaxId/TL/TT scope limits what it may register or read (token-scope.ts).
 * Off unless `ctx.cloud` is set (`efr serve --cloud`, EFR_CLOUD=true): a local instance is unchanged.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { applyQueryScope } from './token-scope.js';
import { markOperatorCandidate, passwordOf } from './local-or-password.js';
import { ACTIVATION_KEY } from '../recorder/keys.js';
import { postJson } from '../recorder/portal-client.js';
import { ApiKeys } from './api-keys.js';
import { LocalKeySource } from './key-source.js';
import { ClientKeys, DEFAULT_PORTAL_KEY_CACHE_MS, DEFAULT_PORTAL_KEY_STALE_MS, type PortalLink, PortalKeySource } from './portal-api-keys.js';
import { type TokenScope, TokenService } from './tokens.js';

const services = new WeakMap<ServiceContext, TokenService>();
const scopes = new WeakMap<FastifyRequest, TokenScope>();

/** The context's token service (one per context: its key, its refresh locks, its revoked logins). */
export function tokenServiceOf(ctx: ServiceContext): TokenService | undefined {
  if (!ctx.cloud) return undefined;
  let s = services.get(ctx);
  if (!s) {
    s = new TokenService(ctx.store, ctx.dataDir, ctx.clock, ctx.cloud, clientKeysOf(ctx));
    services.set(ctx, s);
  }
  return s;
}

/** The portal address and credential of the instance's activation (the recorder's, else the one stored), and the Proxy. */
async function portalLinkOf(ctx: ServiceContext): Promise<PortalLink | undefined> {
  let a: { portalUrl?: unknown; token?: unknown } | undefined = ctx.recorder?.current();
  if (!a) {
    const text = await ctx.store.getSetting(ACTIVATION_KEY);
    try {
      a = text ? (JSON.parse(text) as { portalUrl?: unknown; token?: unknown }) : undefined;
    } catch {
      a = undefined;
    }
  }
  if (!a || typeof a.portalUrl !== 'string' || typeof a.token !== 'string') return undefined;
  const proxy = ctx.profiles.settings('def').raw.get('proxy');
  return { portalUrl: a.portalUrl.replace(/\/+$/, ''), token: a.token, ...(proxy ? { proxy } : {}) };
}

/** The keys of POST /auth/token: the instance's own (`ak_`) and the company's at the portal (`ck_`). */
function clientKeysOf(ctx: ServiceContext): ClientKeys {
  const cloud = ctx.cloud;
  const portal = new PortalKeySource(() => portalLinkOf(ctx), postJson, ctx.clock, {
    cacheMs: cloud?.portalKeyCacheMs ?? DEFAULT_PORTAL_KEY_CACHE_MS,
    staleMs: cloud?.portalKeyStaleMs ?? DEFAULT_PORTAL_KEY_STALE_MS,
  });
  return new ClientKeys(new LocalKeySource(new ApiKeys(ctx.store)), portal);
}

/** The scope of the request's access token (cloud mode), undefined on a local instance. */
export function scopeOf(req: FastifyRequest): TokenScope | undefined {
  return scopes.get(req);
}

/** 401 as RFC 6750 section 3 names it, with the JSON body of the spec. */
export function invalidToken(res: FastifyReply, description: string): FastifyReply {
  return res
    .code(401)
    .header('www-authenticate', `Bearer realm="EFR", error="invalid_token", error_description="${description.replace(/["\\]/g, '')}"`)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: 'invalid_token', error_description: description }));
}

export function cloudTokenHook(app: FastifyInstance, ctx: ServiceContext): void {
  const tokens = tokenServiceOf(ctx);
  if (!tokens) return;
  app.addHook('onRequest', async (req, res) => {
    // a CORS preflight carries no credentials (the CORS hook answers it); POST /auth/token is how one gets a token
    if (req.method === 'OPTIONS') return;
    if (req.routeOptions.url === '/auth/token') return;
    const m = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)[ ]*$/i.exec(req.headers.authorization ?? '');
    // the operator's way in without a tenant's token: the instance password (query or HTTP Basic), which the
    // access hook then requires on every route, open ones too (and throttles like any password)
    if (!m && passwordOf(req, (req.query ?? {}) as Record<string, string>) !== undefined) {
      markOperatorCandidate(req);
      return undefined;
    }
    if (!m) return invalidToken(res, req.headers.authorization ? 'the Authorization header is not a bearer token' : 'an access token is required (Authorization: Bearer); get one at POST /auth/token');
    const checked = await tokens.verifyAccess(m[1] as string);
    if ('invalid' in checked) return invalidToken(res, checked.invalid);
    scopes.set(req, checked.scope);
    // a FiscalError thrown here (#OUT_OF_SCOPE) is answered by the app's error handler, 403
    applyQueryScope(ctx, req.routeOptions.url ?? '', (req.query ?? {}) as Record<string, string>, checked.scope);
    return undefined;
  });
}
