/**
 * Forms of the browser pages: fields of an `application/x-www-form-urlencoded` body, and the guard against a
 * form sent from another site (the browser would send the page credentials with it): every form carries a token
 * (HMAC of the instance's token key, the same in every process sharing the data folder), and a POST whose `Origin`
 * names another host is refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { loadOrCreateTokenKey } from '../security/tokens.js';
import { type Html, html } from './html.js';

export const FORM_TOKEN_FIELD = '_token';

/** The fields of a form body; a field sent twice keeps its last value, `all` has every value. */
export interface FormFields {
  get(name: string): string | undefined;
  all(name: string): string[];
  has(name: string): boolean;
}

export function formOf(req: FastifyRequest): FormFields {
  const params = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
  return {
    get: (name) => {
      const v = params.getAll(name);
      return v.length ? v[v.length - 1] : undefined;
    },
    all: (name) => params.getAll(name),
    has: (name) => params.has(name),
  };
}

const tokens = new Map<string, string>();

/** The form token of this data folder. */
export function formToken(dataDir: string): string {
  let t = tokens.get(dataDir);
  if (!t) {
    t = createHmac('sha256', loadOrCreateTokenKey(dataDir)).update('efr-ui-form-v1').digest('base64url');
    tokens.set(dataDir, t);
  }
  return t;
}

/** The hidden field every form of the pages carries. */
export function tokenField(dataDir: string): Html {
  return html`<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${formToken(dataDir)}">`;
}

/** A Host-like header as `host[:port]` the way `new URL()` writes it (lower case, no default port). */
function hostOf(protocol: string, header: string | string[] | undefined): string | undefined {
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
  if (!first) return undefined;
  try {
    return new URL(`${protocol}//${first}`).host;
  } catch {
    return undefined;
  }
}

/**
 * True when the form came from one of our pages: the right token, and no foreign Origin. The Origin's host is
 * compared without regard to case and default ports with the Host header, or with X-Forwarded-Host (the address
 * the browser used when a reverse proxy sits in front: the service has no list of trusted proxies, so a proxy's
 * header is taken as it comes; the form token must be right in either case, and the token is what keeps a
 * foreign site out: it cannot read our pages).
 */
export function formIsOurs(req: FastifyRequest, form: FormFields, dataDir: string): boolean {
  const origin = req.headers.origin;
  if (origin && origin !== 'null') {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    const ours = [hostOf(url.protocol, req.headers.host), hostOf(url.protocol, req.headers['x-forwarded-host'])];
    if (!ours.includes(url.host)) return false;
  }
  const given = Buffer.from(form.get(FORM_TOKEN_FIELD) ?? '');
  const want = Buffer.from(formToken(dataDir));
  return given.length === want.length && timingSafeEqual(given, want);
}
