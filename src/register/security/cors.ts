/**
 * CORS headers from the profile attributes HttpServer_AllowOrigin / HttpServer_AllowCredentials of the
 * instance (`def`), read per request so a profile change applies at once.
 *
 * - `HttpServer_AllowOrigin=*` (or the bare flag): any origin, answered `Access-Control-Allow-Origin: *`,
 *   never with credentials (browsers refuse `*` with credentials, and reflecting any origin with
 *   credentials would let every web site act as the shop's POS).
 * - `HttpServer_AllowOrigin="https://pos.example https://admin.example:8443"` (space or comma separated):
 *   the matching origin is echoed with `Vary: Origin`; `HttpServer_AllowCredentials` adds
 *   `Access-Control-Allow-Credentials: true` for those listed origins.
 * - Without the attribute (or `=false`): no CORS headers; an OPTIONS request is an unknown route (404).
 * A preflight (OPTIONS with Access-Control-Request-Method) is answered 204 here, before the credential hooks.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import type { AttributeMap } from '../profile/attributes.js';

export const CORS_METHODS = 'GET, POST, PUT, DELETE';
export const CORS_HEADERS = 'Authorization, Content-Type, Accept, Accept-Language';
export const CORS_EXPOSE = 'Content-Disposition, WWW-Authenticate, X-Layout-Type, X-Preview-FN';
export const CORS_MAX_AGE = 600;

export interface CorsPolicy {
  any: boolean;
  origins: ReadonlySet<string>;
  credentials: boolean;
}

const FALSE = ['false', '0', 'no', 'off', ''];

/** `scheme://host[:port]`, lower-case, without a trailing slash; undefined when not an origin. */
export function normalizeOrigin(text: string): string | undefined {
  const o = text.trim().replace(/\/+$/, '').toLowerCase();
  return /^[a-z][a-z0-9+.-]*:\/\/(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(o) ? o : undefined;
}

export function corsPolicy(raw: AttributeMap): CorsPolicy | undefined {
  const value = raw.get('httpserver_alloworigin');
  if (value === undefined || FALSE.includes(value.trim().toLowerCase())) return undefined;
  const items = value.split(/[\s,]+/).filter(Boolean);
  const any = value.trim().toLowerCase() === 'true' || items.includes('*');
  const origins = new Set(items.map(normalizeOrigin).filter((o): o is string => o !== undefined));
  if (!any && origins.size === 0) return undefined;
  const cred = raw.get('httpserver_allowcredentials');
  return { any, origins, credentials: cred !== undefined && !FALSE.includes(cred.trim().toLowerCase()) };
}

/** Sets the CORS headers of an answer to `origin` (when the policy admits it); true when admitted. */
function allow(res: FastifyReply, policy: CorsPolicy, origin: string | undefined): boolean {
  if (!policy.any || policy.origins.size > 0) res.header('vary', 'Origin');
  if (origin === undefined) return false;
  const normalized = normalizeOrigin(origin);
  if (normalized !== undefined && policy.origins.has(normalized)) {
    res.header('access-control-allow-origin', origin);
    if (policy.credentials) res.header('access-control-allow-credentials', 'true');
    return true;
  }
  if (policy.any) {
    res.header('access-control-allow-origin', '*');
    return true;
  }
  return false;
}

function isPreflight(req: FastifyRequest): boolean {
  return req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
}

export function corsHook(app: FastifyInstance, ctx: ServiceContext): void {
  app.addHook('onRequest', async (req, res) => {
    const policy = corsPolicy(ctx.profiles.settings('def').raw);
    if (!policy) return undefined;
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const admitted = allow(res, policy, origin);
    if (isPreflight(req)) {
      if (admitted) {
        res.header('access-control-allow-methods', CORS_METHODS);
        res.header('access-control-allow-headers', CORS_HEADERS);
        res.header('access-control-max-age', String(CORS_MAX_AGE));
        // Chrome's Private Network Access: a web POS on a public site calling the register in the shop's LAN
        if (req.headers['access-control-request-private-network'] === 'true') res.header('access-control-allow-private-network', 'true');
      }
      // answered here: the credential hooks after this one never see a preflight
      return res.code(204).send();
    }
    if (admitted) res.header('access-control-expose-headers', CORS_EXPOSE);
    return undefined;
  });
}
