/**
 * The rule of the spec for /retrieve, /backup, /service/restart, /authorization: a request from this
 * machine, or one that carries the profile password (query `password`, or HTTP Basic).
 */
import type { FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import { checkPassword } from '../profile/profile.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

export function isLocal(req: FastifyRequest): boolean {
  return LOOPBACK.test(req.socket.remoteAddress ?? '');
}

function passwordOf(req: FastifyRequest, query: Readonly<Record<string, string>>): string | undefined {
  if (query.password) return query.password;
  const auth = req.headers.authorization;
  if (auth?.startsWith('Basic ')) {
    const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : decoded;
  }
  return undefined;
}

export function requireLocalOrPassword(ctx: ServiceContext, req: FastifyRequest, query: Readonly<Record<string, string>>, rn: string, what: string): void {
  if (isLocal(req)) return;
  const password = passwordOf(req, query);
  const stored = ctx.profiles.own(rn).PasswordHash ?? ctx.profiles.own('def').PasswordHash;
  if (password !== undefined && checkPassword(stored, password)) return;
  throw new FiscalError('#FORBIDDEN', { value: what });
}
