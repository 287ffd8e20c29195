/**
 * The table of journal records shared by the status page (last transactions) and the journal page (search
 * results): SQ, date, type, TL/TT/TN, FN, total, and a link that opens the record (the receipt as printed).
 */
import { type Obj, obj, str } from '../codec/index.js';
import { type Html, html } from './html.js';
import type { Translate } from './i18n.js';

/** The journal page's view of one record of a register. */
export function recordHref(rn: string, sq: string): string {
  return `/ui/journal/receipt?rn=${encodeURIComponent(rn)}&sq=${encodeURIComponent(sq)}`;
}

/** A record type in words, with the type itself for those who know it. */
function typeText(t: Translate, type: string): string {
  const key = `type.${type}`;
  const words = t(key);
  return words === key ? type : `${words} (${type})`;
}

export function recordTable(t: Translate, rn: string, views: readonly Obj[]): Html {
  return html`<table class="records"><thead><tr><th class="num">${t('rec.sq')}</th><th>${t('rec.d')}</th><th>${t('rec.type')}</th><th>${t('rec.tn')}</th><th>${t('rec.fn')}</th><th class="num">${t('rec.total')}</th><th></th></tr></thead><tbody>
${views.map((v) => {
  const esr = obj(v, 'ESR') ?? {};
  const fis = obj(v, 'Fis') ?? {};
  const sq = str(v, 'SQ') ?? '';
  const id = [str(esr, 'TL'), str(esr, 'TT'), str(esr, 'TN')];
  return html`<tr data-sq="${sq}"><td class="num">${sq}</td><td>${(str(esr, 'D') ?? str(v, 'TS') ?? '').replace('T', ' ')}</td><td>${typeText(t, str(v, '_') ?? '')}</td><td>${id.some((x) => x !== undefined) ? id.map((x) => x ?? '').join('/') : ''}</td><td class="fn">${str(fis, 'FN') ?? ''}</td><td class="num total">${str(esr, 'T') ?? ''}</td><td><a href="${recordHref(rn, sq)}">${t('rec.open')}</a></td></tr>\n`;
})}</tbody></table>`;
}
