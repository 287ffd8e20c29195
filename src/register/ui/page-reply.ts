/**
 * How the browser pages answer: HTML that is never cached, with a content security policy that allows only the
 * service's own style sheet and forms posted to the service itself (no script, no inline style, no frames from
 * elsewhere).
 */
import type { FastifyReply } from 'fastify';
import { FiscalError } from '../../shared/errors.js';

export const PAGE_CSP = "default-src 'self'; img-src 'self' data:; script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

export function sendPage(res: FastifyReply, status: number, page: string, csp: string = PAGE_CSP): FastifyReply {
  return res
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .send(page);
}

/** The field a refusal of the API names (`Badge`, `Attributes.HttpServer_Port`, `Cfg.Cmp.Ctry`), if any. */
export function refusedField(e: unknown): string | undefined {
  if (!(e instanceof FiscalError)) return undefined;
  const field = e.params.field;
  return typeof field === 'string' ? field : undefined;
}
