/** Small helpers shared by the route files: formats, error answers, query access. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import { type Format, type Obj, contentType, encode, responseFormat, bodyFormat } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { failureOf, failureReply, type Reply } from '../respond.js';
import { rnOfQuery } from '../register-number.js';
import type { Register } from '../registers.js';

export type Query = Record<string, string>;

/**
 * The register a query names (rn, or TaxId/TL/TT), as the journal has it now (another process sharing it may
 * have written it); 404 when the journal does not know it.
 */
export async function registerOf(ctx: ServiceContext, q: Readonly<Record<string, string>>): Promise<Register> {
  const rn = rnOfQuery(ctx, q);
  await ctx.registers.catchUp(rn);
  const reg = ctx.registers.get(rn);
  if (!reg) throw new FiscalError('#UNKNOWN_REGISTER', { value: rn });
  return reg;
}

export function queryOf(req: FastifyRequest): Query {
  return (req.query ?? {}) as Query;
}

export function formatOf(req: FastifyRequest): Format {
  const text = typeof req.body === 'string' ? req.body : '';
  return responseFormat(req.headers.accept, text ? bodyFormat(req.headers['content-type'], text) : undefined);
}

export function send(res: FastifyReply, r: Reply): FastifyReply {
  return res.code(r.status).type(r.contentType).send(r.body);
}

export function sendDoc(res: FastifyReply, format: Format, root: string, body: Obj, status = 200): FastifyReply {
  return res.code(status).type(contentType(format)).send(encode(format, root, body));
}

export function sendJson(res: FastifyReply, req: FastifyRequest, root: string, typed: unknown, model: Obj): FastifyReply {
  const format = formatOf(req);
  if (format === 'json') return res.code(200).type(contentType('json')).send(JSON.stringify({ [root]: typed }));
  return sendDoc(res, format, root, model);
}

/** Runs a handler; a FiscalError (or anything else) becomes a Result answer, never a 5xx. */
export async function guarded(ctx: ServiceContext, req: FastifyRequest, res: FastifyReply, root: string, fn: () => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof FiscalError)) req.log.error({ err: e }, 'request failed');
    const lang = ctx.registers.lang(ctx.registers.get(queryOf(req).rn ?? 'def'));
    return send(res, failureReply(formatOf(req), root, failureOf(e, lang), ctx.profiles.settings('def').respond200));
  }
}
