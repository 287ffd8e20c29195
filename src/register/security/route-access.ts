/**
 * Who may call which route and how large its body may be: one table of every route of the spec and of this
 * service, so a route is protected the day it exists. docs/security.md shows the same table with the reasons
 * and the threat model.
 *
 * Rules:
 * - `open`: the POS API; anybody who reaches the port.
 * - `local-or-password`: a request from this machine (loopback, not through a proxy), or with the profile
 *   password (query `password` or HTTP Basic; the register's own or the instance's), or with a Digest user
 *   of the register's realm; else 403 #FORBIDDEN.
 * - `password-once-set`: open while neither the register nor the instance has a profile password (first
 *   set-up from a POS in the LAN), then `local-or-password`.
 * - `page`: a browser page; the system password (HTTP Basic) or a Digest user when either is configured
 *   (from this machine too), else open; a refusal is 401 with `WWW-Authenticate` challenges.
 * - `admin-page`: like `page`, but without any credential configured only from this machine.
 *
 * Whose credentials count: a route of `scope: 'instance'` acts on the whole instance (disk, service, restore,
 * certificates of the server, the status of every register) and takes only the instance's: the `def`
 * password, a Digest user of the instance realm, or this machine. Every other route is for one register,
 * selected exactly as the route selects it (`rn`, or TaxId/TL/TT in Multi POS), and takes that register's
 * own credentials too. Before any rule, requests a browser makes from another site or under a foreign host
 * name are judged (request-origin.ts), and an address that failed too often waits (login-throttle.ts).
 *
 * A route the table does not know is treated as `local-or-password` (closed by default) and logged.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import { failureOf, failureReply } from '../respond.js';
import { formatOf, send } from '../routes/http.js';
import { rnOfQuery } from '../register-number.js';
import { corsPolicy } from './cors.js';
import { HtdigestFile, htdigestPath } from './htdigest.js';
import { type CredentialLevel, isInstancePassword, isOperatorCandidate, isOwnPassword, markAdmitted, markCrossSite, passwordOf, passwordHashes, trustedLocal } from './local-or-password.js';
import { LoginThrottle } from './login-throttle.js';
import { PageAuth } from './page-auth.js';
import { configuredHosts, judgeCrossSite, requestHostAllowed } from './request-origin.js';
import { invalidToken } from './cloud-auth.js';

export type AccessRule = 'open' | 'local-or-password' | 'password-once-set' | 'page' | 'admin-page';

export interface RouteEntry {
  methods: readonly string[];
  /** the Fastify path pattern (`:name` for a parameter) */
  path: string;
  rule: AccessRule;
  /** largest request body in bytes (routes that take one) */
  bodyLimit?: number;
  reason: string;
  /** a query that makes the route open (GET /backup?log is /backup/log) */
  openWith?: string;
  /** the query `password` means something else here (POST /cer/ssl: the certificate's): the profile password comes only by HTTP Basic */
  basicOnly?: true;
  /** the route acts on the whole instance: only the instance's credentials count */
  scope?: 'instance';
  /** in cloud mode the route spans every tenant: only the instance's credentials count there */
  cloudInstance?: true;
}

const KiB = 1024;
const MiB = 1024 * KiB;
/** Up to 5000 lines of a transaction (the pipeline's limit) with long descriptions, as XML. */
export const TRANSACTION_LIMIT = 2 * MiB;
/** Small forms and query-only POSTs. */
export const SMALL_LIMIT = 64 * KiB;
/** A route the table does not know. */
export const UNLISTED_LIMIT = 1 * MiB;
/** A backup zip uploaded to POST /backup/restore (streamed to a file, never held in memory). */
export const BACKUP_UPLOAD_LIMIT = 1024 * MiB;

export const ROUTES: readonly RouteEntry[] = [
  // transactions
  { methods: ['POST'], path: '/register', rule: 'open', bodyLimit: TRANSACTION_LIMIT, reason: 'POS API: registration' },
  { methods: ['POST'], path: '/restart', rule: 'open', bodyLimit: TRANSACTION_LIMIT, reason: 'POS API: registration after a POS restart' },
  { methods: ['POST'], path: '/register/void', rule: 'open', bodyLimit: TRANSACTION_LIMIT, reason: 'POS API: void of an original' },
  { methods: ['POST'], path: '/register/void/last', rule: 'open', bodyLimit: SMALL_LIMIT, reason: 'POS API: empty body or only SESR' },
  { methods: ['GET'], path: '/last', rule: 'open', reason: 'POS API: timeout handling polls it' },
  { methods: ['GET'], path: '/find', rule: 'open', reason: 'POS API: journal search, limited to 1000 rows per page' },
  { methods: ['GET'], path: '/tra', rule: 'open', reason: 'POS API: one transaction by TL/TT/TN' },
  { methods: ['GET'], path: '/retrieve', rule: 'local-or-password', reason: 'spec: the whole journal as a stream' },
  { methods: ['GET'], path: '/export', rule: 'local-or-password', reason: 'the whole journal and the tax-audit exports, like /retrieve and /backup' },
  { methods: ['GET'], path: '/recorder/lastdh', rule: 'open', reason: 'POS API: digital receipt handle' },
  { methods: ['GET'], path: '/recorder/lastdh/qr', rule: 'open', reason: 'POS API: digital receipt QR' },
  { methods: ['PUT'], path: '/repo', rule: 'open', bodyLimit: 4 * MiB, reason: 'POS API: documents a file in the audit trail (1 Mi characters, up to 4 bytes each)' },
  { methods: ['GET'], path: '/repo', rule: 'open', reason: 'POS API: the documented state of a file' },
  { methods: ['GET', 'POST'], path: '/jou/reprintcnt', rule: 'open', bodyLimit: SMALL_LIMIT, reason: 'spec: needs no permission' },
  // configuration
  { methods: ['GET'], path: '/cfg', rule: 'open', reason: 'POS API: base data' },
  { methods: ['POST'], path: '/cfg', rule: 'open', bodyLimit: 1 * MiB, reason: 'POS API: programmatic configuration' },
  { methods: ['GET'], path: '/profile', rule: 'password-once-set', reason: 'Attributes can hold TSE PINs/PUKs, Device_Auth and API keys' },
  { methods: ['POST'], path: '/profile', rule: 'password-once-set', bodyLimit: SMALL_LIMIT, reason: 'changes the password itself and the attributes; open before a password exists so a POS can set up a new instance' },
  { methods: ['GET'], path: '/state', rule: 'open', reason: 'POS API and monitoring; secrets of EnvSettings are masked' },
  // rendering
  ...['/render', '/render/pdf', '/render/text', '/render/escpos'].flatMap((path): RouteEntry[] => [
    { methods: ['GET'], path, rule: 'open', reason: 'POS API: receipt of a register' },
    { methods: ['POST'], path, rule: 'open', bodyLimit: TRANSACTION_LIMIT, reason: 'POS API: renders a posted transaction' },
  ]),
  { methods: ['GET'], path: '/qr', rule: 'open', reason: 'POS API: any text as a QR image' },
  // custom layouts
  { methods: ['GET'], path: '/peri/layout', rule: 'open', reason: 'POS API: list of layouts' },
  { methods: ['GET'], path: '/peri/layout/source', rule: 'open', reason: 'the template text for the editor; layouts are not secret' },
  { methods: ['POST', 'PUT'], path: '/peri/layout', rule: 'local-or-password', bodyLimit: 512 * KiB, reason: 'a template runs code (sandboxed) for every receipt: no upload from the LAN without the password; file limit 256 KiB' },
  { methods: ['DELETE'], path: '/peri/layout', rule: 'local-or-password', bodyLimit: SMALL_LIMIT, reason: 'changes how receipts print' },
  { methods: ['GET'], path: '/peri/pugedit', rule: 'page', reason: 'browser page: template editor' },
  { methods: ['GET'], path: '/peri/pugedit/editor.js', rule: 'page', reason: 'script of the editor page' },
  { methods: ['POST'], path: '/peri/pugedit/preview', rule: 'local-or-password', bodyLimit: 512 * KiB, reason: 'runs a template (in the sandbox) like saving a layout: the same credentials as POST /peri/layout' },
  // peripherals
  { methods: ['POST'], path: '/peri/print', rule: 'open', bodyLimit: 256 * KiB, reason: 'POS API: non-fiscal print' },
  { methods: ['GET'], path: '/peri/print/state', rule: 'open', reason: 'POS API: printer state' },
  { methods: ['POST'], path: '/peri/display', rule: 'open', bodyLimit: 16 * KiB, reason: 'POS API: customer display' },
  { methods: ['POST'], path: '/peri/drawer', rule: 'open', bodyLimit: 16 * KiB, reason: 'POS API: cash drawer' },
  { methods: ['POST'], path: '/peri/drawer/wait', rule: 'open', bodyLimit: 16 * KiB, reason: 'POS API: cash drawer' },
  // maintenance, storage, utility
  { methods: ['POST'], path: '/service/restart', rule: 'local-or-password', scope: 'instance', bodyLimit: SMALL_LIMIT, reason: 'spec' },
  { methods: ['GET'], path: '/service/config', rule: 'admin-page', scope: 'instance', reason: 'browser page: backup path and last result' },
  { methods: ['POST'], path: '/service/config', rule: 'admin-page', scope: 'instance', bodyLimit: SMALL_LIMIT, reason: 'sets a folder the service writes to' },
  { methods: ['GET'], path: '/backup', rule: 'local-or-password', openWith: 'log', reason: 'spec; with the ?log flag it is /backup/log (open)' },
  { methods: ['GET'], path: '/backup/log', rule: 'open', cloudInstance: true, reason: 'spec: logs without business data, no permission' },
  { methods: ['GET'], path: '/backup/incremental', rule: 'local-or-password', reason: 'spec' },
  { methods: ['GET', 'POST'], path: '/backup/restore', rule: 'admin-page', scope: 'instance', bodyLimit: BACKUP_UPLOAD_LIMIT, reason: 'browser page that replaces registers; the backup zip may be uploaded' },
  { methods: ['GET'], path: '/backup/info', rule: 'admin-page', scope: 'instance', reason: 'progress of the restore page' },
  { methods: ['GET'], path: '/disk', rule: 'open', reason: 'monitoring: sizes only' },
  { methods: ['GET'], path: '/disk/dir', rule: 'local-or-password', scope: 'instance', reason: 'lists the files of the data folder' },
  { methods: ['POST'], path: '/disk/clean', rule: 'local-or-password', scope: 'instance', bodyLimit: SMALL_LIMIT, reason: 'deletes data' },
  { methods: ['GET'], path: '/log', rule: 'open', cloudInstance: true, reason: 'the same log lines as /backup/log, which the spec opens' },
  { methods: ['POST'], path: '/lic', rule: 'local-or-password', scope: 'instance', bodyLimit: SMALL_LIMIT, reason: 'changes the license' },
  // security
  { methods: ['POST'], path: '/auth/token', rule: 'open', bodyLimit: 16 * KiB, reason: 'checks its own client credentials' },
  { methods: ['GET'], path: '/authorization', rule: 'local-or-password', scope: 'instance', reason: 'spec' },
  { methods: ['GET'], path: '/cer/:serial', rule: 'open', reason: 'a public certificate' },
  { methods: ['POST'], path: '/cer/ssl', rule: 'local-or-password', scope: 'instance', basicOnly: true, bodyLimit: 1 * MiB, reason: 'replaces the server certificate; the query password is the certificate\'s, the profile password comes by HTTP Basic' },
  { methods: ['POST'], path: '/cer/fiscal', rule: 'local-or-password', basicOnly: true, bodyLimit: 1 * MiB, reason: 'installs the key that signs the fiscal requests of a register (Croatia, Slovenia); the query password is the certificate\'s, the profile password comes by HTTP Basic' },
  { methods: ['GET'], path: '/cer/fiscal', rule: 'local-or-password', reason: 'shows a register\'s fiscal certificate (subject, serial, expiry; never the key)' },
  { methods: ['POST'], path: '/cer/ca', rule: 'local-or-password', scope: 'instance', bodyLimit: 1 * MiB, reason: 'decides which client certificates are trusted' },
  // browser pages
  { methods: ['GET', 'POST'], path: '/', rule: 'admin-page', bodyLimit: SMALL_LIMIT, reason: 'browser page: the profile (password, attributes); the form changes it' },
  { methods: ['GET', 'POST'], path: '/ui/cfg', rule: 'admin-page', bodyLimit: SMALL_LIMIT, reason: 'browser page: the base data (Cfg); the form changes it' },
  { methods: ['GET'], path: '/control', rule: 'admin-page', scope: 'instance', reason: 'browser page: status of the service, recorder, disk, last transactions' },
  { methods: ['GET'], path: '/ui/journal', rule: 'admin-page', reason: 'browser page: journal search and receipts (business data)' },
  { methods: ['GET'], path: '/ui/journal/receipt', rule: 'admin-page', reason: 'browser page: one journal record, the receipt framed as printed' },
  { methods: ['GET'], path: '/ui/journal/paper', rule: 'admin-page', reason: 'the receipt as printed (GET /render\'s HTML) inside the journal page\'s frame' },
  { methods: ['POST'], path: '/ui/journal/export', rule: 'admin-page', bodyLimit: SMALL_LIMIT, reason: 'the journal page\'s download of GET /export (jou and the country\'s types; not dep\'s AES key); a form with the page token (a TSE export writes a log record)' },
  { methods: ['POST'], path: '/ui/journal/backup', rule: 'admin-page', bodyLimit: SMALL_LIMIT, reason: 'the journal page\'s download of GET /backup (a register\'s full backup); a form with the page token (it sets the archive mark)' },
  { methods: ['POST'], path: '/ui/journal/verify', rule: 'admin-page', bodyLimit: SMALL_LIMIT, reason: 'the journal page\'s chain and signature check of a register (reads only; the form carries the page token)' },
  { methods: ['GET'], path: '/ui/style.css', rule: 'open', reason: 'the pages\' style sheet: no data (also for the login refusal page)' },
];

/** `/cer/:serial` and `/cer/:id` are the same pattern. */
function patternKey(method: string, url: string): string {
  const path = url.length > 1 ? url.replace(/\/+$/, '') : url;
  return `${method} ${path.replace(/:[^/]+/g, ':')}`;
}

const BY_KEY: ReadonlyMap<string, RouteEntry> = new Map(ROUTES.flatMap((e) => e.methods.map((m) => [patternKey(m, e.path), e] as const)));

export function entryOf(method: string, url: string): RouteEntry | undefined {
  return BY_KEY.get(patternKey(method === 'HEAD' ? 'GET' : method, url));
}

interface AccessConfig {
  efrAccess?: Readonly<Record<string, RouteEntry>>;
}

const unlisted = new WeakMap<FastifyInstance, string[]>();

/** Routes Fastify has that the table does not name (each is treated as `local-or-password`). */
export function unlistedRoutes(app: FastifyInstance): readonly string[] {
  return unlisted.get(app) ?? [];
}

const FALLBACK: Omit<RouteEntry, 'methods' | 'path'> = { rule: 'local-or-password', bodyLimit: UNLISTED_LIMIT, reason: 'not in the table: closed by default' };

function methodsOf(opts: RouteOptions): string[] {
  const m = opts.method as HTTPMethods | HTTPMethods[];
  return (Array.isArray(m) ? m : [m]).map((x) => x.toUpperCase());
}

/**
 * The register a request is for, read exactly as the routes read it (register-number.ts): `rn`, else in
 * Multi POS TaxId/TL/TT. When no register can be named, `def`: the instance's credentials are needed then.
 */
export function accessRn(ctx: ServiceContext, query: Readonly<Record<string, string>>): string {
  if (query.rn) return query.rn;
  if (!ctx.profiles.multiPos() || !query.tl || !query.tt) return 'def';
  try {
    return rnOfQuery(ctx, query);
  } catch {
    return 'def';
  }
}

/** The rule that applies to this request, and whether it acts on the whole instance. */
function ruleOf(ctx: ServiceContext, req: FastifyRequest, entry: RouteEntry, query: Readonly<Record<string, string>>): { rule: AccessRule; instance: boolean } {
  // the cloud operator without a tenant's token: the instance password on every route
  if (ctx.cloud && isOperatorCandidate(req)) return { rule: 'local-or-password', instance: true };
  const opened = entry.openWith !== undefined && query[entry.openWith] !== undefined;
  // a cloud instance serves many companies: what spans all of them is the operator's
  if (ctx.cloud && (entry.cloudInstance || opened)) return { rule: 'local-or-password', instance: true };
  // the browser pages of a cloud instance are the operator's: they list and change any register
  if (ctx.cloud && (entry.rule === 'page' || entry.rule === 'admin-page')) return { rule: 'admin-page', instance: true };
  return { rule: opened ? 'open' : entry.rule, instance: entry.scope === 'instance' };
}

/** The access hook of the app; `throttle` is exposed for tests. */
export function routeAccessHook(app: FastifyInstance, ctx: ServiceContext): { throttle: LoginThrottle } {
  const pages = new PageAuth(ctx, new HtdigestFile(htdigestPath(ctx.dataDir)), ctx.clock);
  const throttle = new LoginThrottle(ctx.clock);
  const missing: string[] = [];
  unlisted.set(app, missing);
  // EFR_HOSTS is fixed at start: the set is made again only when the attribute changed
  let hostsAttribute: string | undefined;
  let hosts: ReadonlySet<string> = configuredHosts(new Map(), ctx.allowedHosts);

  app.addHook('onRoute', (opts) => {
    const access: Record<string, RouteEntry> = {};
    let limit = 0;
    for (const method of methodsOf(opts)) {
      const found = entryOf(method, opts.url ?? '');
      const entry = found ?? { ...FALLBACK, methods: [method], path: opts.url ?? '' };
      if (!found && method !== 'HEAD') {
        missing.push(`${method} ${opts.url ?? ''}`);
        app.log.warn({ method, url: opts.url }, 'route not in the access table of route-access.ts: only from this machine or with the password');
      }
      access[method] = entry;
      limit = Math.max(limit, entry.bodyLimit ?? 0);
    }
    opts.config = { ...(opts.config as object | undefined), efrAccess: access } as typeof opts.config;
    if (opts.bodyLimit === undefined && limit > 0) opts.bodyLimit = limit;
  });

  /** The host names of HttpServer_Hosts and EFR_HOSTS. */
  function allowedHosts(): ReadonlySet<string> {
    const raw = ctx.profiles.settings('def').raw;
    const attribute = raw.get('httpserver_hosts');
    if (attribute !== hostsAttribute) {
      hosts = configuredHosts(raw, ctx.allowedHosts);
      hostsAttribute = attribute;
    }
    return hosts;
  }

  app.addHook('onRequest', async (req, res) => {
    const entry = (req.routeOptions.config as AccessConfig | undefined)?.efrAccess?.[req.method];
    // no route: the 404 handler answers
    if (!entry) return undefined;
    const query = (req.query ?? {}) as Readonly<Record<string, string>>;
    const { rule, instance } = ruleOf(ctx, req, entry, query);
    const rn = instance ? 'def' : accessRn(ctx, query);
    const what = `${req.method} ${req.routeOptions.url ?? ''}`;
    const refusal = originRefusal(req, query, rule, what) ?? (await admit(req, res, entry, rule, instance, query, rn, what)) ?? tooLarge(req);
    if (!refusal) return undefined;
    // a cloud request with neither a token nor the instance password is answered as one without a token,
    // as a POS expects (after the password was counted as a failed attempt)
    if (ctx.cloud && isOperatorCandidate(req) && (refusal.code === '#FORBIDDEN' || refusal.code === '#INSTANCE_ONLY')) {
      return invalidToken(res, 'an access token is required (Authorization: Bearer), or the instance password');
    }
    // the body is not read: the connection cannot be reused
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) res.header('connection', 'close');
    // answered here with its own status: HttpServer_respond200 is for the POS's RC handling, a browser
    // needs the 401 to ask for a password
    const path = req.url.split('?')[0] ?? '';
    const root = path === '/register' || path === '/restart' ? 'TraC' : 'Result';
    return send(res, failureReply(formatOf(req), root, failureOf(refusal, ctx.registers.lang(ctx.registers.get('def'))), false));
  });

  /** A foreign host name (DNS rebinding) or another site's page (request-origin.ts); not in cloud mode. */
  function originRefusal(req: FastifyRequest, query: Readonly<Record<string, string>>, rule: AccessRule, what: string): FiscalError | undefined {
    if (ctx.cloud) return undefined;
    const host = req.headers['x-forwarded-host'] ?? req.headers.host;
    if (!requestHostAllowed(req, allowedHosts())) {
      req.log.info({ route: what, host, ip: req.socket?.remoteAddress }, 'refused: a host name that is not this service\'s');
      return new FiscalError('#HOST_NOT_ALLOWED', { value: what, host: String(host).slice(0, 100) });
    }
    // the fast path of the POS: no browser headers at all
    if (req.headers.origin === undefined && req.headers['sec-fetch-site'] === undefined) return undefined;
    const verdict = judgeCrossSite(req, query, rule === 'open', corsPolicy(ctx.profiles.settings('def').raw), what);
    if (verdict.crossSite) markCrossSite(req);
    if (verdict.refusal) req.log.info({ route: what, origin: req.headers.origin, ip: req.socket?.remoteAddress }, 'refused: a cross-site request');
    return verdict.refusal;
  }

  function tooLarge(req: FastifyRequest): FiscalError | undefined {
    const length = Number(req.headers['content-length']);
    const limit = req.routeOptions.bodyLimit;
    return Number.isFinite(length) && length > limit ? new FiscalError('#TOO_LARGE', { value: limit }) : undefined;
  }

  /** Nothing protects the register or the instance yet: no password, no Digest user. */
  function unprotected(rn: string): boolean {
    return passwordHashes(ctx, rn).length === 0 && pages.credentials(rn).digestRealm === undefined && pages.htdigest.realmFor('def') === undefined;
  }

  /** The credentials the request itself carries (a password, HTTP Basic or Digest), as opposed to none. */
  function presents(req: FastifyRequest, query: Readonly<Record<string, string>>, basicOnly: boolean): boolean {
    return passwordOf(req, basicOnly ? {} : query) !== undefined || /^digest\s/i.test(req.headers.authorization ?? '');
  }

  /**
   * The level of the credentials the request carries for `rn`: the instance's (the `def` password, a Digest
   * user of the instance realm), the register's own (its password, a Digest user of its realm), or none.
   */
  async function levelOf(req: FastifyRequest, query: Readonly<Record<string, string>>, rn: string, instance: boolean, basicOnly: boolean): Promise<{ level?: CredentialLevel; stale: boolean }> {
    const password = passwordOf(req, basicOnly ? {} : query);
    if (password !== undefined) {
      if (await isInstancePassword(ctx, password)) return { level: 'instance', stale: false };
      if (!instance && (await isOwnPassword(ctx, rn, password))) return { level: 'register', stale: false };
    }
    const instanceRealm = pages.htdigest.realmFor('def');
    const realm = instance ? instanceRealm : pages.credentials(rn).digestRealm;
    if (realm === undefined) return { stale: false };
    const digest = pages.digest(req, realm);
    if (digest === 'ok') return { level: realm === instanceRealm ? 'instance' : 'register', stale: false };
    return { stale: digest === 'stale' };
  }

  /**
   * Admits the request by the credentials it carries (marking their level), else counts a presented wrong
   * one against its address; 'stale' when only a Digest nonce was too old (no failure: the browser retries).
   */
  async function admitByCredentials(req: FastifyRequest, query: Readonly<Record<string, string>>, rn: string, instance: boolean, basicOnly: boolean, presented: boolean): Promise<'ok' | 'stale' | 'refused'> {
    const address = req.socket?.remoteAddress;
    const { level, stale } = await levelOf(req, query, rn, instance, basicOnly);
    if (level) {
      if (presented) throttle.succeeded(address);
      markAdmitted(req, rn, level);
      return 'ok';
    }
    if (presented && !stale) throttle.failed(address);
    return stale ? 'stale' : 'refused';
  }

  async function admit(req: FastifyRequest, res: FastifyReply, entry: RouteEntry, given: AccessRule, instance: boolean, query: Readonly<Record<string, string>>, rn: string, what: string): Promise<FiscalError | undefined> {
    let rule = given;
    if (rule === 'password-once-set') {
      // the instance profile of a cloud instance is the operator's, never open to a tenant's token
      rule = unprotected(rn) && !(ctx.cloud && rn === 'def') ? 'open' : 'local-or-password';
    }
    if (rule === 'open') return undefined;
    const local = trustedLocal(ctx, req);
    const address = req.socket?.remoteAddress;
    const basicOnly = entry.basicOnly === true;
    const presented = !local && presents(req, query, basicOnly);
    if (presented) {
      const wait = throttle.waitSeconds(address);
      if (wait > 0) {
        res.header('retry-after', String(wait));
        return new FiscalError('#TOO_MANY_ATTEMPTS', { seconds: wait });
      }
    }
    if (rule === 'local-or-password') {
      if (local) {
        markAdmitted(req, rn, 'instance');
        return undefined;
      }
      if ((await admitByCredentials(req, query, rn, instance, basicOnly, presented)) === 'ok') return undefined;
      req.log.info({ route: what, ip: address }, 'refused: not local and no valid password');
      return new FiscalError(instance ? '#INSTANCE_ONLY' : '#FORBIDDEN', { value: what });
    }
    // browser pages
    const creds = pages.credentials(rn);
    if (!creds.password && !creds.digestRealm) {
      if (rule === 'page' || local) {
        markAdmitted(req, rn, local ? 'instance' : 'register');
        return undefined;
      }
      return new FiscalError(instance ? '#INSTANCE_ONLY' : '#FORBIDDEN', { value: what });
    }
    const outcome = await admitByCredentials(req, query, rn, instance, false, presented);
    if (outcome === 'ok') return undefined;
    const checked = pages.challenges(rn, outcome === 'stale');
    req.log.info({ route: what, ip: address }, 'page refused: no valid credentials');
    // several challenges are several header lines (a browser picks the strongest it knows)
    res.header('www-authenticate', checked.challenges);
    res.header('cache-control', 'no-store');
    return new FiscalError('#UNAUTHORIZED', { value: what, realm: checked.realm });
  }

  return { throttle };
}
