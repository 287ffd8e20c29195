/**
 * The journal page: GET /ui/journal searches a register's journal (the query machinery of
 * GET /find) and pages through the results by the SQ continuation; GET /ui/journal/receipt shows one record,
 * a receipt as printed (GET /render's HTML, framed from GET /ui/journal/paper); POST /ui/journal/export and
 * POST /ui/journal/backup download what GET /export and GET /backup answer, under the page's access rule (POST
 * forms with the page token: a backup sets the archive mark cleaning relies on, a TSE export appends a log
 * record, so no link of another site may start them); POST /ui/journal/verify checks the register's hash chain
 * and signatures. The register is always the query's `rn` exactly as the access hook read it (pageRn).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FiscalError } from '../../../shared/errors.js';
import { encodeJsonValue } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { moduleFor } from '../../fiscal/registry.js';
import { RECORD_TYPES } from '../../journal/types.js';
import { type RegisterChainReport, tryVerifyRegister } from '../../journal/verify-register.js';
import type { Register } from '../../registers.js';
import { isReceiptRecord, receiptOfRecord } from '../../render/receipt-source.js';
import { failureOf } from '../../respond.js';
import { sendBackup } from '../../routes/backup.js';
import { sendExport } from '../../routes/export.js';
import { registerOf } from '../../routes/http.js';
import { recordView } from '../../journal/record-view.js';
import { printerWidthOf } from '../../peripherals/printer-config.js';
import { DEFAULT_WIDTH } from '../../render/receipt-lines.js';
import { receiptPageHtml } from '../../routes/render.js';
import { type Formats, formatsOf } from '../formats.js';
import { FIT_FRAME_SCRIPT, PAGE_CSP_FITTING_FRAME } from '../frame-fit.js';
import { type FormFields, formIsOurs, formOf, tokenField } from '../forms.js';
import { type Html, html } from '../html.js';
import { COMMON, type Translate, type UiLang, translator, uiLangOf } from '../i18n.js';
import { type Notice, uiPage } from '../layout.js';
import { type SearchError, type SearchInput, searchInputOf, searchJournal } from '../journal-search.js';
import { recordTable, unprintedBadge } from '../record-table.js';
import { unprintedReceipts } from '../unprinted-receipts.js';
import { sendPage } from '../page-reply.js';
import { pageRn, pageRnGiven } from '../page-rn.js';
import { JOURNAL_TEXTS, RECORD_TABLE_TEXTS } from '../texts/journal-texts.js';

type Query = Readonly<Record<string, string | undefined>>;

/** The receipt as printed, inside the page's frame: its own markup and inline style, no script, images as data: URLs. */
const PAPER_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

function textsOf(req: FastifyRequest, res: FastifyReply): { lang: UiLang; t: Translate; f: Formats } {
  const lang = uiLangOf(req, res);
  return { lang, t: translator(lang, JOURNAL_TEXTS, RECORD_TABLE_TEXTS, COMMON), f: formatsOf(lang) };
}

/**
 * The columns the register's printer prints (Printer_Width), so that the receipt in the frame and its PDF are laid
 * out as its paper is; the default width when the setting cannot be used (the printout refuses it, not the page).
 */
function paperWidthOf(ctx: ServiceContext, rn: string): number {
  try {
    return printerWidthOf(ctx.profiles.settings(rn).raw);
  } catch {
    return DEFAULT_WIDTH;
  }
}

/** The export types a register has: the journal, and its country's (GET /export refuses the others). */
export function exportTypesOf(reg: Register): string[] {
  return ['jou', ...Object.keys(moduleFor(reg.state.cfg).exports ?? {})];
}

function linkOf(path: string, params: Readonly<Record<string, string | undefined>>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

function fieldError(error: SearchError | undefined, field: string): Html | '' {
  return error?.field === field ? html`<div class="field-error" id="error-${field}">${error.message}</div>` : '';
}

function textInput(name: string, value: string | undefined, error: SearchError | undefined, attrs: Html | '' = ''): Html {
  return html`<input type="text" id="f-${name}" name="${name}" value="${value ?? ''}"${error?.field === name ? html` aria-invalid="true"` : ''}${attrs}>`;
}

interface JournalView {
  reg: Register | undefined;
  input: SearchInput;
  error?: SearchError;
  results?: Html;
  notice?: Notice;
  /** a verify that ran out of time continues from this SQ */
  continueFrom?: number;
  /** how many receipts of the register are journaled but not printed */
  unprinted?: number;
}

function searchForm(ctx: ServiceContext, t: Translate, v: JournalView): Html {
  const rn = v.reg?.state.rn ?? v.input.rn ?? 'def';
  const e = v.error;
  return html`<form class="grid search" method="get" action="/ui/journal">
<label for="f-rn">${t('journal.register')}</label><div><select id="f-rn" name="rn">${ctx.registers.list().map((r) => html`<option value="${r.state.rn}"${r.state.rn === rn ? html` selected` : ''}>${r.state.rn}</option>`)}</select>${fieldError(e, 'rn')}</div>
<label for="f-from">${t('journal.from')}</label><div><input type="date" id="f-from" name="from" value="${v.input.from ?? ''}">${fieldError(e, 'from')}</div>
<label for="f-till">${t('journal.till')}</label><div><input type="date" id="f-till" name="till" value="${v.input.till ?? ''}"><div class="help">${t('journal.dateHelp')}</div>${fieldError(e, 'till')}</div>
<label for="f-fn">${t('journal.fn')}</label><div>${textInput('fn', v.input.fn, e)}${fieldError(e, 'fn')}</div>
<label for="f-tl">${t('journal.tltttn')}</label><div class="tltttn">${textInput('tl', v.input.tl, e, html` placeholder="${t('journal.tl')}" aria-label="${t('journal.tl')}" size="6"`)} / ${textInput('tt', v.input.tt, e, html` placeholder="${t('journal.tt')}" aria-label="${t('journal.tt')}" size="6"`)} / ${textInput('tn', v.input.tn, e, html` placeholder="${t('journal.tn')}" aria-label="${t('journal.tn')}" size="10"`)}${fieldError(e, 'tl')}${fieldError(e, 'tt')}${fieldError(e, 'tn')}</div>
<label for="f-amount">${t('journal.amount')}</label><div>${textInput('amount', v.input.amount, e, html` inputmode="decimal"`)}<div class="help">${t('journal.amountHelp')}</div>${fieldError(e, 'amount')}</div>
<label for="f-type">${t('journal.type')}</label><div><select id="f-type" name="type"><option value="">${t('journal.anyType')}</option>${RECORD_TYPES.map((ty) => html`<option value="${ty}"${v.input.type === ty ? html` selected` : ''}>${t(`type.${ty}`)} (${ty})</option>`)}</select>${fieldError(e, 'type')}${fieldError(e, 'continuation')}${fieldError(e, 'search')}</div>
<span class="label">${t('journal.printing')}</span><div><label class="inline"><input type="checkbox" id="f-unprinted" name="unprinted" value="1"${v.input.unprinted !== undefined ? html` checked` : ''}> ${t('journal.onlyUnprinted')}</label><div class="help" id="unprinted-count">${t('journal.unprintedCount', { n: v.unprinted ?? 0 })}</div></div>
<div class="full"><button type="submit">${t('form.search')}</button></div>
</form>`;
}

function toolsOf(ctx: ServiceContext, t: Translate, reg: Register, continueFrom: number | undefined): Html {
  const rn = reg.state.rn;
  return html`<h2>${t('journal.downloads')}</h2>
<form class="grid export" method="post" action="${linkOf('/ui/journal/export', { rn })}">${tokenField(ctx.dataDir)}
<label for="x-type">${t('journal.exportType')}</label><div><select id="x-type" name="type">${exportTypesOf(reg).map((ty) => html`<option value="${ty}">${ty}</option>`)}</select><div class="help">${t('journal.exportHelp')}</div></div>
<label for="x-from">${t('journal.from')}</label><div><input type="date" id="x-from" name="from"></div>
<label for="x-till">${t('journal.till')}</label><div><input type="date" id="x-till" name="till"></div>
<div class="full"><button type="submit" id="export">${t('journal.download')}</button></div>
</form>
<form class="backup" method="post" action="${linkOf('/ui/journal/backup', { rn })}">${tokenField(ctx.dataDir)}
<p><button type="submit" class="secondary" id="backup">${t('journal.backup', { rn })}</button></p>
<p class="help">${t('journal.backupHelp')}</p>
</form>
<h2>${t('journal.verify')}</h2>
<form class="verify" method="post" action="${linkOf('/ui/journal/verify', { rn })}">${tokenField(ctx.dataDir)}
<p class="help">${t('journal.verifyHelp', { rn })}</p>
${continueFrom !== undefined ? html`<input type="hidden" name="from" value="${String(continueFrom)}"><button type="submit" id="verify-continue">${t('journal.verifyContinue', { sq: continueFrom })}</button> ` : ''}<button type="submit"${continueFrom !== undefined ? html` class="secondary" name="from" value=""` : ''} id="verify">${t('journal.verify')}</button>
</form>`;
}

function journalPage(ctx: ServiceContext, lang: UiLang, t: Translate, v: JournalView): string {
  const path = linkOf('/ui/journal', v.input);
  const body = html`${searchForm(ctx, t, v)}
${v.results ?? ''}
${v.reg ? toolsOf(ctx, t, v.reg, v.continueFrom) : ''}`;
  return uiPage({ lang, t, title: t('journal.title'), active: 'journal', body, path, ...(v.notice ? { notice: v.notice } : {}) });
}

/** The register a page names (pageRn: the query's `rn`, default def); undefined with the refusal when it is unknown. */
async function registerNamed(ctx: ServiceContext, rn: string): Promise<{ reg?: Register; error?: FiscalError }> {
  try {
    return { reg: await registerOf(ctx, { rn }) };
  } catch (e) {
    if (e instanceof FiscalError) return { error: e };
    throw e;
  }
}

/** A search refusal in the page's words: ours for the fields of the form, else the API's text after a translated lead-in. */
function searchReason(t: Translate, error: SearchError, input: SearchInput): SearchError {
  const value = (input[error.field as keyof SearchInput] ?? '').slice(0, 40);
  switch (error.field) {
    case 'type':
      return { field: 'type', message: t('journal.typeInvalid', { value }) };
    case 'from':
    case 'till':
      return { field: error.field, message: t('journal.dateInvalid', { field: t(`journal.${error.field}`), value }) };
    case 'continuation':
      return { field: 'continuation', message: t('journal.continuationInvalid') };
    case 'amount':
      return error;
    default:
      return { field: error.field, message: t('journal.apiSays', { message: error.message }) };
  }
}

/** The journal page of register `rn` (as pageRn read it) with the results of the search in `q` (and `notice` above them). */
async function answerSearch(ctx: ServiceContext, req: FastifyRequest, res: FastifyReply, rn: string, q: Query, notice?: Notice, status = 200, continueFrom?: number): Promise<FastifyReply> {
  const { lang, t, f } = textsOf(req, res);
  const { rn: _typed, ...input } = searchInputOf(q);
  const { reg, error } = await registerNamed(ctx, rn);
  if (!reg) {
    const message = error ? error.localized(lang) : '';
    return sendPage(res, error?.status ?? 404, journalPage(ctx, lang, t, { reg, input: { ...input, rn }, error: { field: 'rn', message }, notice: notice ?? { kind: 'error', text: t('journal.notSearched', { reason: message }) } }));
  }
  const marks = unprintedReceipts(ctx.dataDir, reg.state.rn);
  const found = await searchJournal(ctx, reg, input, q.continuation, lang, (value) => `${t('journal.amount')}: ${t('journal.amountInvalid', { value })}`, new Set(marks.keys()));
  if (!found.ok) {
    const e = searchReason(t, found.error, input);
    return sendPage(res, 400, journalPage(ctx, lang, t, { reg, input: { ...input, rn }, error: e, unprinted: marks.size, notice: { kind: 'error', text: t('journal.notSearched', { reason: e.message }) } }));
  }
  const { page } = found;
  const results = html`<h2>${t('journal.results')}</h2>
<p class="help" id="count">${t('journal.count', { n: page.records.length })}</p>
${page.timedOut ? html`<p class="notice error">${t('journal.timedOut', { ms: page.ms })}</p>` : ''}
${page.records.length ? recordTable(t, f, rn, page.records, marks) : html`<p id="no-match">${t('journal.none')}</p>`}
<p class="paging">${q.continuation ? html`<a class="button secondary" href="${linkOf('/ui/journal', { ...input, rn })}">${t('journal.first')}</a> ` : ''}${page.continuation !== undefined ? html`<a class="button secondary" id="next" href="${linkOf('/ui/journal', { ...input, rn, continuation: page.continuation })}">${t('journal.next')}</a>` : ''}</p>`;
  return sendPage(res, status, journalPage(ctx, lang, t, { reg, input: { ...input, rn }, results, unprinted: marks.size, ...(notice ? { notice } : {}), ...(continueFrom !== undefined ? { continueFrom } : {}) }));
}

/** A download refused: the journal page (of the register, without a search) with the reason. */
async function refusedDownload(ctx: ServiceContext, req: FastifyRequest, res: FastifyReply, rn: string, e: unknown): Promise<FastifyReply> {
  const { lang, t } = textsOf(req, res);
  if (!(e instanceof FiscalError)) req.log.error({ err: e }, 'download from the journal page failed');
  const f = failureOf(e, lang);
  return answerSearch(ctx, req, res, rn, {}, { kind: 'error', text: t('journal.notDownloaded', { reason: f.userMessage }) }, f.status >= 200 && f.status < 300 ? 400 : f.status);
}

/** The page's answer to an `rn` pageRn refuses (spaces around it, given twice): 404, no register shown. */
function refusedRn(ctx: ServiceContext, req: FastifyRequest, res: FastifyReply): FastifyReply {
  const { lang, t } = textsOf(req, res);
  return sendPage(res, 404, journalPage(ctx, lang, t, { reg: undefined, input: {}, notice: { kind: 'error', text: t('journal.badRn') } }));
}

/** A form of another site (or without the page token): 403, nothing done. */
function foreignForm(req: FastifyRequest, res: FastifyReply): FastifyReply {
  const { lang, t } = textsOf(req, res);
  return sendPage(res, 403, uiPage({ lang, t, title: t('journal.title'), active: 'journal', body: html``, path: '/ui/journal', notice: { kind: 'error', text: t('form.badOrigin') } }));
}

/** The outcome of a verify in words, and the SQ a check that ran out of time continues from. */
function verifyNotice(t: Translate, rn: string, report: RegisterChainReport): { notice: Notice; continueFrom?: number } {
  if (!report.ok) {
    const kind = report.broken?.kind;
    const reason = kind ? t(`chain.${kind}`) : (report.broken?.reason ?? '');
    return { notice: { kind: 'error', text: t('journal.verifyBroken', { sq: report.broken?.sq ?? '', rn, reason, n: report.count }) } };
  }
  if (report.continueFromSq !== undefined) {
    return { notice: { kind: 'ok', text: t('journal.verifyPartial', { n: report.count, rn, first: report.firstSq, last: report.lastSq, next: report.continueFromSq }) }, continueFrom: report.continueFromSq };
  }
  return { notice: { kind: 'ok', text: report.count === 0 ? t('journal.verifyEmpty', { rn }) : t('journal.verifyOk', { n: report.count, rn, first: report.firstSq, last: report.lastSq }) } };
}

/** The fields a download form sends that the API routes read (only these: dep's AES key stays with GET /export). */
function downloadParams(rn: string, form: FormFields): Record<string, string> {
  const params: Record<string, string> = { rn };
  for (const k of ['type', 'from', 'till'] as const) {
    const v = form.get(k);
    if (v !== undefined && v !== '') params[k] = v;
  }
  return params;
}

function recordFacts(t: Translate, f: Formats, view: ReturnType<typeof recordView>, mark: ReturnType<ReturnType<typeof unprintedReceipts>['get']>): Html {
  const esr = (view.ESR ?? {}) as Record<string, unknown>;
  const fis = (view.Fis ?? {}) as Record<string, unknown>;
  const s = (o: Record<string, unknown>, k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');
  const id = [s(esr, 'TL'), s(esr, 'TT'), s(esr, 'TN')];
  return html`<dl class="facts" id="record">
<dt>${t('rec.type')}</dt><dd>${t(`type.${String(view._)}`)} (${String(view._)})${mark ? html` ${unprintedBadge(t, mark)}` : ''}</dd>
<dt>${t('rec.sq')}</dt><dd>${String(view.SQ ?? '')}</dd>
<dt>${t('rec.d')}</dt><dd id="record-date">${f.dateTime(s(esr, 'D') || (typeof view.TS === 'string' ? view.TS : ''))}</dd>
${id.some(Boolean) ? html`<dt>${t('rec.tn')}</dt><dd>${id.join('/')}</dd>` : ''}
${s(fis, 'FN') ? html`<dt>${t('rec.fn')}</dt><dd id="record-fn">${s(fis, 'FN')}</dd>` : ''}
${s(esr, 'T') ? html`<dt>${t('rec.total')}</dt><dd id="record-total" data-value="${s(esr, 'T')}">${f.amount(s(esr, 'T'))}</dd>` : ''}
</dl>`;
}

/** The record a query names by rn (pageRn) and sq; a refusal (status and text) when it names none. */
async function recordOf(ctx: ServiceContext, t: Translate, lang: UiLang, rn: string | undefined, q: Query): Promise<{ reg: Register; record: NonNullable<Awaited<ReturnType<ServiceContext['store']['get']>>> } | { status: number; text: string }> {
  if (rn === undefined) return { status: 404, text: t('journal.badRn') };
  const sq = typeof q.sq === 'string' ? q.sq : '';
  if (!/^\d{1,15}$/.test(sq)) return { status: 400, text: t('receipt.badSq', { value: sq.slice(0, 40) }) };
  const { reg, error } = await registerNamed(ctx, rn);
  if (!reg) return { status: error?.status ?? 404, text: error ? error.localized(lang) : rn };
  const record = await ctx.store.get(reg.state.rid, Number(sq));
  if (!record) return { status: 404, text: t('receipt.notFound', { sq, rn: reg.state.rn }) };
  return { reg, record };
}

/** The small page inside the receipt frame when there is nothing to print (translated, in the frame's own policy). */
function paperNotice(lang: UiLang, text: string): string {
  return html`<!DOCTYPE html><html lang="${lang}"><meta charset="utf-8"><p>${text}</p></html>`.text;
}

export function journalPageRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/ui/journal', async (req, res) => {
    const rn = pageRn(req);
    if (rn === undefined) return refusedRn(ctx, req, res);
    const q = req.query as Query;
    if (!pageRnGiven(req)) {
      // registers another process sharing the journal created meanwhile
      await ctx.registers.catchUp();
      if (!ctx.registers.get('def')) {
        const first = ctx.registers.list()[0];
        if (!first) {
          const { lang, t } = textsOf(req, res);
          return sendPage(res, 200, journalPage(ctx, lang, t, { reg: undefined, input: {}, notice: { kind: 'ok', text: t('journal.noRegisters') } }));
        }
        // without def (Multi POS): the first register, by its own address, so that the access hook checks its credentials
        const { rn: _typed, ...input } = searchInputOf(q);
        return res.code(303).header('cache-control', 'no-store').redirect(linkOf('/ui/journal', { ...input, rn: first.state.rn }), 303);
      }
    }
    return answerSearch(ctx, req, res, rn, q);
  });

  app.get('/ui/journal/receipt', async (req, res) => {
    const { lang, t, f } = textsOf(req, res);
    const q = req.query as Query;
    const rn0 = pageRn(req);
    const found = await recordOf(ctx, t, lang, rn0, q);
    const path = linkOf('/ui/journal/receipt', { rn: rn0, sq: typeof q.sq === 'string' ? q.sq : undefined });
    if ('status' in found) {
      const body = html`<p><a href="${linkOf('/ui/journal', { rn: rn0 })}">${t('receipt.back')}</a></p>`;
      return sendPage(res, found.status, uiPage({ lang, t, title: t('journal.title'), active: 'journal', body, path, notice: { kind: 'error', text: found.text } }));
    }
    const { reg, record } = found;
    const rn = reg.state.rn;
    const view = recordView(record);
    const fn = record.fn;
    const mark = unprintedReceipts(ctx.dataDir, rn).get(record.sq);
    const width = paperWidthOf(ctx, rn);
    const paper = isReceiptRecord(record)
      ? html`<h2>${t('receipt.paper')}</h2>
<iframe class="paper" title="${t('receipt.paper')}" src="${linkOf('/ui/journal/paper', { rn, sq: String(record.sq) })}"></iframe>
${FIT_FRAME_SCRIPT}
${record.type === 'Tra' && fn ? html`<p><a class="button secondary" href="${linkOf('/render/pdf', { rn, fn, width: width === DEFAULT_WIDTH ? undefined : String(width) })}">${t('receipt.pdf')}</a></p>` : ''}`
      : '';
    const body = html`<p><a href="${linkOf('/ui/journal', { rn })}">${t('receipt.back')}</a></p>
${recordFacts(t, f, view, mark)}
${paper}
<details class="record-data"><summary>${t('receipt.data')}</summary><pre>${JSON.stringify(JSON.parse(encodeJsonValue('', view)), null, 2)}</pre></details>`;
    return sendPage(res, 200, uiPage({ lang, t, title: t('receipt.title', { sq: record.sq, rn }), active: 'journal', body, path }), PAGE_CSP_FITTING_FRAME);
  });

  app.get('/ui/journal/paper', async (req, res) => {
    const { lang, t } = textsOf(req, res);
    const found = await recordOf(ctx, t, lang, pageRn(req), req.query as Query);
    if ('status' in found) return sendPage(res, found.status, paperNotice(lang, found.text), PAPER_CSP);
    if (!isReceiptRecord(found.record)) {
      return sendPage(res, 404, paperNotice(lang, t('receipt.notPrinted', { sq: found.record.sq, type: t(`type.${found.record.type}`) })), PAPER_CSP);
    }
    return sendPage(res, 200, await receiptPageHtml(ctx, await receiptOfRecord(ctx, found.reg, found.record), paperWidthOf(ctx, found.reg.state.rn)), PAPER_CSP);
  });

  app.post('/ui/journal/export', async (req, res) => {
    const form = formOf(req);
    if (!formIsOurs(req, form, ctx.dataDir)) return foreignForm(req, res);
    const rn = pageRn(req);
    if (rn === undefined) return refusedRn(ctx, req, res);
    try {
      return await sendExport(ctx, req, res, downloadParams(rn, form));
    } catch (e) {
      return refusedDownload(ctx, req, res, rn, e);
    }
  });

  app.post('/ui/journal/backup', async (req, res) => {
    const form = formOf(req);
    if (!formIsOurs(req, form, ctx.dataDir)) return foreignForm(req, res);
    const rn = pageRn(req);
    if (rn === undefined) return refusedRn(ctx, req, res);
    try {
      return await sendBackup(ctx, req, res, { rn });
    } catch (e) {
      return refusedDownload(ctx, req, res, rn, e);
    }
  });

  app.post('/ui/journal/verify', async (req, res) => {
    const { lang, t } = textsOf(req, res);
    const form = formOf(req);
    if (!formIsOurs(req, form, ctx.dataDir)) return foreignForm(req, res);
    const rn = pageRn(req);
    if (rn === undefined) return refusedRn(ctx, req, res);
    const { reg, error } = await registerNamed(ctx, rn);
    if (!reg) return answerSearch(ctx, req, res, rn, {}, { kind: 'error', text: error ? error.localized(lang) : rn }, error?.status ?? 404);
    const from = form.get('from') ?? '';
    if (from !== '' && !/^\d{1,15}$/.test(from)) return answerSearch(ctx, req, res, rn, {}, { kind: 'error', text: t('receipt.badSq', { value: from.slice(0, 40) }) }, 400);
    const name = reg.state.rn;
    const report = await tryVerifyRegister(`${ctx.dataDir}\0${reg.state.rid}`, ctx.store, reg.state.rid, ctx.signer.publicKey, from ? { fromSq: Number(from) } : {});
    if (report === 'busy') return answerSearch(ctx, req, res, rn, {}, { kind: 'error', text: t('journal.verifyBusy', { rn: name }) }, 409);
    const { notice, continueFrom } = verifyNotice(t, name, report);
    return answerSearch(ctx, req, res, rn, {}, notice, 200, continueFrom);
  });
}
