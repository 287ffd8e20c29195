/**
 * Where a request comes from, as a browser tells it: the host name it addressed (`Host`) and the web page
 * that made it (`Origin`, `Sec-Fetch-Site`).
 *
 * Two browser attacks use the trust that requests from this machine (and open POS routes in the shop's
 * LAN) enjoy without any credential:
 * - DNS rebinding: a web site's name is made to resolve to 127.0.0.1 or the register's LAN address, so the
 *   site's script talks to the service as a same-origin page. The browser still sends the site's name in
 *   `Host`, so a request whose Host is neither an address nor a name of this service is refused.
 *   An IP literal is always accepted: a page can only reach it under that same literal origin.
 * - Cross-site requests (CSRF): another site's page posts a form or a `fetch` to the service. Browsers mark
 *   them with `Origin` and `Sec-Fetch-Site`. Such a request is refused unless the operator listed its origin;
 *   a route that is not open needs, on top of that, an explicitly listed origin (not `*`) and credentials in
 *   the request itself, so access that is free from this machine is never lent to another site.
 *
 * Cloud mode skips both: there every request carries a bearer token that a browser never adds by itself.
 */
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { AttributeMap } from '../profile/attributes.js';
import { type CorsPolicy, normalizeOrigin } from './cors.js';

/** The names every instance answers to: loopback names and this machine's own name. */
function machineNames(): Set<string> {
  const out = new Set(['localhost']);
  const own = hostname().toLowerCase();
  if (own) {
    out.add(own);
    const first = own.split('.')[0] as string;
    out.add(first);
    out.add(`${first}.local`);
  }
  return out;
}

const MACHINE_NAMES = machineNames();

/** The names an operator added (`HttpServer_Hosts` of `def`, the environment's `EFR_HOSTS`), lower case; `*` is any. */
export function configuredHosts(raw: AttributeMap, fromEnv: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const text of [raw.get('httpserver_hosts'), fromEnv]) {
    if (!text) continue;
    for (const item of text.split(/[\s,]+/)) if (item) out.add(item.toLowerCase().replace(/\.$/, ''));
  }
  return out;
}

/** The host part of a Host header (without port and brackets), lower case; undefined when malformed. */
export function hostOf(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(h);
  if (bracketed) return bracketed[1];
  const plain = /^([a-z0-9._-]+)(?::\d{1,5})?$/.exec(h);
  return plain ? (plain[1] as string).replace(/\.$/, '') : undefined;
}

/** Whether a request addressed this service by one of its names: its Host, and the name a reverse proxy forwards. */
export function requestHostAllowed(req: FastifyRequest, configured: ReadonlySet<string>): boolean {
  const forwarded = req.headers['x-forwarded-host'];
  if (typeof forwarded === 'string' && !hostAllowed(forwarded.split(',')[0]?.trim(), configured)) return false;
  return hostAllowed(req.headers.host, configured);
}

/** Whether a Host header names this service (see the file's comment). */
export function hostAllowed(header: string | undefined, configured: ReadonlySet<string>): boolean {
  // HTTP/1.0 clients and raw tools send none; every browser does
  if (header === undefined) return true;
  if (configured.has('*')) return true;
  const host = hostOf(header);
  if (host === undefined) return false;
  if (isIP(host) !== 0) return true;
  if (MACHINE_NAMES.has(host) || host.endsWith('.localhost')) return true;
  return configured.has(host);
}

/** The origin that made the request, when it is another site than the service's own pages; undefined when same-origin or not a browser's. */
export function crossSiteOrigin(req: FastifyRequest): string | undefined {
  const origin = req.headers.origin;
  if (typeof origin === 'string') {
    if (origin === 'null') return 'null';
    const o = normalizeOrigin(origin);
    if (o === undefined) return origin;
    // behind a reverse proxy the page's host is the forwarded one (a browser cannot add that header to
    // another site's request without a preflight, which names no such header as allowed)
    const forwarded = req.headers['x-forwarded-host'];
    const viaProxy = typeof forwarded === 'string' && sameHost(o, forwarded.split(',')[0]);
    if (!viaProxy && !sameHost(o, req.headers.host)) return origin;
    return undefined;
  }
  const site = req.headers['sec-fetch-site'];
  // same-site is another origin of the same site (another port of the register's address)
  if (site === 'cross-site' || site === 'same-site') return `(a page of another site: Sec-Fetch-Site ${site})`;
  return undefined;
}

const DEFAULT_PORT: Readonly<Record<string, string>> = { http: '80', https: '443' };

/** `scheme://host[:port]` names the host and port of a Host header (the scheme may differ behind a TLS proxy). */
function sameHost(origin: string, hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false;
  const m = /^([a-z][a-z0-9+.-]*):\/\/(.+?)(?::(\d+))?$/.exec(origin);
  if (!m) return false;
  const originPort = m[3] ?? DEFAULT_PORT[m[1] as string] ?? '';
  const h = hostHeader.trim().toLowerCase();
  const hm = /^(\[[0-9a-f:.]+\]|[^:]+)(?::(\d+))?$/.exec(h);
  if (!hm) return false;
  const hostPort = hm[2] ?? DEFAULT_PORT[m[1] as string] ?? '';
  return hm[1] === m[2] && hostPort === originPort;
}

/** The request carries credentials of its own (not lent by its network position). */
export function carriesCredentials(req: FastifyRequest, query: Readonly<Record<string, string>>): boolean {
  return req.headers.authorization !== undefined || (query.password !== undefined && query.password !== '');
}

export interface OriginVerdict {
  /** refused: the error to answer */
  refusal?: FiscalError;
  /** admitted as a cross-site request: being on this machine counts for nothing */
  crossSite: boolean;
}

/**
 * The verdict on a browser's cross-site request to a route (`open`: the route needs no credential). Safe
 * methods of open routes pass (their answers are the LAN's anyway and unreadable without CORS), and so do
 * top-level navigations to a page (the answer goes to the user's own tab).
 */
export function judgeCrossSite(req: FastifyRequest, query: Readonly<Record<string, string>>, open: boolean, policy: CorsPolicy | undefined, what: string): OriginVerdict {
  const origin = crossSiteOrigin(req);
  if (origin === undefined) return { crossSite: false };
  const safe = req.method === 'GET' || req.method === 'HEAD';
  if (safe && open) return { crossSite: true };
  if (safe && req.headers['sec-fetch-mode'] === 'navigate' && req.headers['sec-fetch-dest'] === 'document') return { crossSite: true };
  const normalized = normalizeOrigin(origin);
  const listed = normalized !== undefined && policy !== undefined && policy.origins.has(normalized);
  if (open && (listed || policy?.any === true)) return { crossSite: true };
  if (!open && listed && carriesCredentials(req, query)) return { crossSite: true };
  const detail = open ? '' : ' (by name, not *) and credentials in the request';
  return { crossSite: true, refusal: new FiscalError('#CROSS_SITE', { value: what, origin, detail }) };
}
