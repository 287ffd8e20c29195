/**
 * The status page (GET /control): the state record of GET /state, the recorder, the data
 * folder as GET /disk shows it, and every register with its last transactions, each opening the receipt.
 */
import { HtdigestFile, htdigestPath } from '../../security/htdigest.js';
import type { FastifyInstance } from 'fastify';
import { type Obj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { scanFolder, storageRecord } from '../../maintenance/disk-usage.js';
import type { Register } from '../../registers.js';
import { recordView } from '../../journal/record-view.js';
import { stateRecord } from '../../state-record.js';
import { countryOf } from '../../fiscal/registry.js';
import { type Html, html } from '../html.js';
import { type Formats, formatsOf } from '../formats.js';
import { COMMON, type Translate, translator, uiLangOf } from '../i18n.js';
import { uiPage } from '../layout.js';
import { recordTable } from '../record-table.js';
import { unprintedReceipts } from '../unprinted-receipts.js';
import { sendPage } from '../page-reply.js';
import { RECORD_TABLE_TEXTS } from '../texts/journal-texts.js';
import { STATUS_TEXTS } from '../texts/status-texts.js';

/** Transactions shown per register, and how many records are looked at to find them (logs, Cfg and reports are skipped). */
export const LAST_TRANSACTIONS = 10;
const LOOK_AT_MOST = 500;
const TRANSACTION_TYPES: ReadonlySet<string> = new Set(['Tra', 'TraS', 'TraU', 'TraV']);

/** The last transactions of a register, newest first, from the journal store. */
export async function lastTransactions(ctx: ServiceContext, reg: Register, n = LAST_TRANSACTIONS): Promise<Obj[]> {
  const out: Obj[] = [];
  let seen = 0;
  for await (const r of ctx.store.find(reg.state.rid, { sort: 'desc' }, 50)) {
    if (TRANSACTION_TYPES.has(r.type)) out.push(recordView(r));
    seen += 1;
    if (out.length >= n || seen >= LOOK_AT_MOST) break;
  }
  return out;
}

function fact(label: string, value: Html | string): Html {
  return html`<dt>${label}</dt><dd>${value}</dd>`;
}

/** The recorder's warning (English, from recorder.ts) in the page's words, with the original as detail. */
export function recorderWarning(t: Translate, warning: string): Html {
  const kind = /no portal address/i.test(warning)
    ? 'noPortal'
    : /refused the activation/i.test(warning)
      ? 'activation'
      : /cannot be reached/i.test(warning)
        ? 'unreachable'
        : /refuses the archive/i.test(warning)
          ? 'archive'
          : 'other';
  return html`<span class="field-error" id="recorder-warning" data-kind="${kind}">${t(`status.warn.${kind}`)}</span>${kind === 'noPortal' ? '' : html` <span class="help">${t('status.warn.detail', { detail: warning })}</span>`}`;
}

function yesNo(t: Translate, ok: boolean): Html {
  return html`<span class="badge ${ok ? 'ok' : 'bad'}">${t(ok ? 'status.yes' : 'status.no')}</span>`;
}

export function statusPageRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/control', async (req, res) => {
    const lang = uiLangOf(req, res);
    const t = translator(lang, STATUS_TEXTS, RECORD_TABLE_TEXTS, COMMON);
    const f: Formats = formatsOf(lang);
    // a number of the state record in the page's language, every digit as the record has it (a quota of
    // 0.0005 MB stays 0,0005); a text that is no number as it is
    const count = (key: string): string => f.amount(str(state, key) ?? '0');
    await ctx.registers.catchUp();
    const state = stateRecord(ctx);
    const disk = storageRecord(await scanFolder(ctx.dataDir));
    const registers = [...ctx.registers.list()].sort((a, b) => (a.state.rn === 'def' ? -1 : b.state.rn === 'def' ? 1 : a.state.rn.localeCompare(b.state.rn)));
    const sections: Html[] = [];
    const digestUsers = new HtdigestFile(htdigestPath(ctx.dataDir));
    for (const reg of registers) {
      const rn = reg.state.rn;
      // a register with credentials of its own (its password, its Digest realm) shows its receipts only in its
      // own journal, where its credentials are asked for; this page checked the instance's
      const ownCredentials = rn !== 'def' && (ctx.profiles.own(rn).PasswordHash !== undefined || digestUsers.realmFor(rn) === `EFR.${rn}`);
      const last = ownCredentials ? [] : await lastTransactions(ctx, reg);
      const marks = ownCredentials ? new Map() : unprintedReceipts(ctx.dataDir, rn);
      const journalOf = (query: string): string => `/ui/journal?rn=${encodeURIComponent(rn)}${query}`;
      sections.push(html`<section class="register" data-rn="${rn}"><h3>${t('register.label')} ${rn}${rn === 'def' ? html` <span class="badge">${t('status.defaultRegister')}</span>` : ''}</h3>
<p>${t('status.country')}: ${countryOf(reg.state.cfg) || '–'} · ${t('status.lastSq')}: ${reg.state.sq} · <a href="${journalOf('')}">${t('status.toJournal', { rn })}</a></p>
${marks.size ? html`<p class="notice error unprinted-count"><a href="${journalOf('&unprinted=1')}">${t('status.unprinted', { n: f.number(marks.size) })}</a></p>` : ''}
${ownCredentials ? html`<p class="help protected">${t('status.ownCredentials')}</p>` : last.length ? recordTable(t, f, rn, last, marks) : html`<p class="help">${t('status.noTransactions')}</p>`}</section>`);
    }
    const recorderState = str(state, 'Recorder') ?? 'inactive';
    const warning = str(state, 'RecorderWarning');
    const body = html`<p><a class="button secondary" href="/control">${t('status.refresh')}</a> <span class="help">${t('status.asOf', { time: f.dateTime(str(state, 'D') ?? '') })}</span></p>
<h2>${t('status.service')}</h2>
<dl class="facts" id="service">
${fact(t('status.version'), str(state, 'version') ?? '')}
${fact(t('status.pid'), `${str(state, 'pid') ?? ''} (${str(state, 'arch') ?? ''})`)}
${fact(t('status.uptime'), html`<span id="uptime">${f.duration(Number(str(state, 'uptime') ?? '0'))}</span>`)}
${fact(t('status.time'), html`<span id="service-time">${f.dateTime(str(state, 'D') ?? '')}</span>`)}
${fact(t('status.company'), str(state, 'Company') || '–')}
${fact(t('status.country'), str(state, 'Country') || '–')}
${fact(t('status.registers'), str(state, 'RN') ?? '')}
</dl>
<h2>${t('status.recorder')}</h2>
<dl class="facts" id="recorder">
${fact(t('status.online'), yesNo(t, str(state, 'Online') === 'true'))}
${fact(t('status.recorderState'), html`<span class="recorder-state">${t(`status.recorder.${recorderState}`)}</span>`)}
${fact(t('status.recSent'), count('RecSent'))}
${fact(t('status.recQueued'), count('RecQueued'))}
${fact(t('status.retryQueued'), count('RetryQueued'))}
${warning ? fact(t('status.warning'), recorderWarning(t, warning)) : ''}
</dl>
<h2>${t('status.disk')}</h2>
<p id="disk-usage">${t('status.diskUsage')}: ${t('status.diskOf', { used: f.number(disk.Usage, 3), quota: count('DiskQuota') })}</p>
<table id="disk"><thead><tr><th>${t('status.folder')}</th><th class="num">${t('status.dirs')}</th><th class="num">${t('status.files')}</th><th class="num">${t('status.bytes')}</th></tr></thead><tbody>
${Object.entries(disk.Path).map(([name, u]) => html`<tr><td>${name}</td><td class="num">${f.number(u.dirs)}</td><td class="num">${f.number(u.files)}</td><td class="num">${f.number(u.size)}</td></tr>`)}
</tbody></table>
<h2>${t('status.lastTransactions')}</h2>
${sections}`;
    return sendPage(res, 200, uiPage({ lang, t, title: t('status.title'), active: 'status', body, path: '/control' }));
  });
}
