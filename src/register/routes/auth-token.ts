/**
 * POST /auth/token: access and refresh tokens for cloud POS, served in cloud mode only.
 * Body `application/x-www-form-urlencoded`; three variants: client credentials by HTTP Basic or in the
 * body, and refresh. Refusals in OAuth form, `{"error", "error_description"}` (RFC 6749 section 5.2).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { tokenServiceOf } from '../security/cloud-auth.js';
import { OAuthError, type ScopeAsked, type TokenResponse } from '../security/tokens.js';

/** Form fields, names lower-cased (TaxId, TL, TT as the service's query names); a repeated one is refused. */
export function formFields(body: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(body)) {
    const key = k.toLowerCase();
    if (out.has(key)) throw new OAuthError('invalid_request', `the parameter ${k} is given more than once`);
    out.set(key, v);
  }
  return out;
}

/** `Authorization: Basic base64(key:secret)`; both parts form-decoded as RFC 6749 section 2.3.1 says. */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic[ ]+([A-Za-z0-9+/=_-]+)[ ]*$/i.exec(header ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'the Basic credentials are not key:secret');
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: decode(text.slice(0, colon)), secret: decode(text.slice(colon + 1)) };
}

const TEXT = /^[^\s$]{1,64}$/;

/** TaxId (default: the API key's), TL (optional; from a TT written `TL/TT`), TT (required). */
export function scopeAsked(f: ReadonlyMap<string, string>): ScopeAsked {
  const taxId = f.get('taxid') || undefined;
  let tl = f.get('tl') ?? '';
  let tt = f.get('tt') ?? '';
  if (!tl && tt.includes('/')) {
    const cut = tt.lastIndexOf('/');
    tl = tt.slice(0, cut);
    tt = tt.slice(cut + 1);
  }
  if (!tt) throw new OAuthError('invalid_request', 'TT (the terminal the token is for) is required');
  for (const [name, v] of [['TaxId', taxId], ['TL', tl || undefined], ['TT', tt]] as const) {
    if (v !== undefined && !TEXT.test(v)) throw new OAuthError('invalid_request', `${name} must be 1 to 64 characters without spaces or $`);
  }
  return { taxId, tl, tt };
}

function refuse(res: FastifyReply, e: OAuthError, basic: boolean): FastifyReply {
  res.code(e.status).header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (e.error === 'invalid_token') res.header('www-authenticate', `Bearer realm="EFR", error="invalid_token", error_description="${e.description.replace(/["\\]/g, '')}"`);
  else if (e.error === 'invalid_client' && basic) res.header('www-authenticate', 'Basic realm="EFR"');
  return res.type('application/json; charset=utf-8').send(JSON.stringify({ error: e.error, error_description: e.description }));
}

export function authTokenRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const tokens = tokenServiceOf(ctx);
  // a local instance has no token endpoint (404 as before)
  if (!tokens) return;

  app.post('/auth/token', async (req: FastifyRequest, res: FastifyReply) => {
    const basicGiven = /^Basic\b/i.test(req.headers.authorization ?? '');
    try {
      const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/x-www-form-urlencoded') throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
      const f = formFields(typeof req.body === 'string' ? req.body : '');
      const grant = f.get('grant_type');
      if (!grant) throw new OAuthError('invalid_request', 'grant_type is required (client_credentials or refresh_token)');
      const basic = basicCredentials(req.headers.authorization);
      if (basic && f.has('client_secret')) throw new OAuthError('invalid_request', 'give the client credentials either by HTTP Basic or in the body, not both');
      if (basic && f.has('client_id') && f.get('client_id') !== basic.id) throw new OAuthError('invalid_request', 'client_id differs from the key of the Basic credentials');
      let answer: TokenResponse;
      if (grant === 'client_credentials') {
        const id = basic?.id ?? f.get('client_id');
        const secret = basic?.secret ?? f.get('client_secret');
        if (!id || !secret) throw new OAuthError('invalid_client', 'the API key and secret are required (HTTP Basic, or client_id and client_secret)');
        answer = await tokens.login(id, secret, scopeAsked(f));
      } else if (grant === 'refresh_token') {
        const refresh = f.get('refresh_token');
        if (!refresh) throw new OAuthError('invalid_request', 'refresh_token is required');
        const id = basic?.id ?? f.get('client_id');
        if (!id) throw new OAuthError('invalid_request', 'client_id is required');
        // credentials given with a refresh must be right
        if (basic || f.has('client_secret')) {
          if (!(await tokens.keys.verify(id, basic?.secret ?? f.get('client_secret') ?? ''))) throw new OAuthError('invalid_client', 'unknown API key, wrong secret or revoked key');
        }
        answer = await tokens.refresh(refresh, id, scopeAsked(f));
      } else {
        throw new OAuthError('unsupported_grant_type', `grant_type ${grant.slice(0, 40)} is not supported (client_credentials or refresh_token)`);
      }
      return res.code(200).header('cache-control', 'no-store').header('pragma', 'no-cache').type('application/json; charset=utf-8').send(JSON.stringify(answer));
    } catch (e) {
      if (e instanceof OAuthError) return refuse(res, e, basicGiven);
      req.log.error({ err: e }, 'token request failed');
      return refuse(res, new OAuthError('temporarily_unavailable', 'the token request could not be processed now; try again'), false);
    }
  });
}
