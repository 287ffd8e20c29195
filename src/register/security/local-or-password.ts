/**
 * The rule of the spec for /retrieve, /backup, /service/restart, /authorization: a request from this
 * machine, or one that carries the profile password (query `password`, or HTTP Basic with any user name).
 *
 * "This machine" is the loopback address of the TCP connection (127.0.0.0/8, ::1, and both as IPv4-mapped
 * IPv6). A request that went through a proxy (X-Forwarded-For, Forwarded, X-Real-IP) is never local, even
 * when the proxy runs on this machine: the real client is elsewhere. Those headers are not trusted to make a
 * request local either.
 */
import { createHmac, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';

const FORWARDED = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'via'];

/** The 8 groups of an IPv6 address (an embedded dotted IPv4 tail becomes two groups); undefined when malformed. */
function ipv6Groups(address: string): number[] | undefined {
  let a = address;
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(a);
  if (dotted) {
    const o = dotted.slice(1).map(Number);
    if (o.some((x) => x > 255)) return undefined;
    a = `${a.slice(0, dotted.index)}${(((o[0] as number) << 8) | (o[1] as number)).toString(16)}:${(((o[2] as number) << 8) | (o[3] as number)).toString(16)}`;
  }
  const halves = a.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => parseInt(g, 16));
}

/** A loopback address: 127.0.0.0/8, ::1, or 127.x written as IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  let a = address.toLowerCase();
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(a);
  if (v4) return Number(v4[1]) === 127 && v4.slice(2).every((o) => Number(o) <= 255);
  if (!a.includes(':')) return false;
  const g = ipv6Groups(a);
  if (!g) return false;
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true;
  return g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff && (g[6] as number) >> 8 === 127;
}

export function isLocal(req: FastifyRequest): boolean {
  if (FORWARDED.some((h) => req.headers[h] !== undefined)) return false;
  return isLoopback(req.socket?.remoteAddress);
}

/**
 * Whether the request passes the local-or-password rule for being local. Not in cloud mode: there the
 * machine is the provider's, a reverse proxy on it would make every tenant "local", so the password is
 * always needed.
 */
export function localExempt(ctx: ServiceContext, req: FastifyRequest): boolean {
  return !ctx.cloud && isLocal(req);
}

/** The password a request carries: query `password`, else the password part of HTTP Basic (the user name is ignored). */
export function passwordOf(req: FastifyRequest, query: Readonly<Record<string, string>>): string | undefined {
  if (query.password) return query.password;
  const auth = req.headers.authorization;
  if (auth && /^basic\s/i.test(auth)) {
    const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : decoded;
  }
  return undefined;
}

/** The stored password hashes that open a register: its own and the instance's (`def`). */
export function passwordHashes(ctx: ServiceContext, rn: string): string[] {
  const out: string[] = [];
  const own = ctx.profiles.own(rn).PasswordHash;
  if (own) out.push(own);
  const def = rn === 'def' ? undefined : ctx.profiles.own('def').PasswordHash;
  if (def && def !== own) out.push(def);
  return out;
}

// scrypt is slow on purpose; a password that matched once is remembered (keyed by an HMAC under a key of
// this process, so the memory holds no password) and later requests of the same client do not pay it again
const CACHE_KEY = randomBytes(32);
const accepted = new Map<string, true>();
const CACHE_MAX = 256;

function cacheKey(stored: string, password: string): string {
  return createHmac('sha256', CACHE_KEY).update(stored).update('\0').update(password).digest('base64');
}

function remember(key: string): void {
  if (accepted.size >= CACHE_MAX) accepted.delete(accepted.keys().next().value as string);
  accepted.set(key, true);
}

function parts(stored: string): { salt: Buffer; hash: Buffer } | undefined {
  const [kind, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return undefined;
  return { salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

/** Constant-time check of a password against one stored `scrypt$salt$hash`, off the event loop. */
export async function matchesHash(stored: string, password: string): Promise<boolean> {
  const key = cacheKey(stored, password);
  if (accepted.has(key)) return true;
  const p = parts(stored);
  if (!p || p.hash.length === 0) return false;
  const actual = await new Promise<Buffer>((resolve, reject) => scrypt(password, p.salt, p.hash.length, (e, k) => (e ? reject(e) : resolve(k))));
  const ok = timingSafeEqual(p.hash, actual);
  if (ok) remember(key);
  return ok;
}

function matchesHashSync(stored: string, password: string): boolean {
  const key = cacheKey(stored, password);
  if (accepted.has(key)) return true;
  const p = parts(stored);
  if (!p || p.hash.length === 0) return false;
  const ok = timingSafeEqual(p.hash, scryptSync(password, p.salt, p.hash.length));
  if (ok) remember(key);
  return ok;
}

/** Whether `password` is the profile password stored for `rn` itself (`def`: the instance's). */
async function isProfilePasswordOf(ctx: ServiceContext, rn: string, password: string): Promise<boolean> {
  const stored = ctx.profiles.own(rn).PasswordHash;
  return stored !== undefined && stored !== '' && (await matchesHash(stored, password));
}

/** Whether `password` is the instance's (`def`) profile password. */
export function isInstancePassword(ctx: ServiceContext, password: string): Promise<boolean> {
  return isProfilePasswordOf(ctx, 'def', password);
}

/** Whether `password` is the register's own profile password (not the instance's). */
export async function isOwnPassword(ctx: ServiceContext, rn: string, password: string): Promise<boolean> {
  return rn !== 'def' && (await isProfilePasswordOf(ctx, rn, password));
}

/** Whether the request carries the profile password of the register (or of the instance). */
export async function hasProfilePassword(ctx: ServiceContext, req: FastifyRequest, query: Readonly<Record<string, string>>, rn: string): Promise<boolean> {
  const password = passwordOf(req, query);
  if (password === undefined) return false;
  for (const stored of passwordHashes(ctx, rn)) if (await matchesHash(stored, password)) return true;
  return false;
}

/** How a request was admitted: by the instance's credentials (or from this machine) or by one register's own. */
export type CredentialLevel = 'instance' | 'register';

/** Requests the access hook (route-access.ts) let through by a credential rule, with the register of their query. */
const admitted = new WeakMap<FastifyRequest, { rn: string; level: CredentialLevel }>();
/** Requests a browser made from another site: being on this machine counts for nothing for them. */
const crossSite = new WeakSet<FastifyRequest>();

export function markAdmitted(req: FastifyRequest, rn: string, level: CredentialLevel): void {
  admitted.set(req, { rn, level });
}

/** Cloud requests without a bearer token that carry a password: only the instance password lets them in. */
const operatorCandidates = new WeakSet<FastifyRequest>();

export function markOperatorCandidate(req: FastifyRequest): void {
  operatorCandidates.add(req);
}

export function isOperatorCandidate(req: FastifyRequest): boolean {
  return operatorCandidates.has(req);
}

export function markCrossSite(req: FastifyRequest): void {
  crossSite.add(req);
}

/** A request from this machine that no other site's page made: the owner's, trusted like the instance password. */
export function trustedLocal(ctx: ServiceContext, req: FastifyRequest): boolean {
  return localExempt(ctx, req) && !crossSite.has(req);
}

/**
 * Whether the request was admitted with the instance's credentials (the `def` password, a Digest user of
 * the instance realm, or from this machine): only then may an answer carry what belongs to the whole
 * instance, such as the instance's private keys in a backup.
 */
export function admittedAsInstance(ctx: ServiceContext, req: FastifyRequest): boolean {
  return admitted.get(req)?.level === 'instance' || trustedLocal(ctx, req);
}

/**
 * For a check inside a route (e.g. one export type needs more than the route): throws #FORBIDDEN. A request
 * the access hook already admitted by this rule for the same register (also by a Digest user) passes.
 */
export function requireLocalOrPassword(ctx: ServiceContext, req: FastifyRequest, query: Readonly<Record<string, string>>, rn: string, what: string): void {
  if (admitted.get(req)?.rn === rn) return;
  if (trustedLocal(ctx, req)) return;
  const password = passwordOf(req, query);
  if (password !== undefined && passwordHashes(ctx, rn).some((stored) => matchesHashSync(stored, password))) return;
  throw new FiscalError('#FORBIDDEN', { value: what });
}
