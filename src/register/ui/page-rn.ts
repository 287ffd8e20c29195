/**
 * The register a page request is for: exactly the `rn` the access hook checked the credentials of
 * (security/route-access.ts: the raw query `rn`, else `def`), from the query only, never from a form body and
 * never trimmed. An `rn` the hook and the page could read differently (surrounding spaces, given twice, empty
 * text after trimming) is refused: the page answers 404 instead of showing or changing another register.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from './html.js';
import type { Translate, UiLang } from './i18n.js';
import { type UiSection, uiPage } from './layout.js';
import { sendPage } from './page-reply.js';

/** The page's register, or undefined when the query's `rn` is not one the page may use (answer 404). */
export function pageRn(req: FastifyRequest): string | undefined {
  const raw: unknown = ((req.query ?? {}) as Record<string, unknown>).rn;
  if (raw === undefined || raw === '') return 'def';
  if (typeof raw !== 'string') return undefined;
  if (raw.trim() !== raw || raw.trim() === '') return undefined;
  return raw;
}

/** True when the query named a register (`?rn=` not empty): forms post back to it. */
export function pageRnGiven(req: FastifyRequest): boolean {
  const raw: unknown = ((req.query ?? {}) as Record<string, unknown>).rn;
  return typeof raw === 'string' && raw !== '';
}

/** The answer to a refused `rn`: 404, the page's frame with the reason (COMMON 'page.badRn'). */
export function sendBadRn(res: FastifyReply, lang: UiLang, t: Translate, active: UiSection, path: string): FastifyReply {
  return sendPage(res, 404, uiPage({ lang, t, title: t('page.badRnTitle'), active, body: html`<p><a href="${path}">${t('page.badRnBack')}</a></p>`, notice: { kind: 'error', text: t('page.badRn') }, path }));
}
