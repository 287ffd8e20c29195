/**
 * The table of journal records shared by the status page (last transactions) and the journal page (search
 * results): SQ, date, type, TL/TT/TN, FN, total (date and total as the page's language writes them), a mark on
 * receipts journaled but not printed, and a link that opens the record (the receipt as printed).
 */
import { type Obj, obj, str } from '../codec/index.js';
import type { Formats } from './formats.js';
import { type Html, html } from './html.js';
import type { Translate } from './i18n.js';
import type { UnprintedReceipt } from './unprinted-receipts.js';

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

/** The mark of a receipt that is journaled but not (or not surely) printed. */
export function unprintedBadge(t: Translate, mark: UnprintedReceipt): Html {
  return html`<span class="badge bad unprinted" title="${t(mark.maybe ? 'rec.maybePrintedHelp' : 'rec.unprintedHelp')}">${t(mark.maybe ? 'rec.maybePrinted' : 'rec.unprinted')}</span>`;
}

export function recordTable(t: Translate, f: Formats, rn: string, views: readonly Obj[], unprinted: ReadonlyMap<number, UnprintedReceipt> = new Map()): Html {
  return html`<table class="records"><thead><tr><th class="num">${t('rec.sq')}</th><th>${t('rec.d')}</th><th>${t('rec.type')}</th><th>${t('rec.tn')}</th><th>${t('rec.fn')}</th><th class="num">${t('rec.total')}</th><th></th></tr></thead><tbody>
${views.map((v) => {
  const esr = obj(v, 'ESR') ?? {};
  const fis = obj(v, 'Fis') ?? {};
  const sq = str(v, 'SQ') ?? '';
  const id = [str(esr, 'TL'), str(esr, 'TT'), str(esr, 'TN')];
  const mark = unprinted.get(Number(sq));
  const total = str(esr, 'T');
  return html`<tr data-sq="${sq}"${mark ? html` class="unprinted"` : ''}><td class="num">${sq}</td><td class="date">${f.dateTime(str(esr, 'D') ?? str(v, 'TS') ?? '')}</td><td>${typeText(t, str(v, '_') ?? '')}${mark ? html` ${unprintedBadge(t, mark)}` : ''}</td><td>${id.some((x) => x !== undefined) ? id.map((x) => x ?? '').join('/') : ''}</td><td class="fn">${str(fis, 'FN') ?? ''}</td><td class="num total"${total === undefined ? '' : html` data-value="${total}"`}>${total === undefined ? '' : f.amount(total)}</td><td><a href="${recordHref(rn, sq)}">${t('rec.open')}</a></td></tr>\n`;
})}</tbody></table>`;
}
