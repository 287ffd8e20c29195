/**
 * The base-data page (GET and POST `/ui/cfg`, `?rn=` for another register, default def): the register's Cfg as
 * GET /cfg shows it, as a form grouped by part (company, location, terminal, devices, agencies, e-invoicing
 * sender data). Fields the form does not know are name/value rows, so nothing is lost on save. Saving goes
 * through saveCfg exactly as POST /cfg does (a journaled Cfg record; identical values record nothing).
 */
import type { FastifyInstance } from 'fastify';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, type Value, isObj } from '../../codec/index.js';
import { saveCfg } from '../../cfg.js';
import type { ServiceContext } from '../../context.js';
import { remember } from '../../record-writer.js';
import { cfgRnOf } from '../../routes/config.js';
import { failureOf } from '../../respond.js';
import { CFG_FIELD_TEXTS, CFG_PARTS, type CfgPartDef, fieldApplies, partApplies } from '../cfg-fields.js';
import { type FormFields, formIsOurs, formOf, tokenField } from '../forms.js';
import { type Html, html } from '../html.js';
import { COMMON, type Translate, type UiLang, translator, uiLangOf } from '../i18n.js';
import { type Notice, uiPage } from '../layout.js';
import { refusedField, sendPage } from '../page-reply.js';
import { pageRn, pageRnGiven, sendBadRn } from '../page-rn.js';
import { CFG_TEXTS } from '../texts/cfg-texts.js';

/** Extra name/value rows offered in each part for fields the form does not list. */
const EXTRA_ROWS = 1;

const textOf = (v: Value | undefined): string => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** One object of a part as the form shows it: the known fields, then the others as rows. */
interface ItemModel {
  known: Record<string, string>;
  extra: Array<[string, string]>;
}

function itemOf(part: CfgPartDef, v: Value | undefined): ItemModel {
  const o: Obj = isObj(v) ? v : {};
  const known: Record<string, string> = {};
  const extra: Array<[string, string]> = [];
  for (const f of part.fields) known[f] = textOf(o[f]);
  for (const [k, val] of Object.entries(o)) if (!part.fields.includes(k)) extra.push([k, textOf(val)]);
  return { known, extra };
}

/** The whole form: each part's items (one for Cmp, Loc, Trm, Doc; a list for Dev and DE_Agentur). */
type CfgModel = Record<string, ItemModel[]>;

function modelOf(cfg: Obj): CfgModel {
  const out: CfgModel = {};
  for (const part of CFG_PARTS) {
    const v = cfg[part.key];
    out[part.key] = part.kind === 'object' ? [itemOf(part, v)] : (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((item) => itemOf(part, item));
  }
  return out;
}

/**
 * Input names: `Cmp.Nam`, `Dev.0.Id`; the extra rows `Cmp.+name` / `Cmp.+value`, `Dev.0.+name`. Values exactly
 * as typed (POST /cfg does not trim either); an empty field is left out, unless the stored item has that field
 * (then it is sent as '', so that an unchanged save is identical and records nothing).
 */
function itemFromForm(form: FormFields, part: CfgPartDef, prefix: string, stored: Obj): { item: ItemModel; obj: Obj } {
  const known: Record<string, string> = {};
  const obj: Obj = {};
  // a stored list or object is shown as JSON text: the same text sends it back as it was
  const valueOf = (name: string, text: string): Value => {
    const was = stored[name];
    return was !== undefined && typeof was !== 'string' && textOf(was) === text ? was : text;
  };
  for (const f of part.fields) {
    const v = form.get(`${prefix}.${f}`) ?? '';
    known[f] = v;
    if (v !== '' || f in stored) obj[f] = valueOf(f, v);
  }
  const values = form.all(`${prefix}.+value`);
  const extra: Array<[string, string]> = [];
  form.all(`${prefix}.+name`).forEach((name, i) => {
    const n = name.trim();
    if (n === '') return;
    const v = values[i] ?? '';
    extra.push([n, v]);
    obj[n] = valueOf(n, v);
  });
  return { item: { known, extra }, obj };
}

/**
 * The POST /cfg body the form stands for: every part the form has, so that the saved Cfg is what the page
 * shows; a part the register has and the form leaves empty is sent empty (POST /cfg keeps a part not sent).
 * `index` maps `Dev[i]` of the body to the form's item, for naming the field of a refusal.
 */
function cfgOf(form: FormFields, current: Obj): { sent: Obj; typed: CfgModel; index: Map<string, number> } {
  const sent: Obj = {};
  const typed: CfgModel = {};
  const index = new Map<string, number>();
  for (const part of CFG_PARTS) {
    if (part.kind === 'object') {
      const { item, obj } = itemFromForm(form, part, part.key, isObj(current[part.key]) ? (current[part.key] as Obj) : {});
      typed[part.key] = [item];
      if (Object.keys(obj).length || part.key in current) sent[part.key] = obj;
      continue;
    }
    const count = Math.min(Number(form.get(`${part.key}.count`) ?? '0') || 0, 1000);
    const removed = new Set(form.all(`${part.key}.remove`));
    const v = current[part.key];
    const storedItems: Value[] = Array.isArray(v) ? v : v === undefined ? [] : [v];
    const items: ItemModel[] = [];
    const objs: Obj[] = [];
    for (let i = 0; i < count; i++) {
      const storedItem = storedItems[i];
      const { item, obj } = itemFromForm(form, part, `${part.key}.${i}`, isObj(storedItem) ? storedItem : {});
      if (removed.has(String(i)) || Object.keys(obj).length === 0) continue;
      index.set(`${part.key}[${objs.length}]`, items.length);
      items.push(item);
      objs.push(obj);
    }
    typed[part.key] = items;
    if (objs.length || part.key in current) sent[part.key] = objs;
  }
  return { sent, typed, index };
}

/** `Cfg.Dev[1].Id` (the body's item 1) as the form's input name `Dev.<form item>.Id`. */
function inputOfField(field: string | undefined, index: ReadonlyMap<string, number>): string | undefined {
  if (!field?.startsWith('Cfg.')) return undefined;
  const rest = field.slice(4);
  const m = /^(\w+)\[(\d+)\](?:\.(.+))?$/.exec(rest);
  if (m) {
    const i = index.get(`${m[1]}[${m[2]}]`) ?? Number(m[2]);
    return `${m[1]}.${i}${m[3] ? `.${m[3]}` : ''}`;
  }
  return rest;
}

/** The warnings of saveCfg in the page's language (the rest with a translated lead-in). */
function warningText(t: Translate, w: string): string {
  const missing = /^(Cfg\.[\w[\].]+) is missing; it is required for fiscal receipts$/.exec(w);
  if (missing) return t('cfg.missing', { field: missing[1] as string });
  if (w === 'identical configuration: nothing recorded') return t('cfg.identical');
  // a country module's warning has no translation here: a translated lead-in, the text as the API gives it
  return t('cfg.apiWarning', { text: w });
}

interface Shown {
  rn: string;
  /** the form posts to this register; undefined: no `rn` (Multi POS: the register follows from the base data, as POST /cfg) */
  postRn: string | undefined;
  model: CfgModel;
  /** top-level keys of the Cfg that are no part the form knows: shown, kept (POST /cfg keeps what is not sent) */
  others: Obj;
  notice?: Notice;
  warnings?: string[];
  errorInput?: string;
  errorText?: string;
}

function registerChoice(ctx: ServiceContext, t: Translate, rn: string): Html | '' {
  const rns = [...new Set(['def', ...ctx.registers.list().map((r) => r.state.rn), rn])];
  if (rns.length < 2) return '';
  return html`<form class="register-choice" method="get" action="/ui/cfg"><label for="rn-choice">${t('register.label')}</label>
<select id="rn-choice" name="rn">${rns.map((r) => html`<option value="${r}"${r === rn ? html` selected` : ''}>${r}</option>`)}</select>
<button type="submit" class="secondary">${t('cfg.show')}</button></form>`;
}

function renderCfg(ctx: ServiceContext, lang: UiLang, t: Translate, s: Shown): string {
  const isErr = (name: string): boolean => s.errorInput !== undefined && s.errorInput === name;
  const errOf = (name: string): Html | '' => (isErr(name) && s.errorText ? html`<div class="field-error" role="alert">${s.errorText}</div>` : '');

  const fieldHtml = (part: CfgPartDef, prefix: string, f: string, value: string): Html => {
    const id = `f-${prefix}.${f}`;
    const name = `${prefix}.${f}`;
    const required = part.required.includes(f);
    const choices = part.choices?.[f];
    const invalid = isErr(name) ? html` aria-invalid="true"` : '';
    const input = choices && (value === '' || choices.includes(value))
      ? html`<select id="${id}" name="${name}"${invalid}><option value=""${value === '' ? html` selected` : ''}>—</option>${choices.map((c) => html`<option value="${c}"${c === value ? html` selected` : ''}>${c}</option>`)}</select>`
      : html`<input type="text" id="${id}" name="${name}" value="${value}"${invalid}>`;
    return html`<label for="${id}">${t(`field.${f}`)} <code>${f}</code>${required ? html` <span class="required" title="${t('cfg.required')}">*</span>` : ''}</label>
<div>${input}${errOf(name)}</div>`;
  };

  const extraRows = (prefix: string, extra: ReadonlyArray<[string, string]>): Html => {
    const rows = [...extra, ...Array.from({ length: EXTRA_ROWS }, (): [string, string] => ['', ''])];
    return html`<div class="full"><table class="extra-fields"><thead><tr><th>${t('cfg.otherName')}</th><th>${t('cfg.otherValue')}</th></tr></thead><tbody>
${rows.map(([n, v], i) => html`<tr><td><input type="text" name="${prefix}.+name" value="${n}" aria-label="${t('cfg.otherName')} ${i + 1}"></td><td><input type="text" name="${prefix}.+value" value="${v}" aria-label="${t('cfg.otherValue')} ${i + 1}">${n ? errOf(`${prefix}.${n}`) : ''}</td></tr>`)}
</tbody></table><div class="help">${t('cfg.otherHelp')}</div></div>`;
  };

  // the country the form is for: as typed (a refused save) or stored; another country's fields are left out,
  // unless they hold a value (nothing stored is hidden)
  const country = (s.model.Cmp?.[0]?.known.Ctry ?? '').trim().toUpperCase();
  const fieldsOf = (part: CfgPartDef, item: ItemModel): string[] => part.fields.filter((f) => fieldApplies(part, f, country) || (item.known[f] ?? '') !== '');
  const partHtml = (part: CfgPartDef): Html | '' => {
    const items = s.model[part.key] ?? [];
    if (!partApplies(part, country) && items.length === 0) return '';
    if (part.kind === 'object') {
      const item = items[0] ?? { known: {}, extra: [] };
      return html`<h2 class="full" id="part-${part.key}">${t(part.title)}</h2>
${fieldsOf(part, item).map((f) => fieldHtml(part, part.key, f, item.known[f] ?? ''))}
${extraRows(part.key, item.extra)}${errOf(part.key)}`;
    }
    const shown = [...items, { known: {}, extra: [] }];
    return html`<h2 class="full" id="part-${part.key}">${t(part.title)}</h2>
<input type="hidden" name="${part.key}.count" value="${shown.length}">
${shown.map((item, i) => {
  const prefix = `${part.key}.${i}`;
  const isNew = i === items.length;
  return html`<h3 class="full">${isNew ? t('cfg.newItem') : `${part.key} ${i + 1}`}${isNew ? '' : html` <label class="inline"><input type="checkbox" name="${part.key}.remove" value="${i}"> ${t('cfg.remove')}</label>`}</h3>
${fieldsOf(part, item).map((f) => fieldHtml(part, prefix, f, item.known[f] ?? ''))}
${extraRows(prefix, item.extra)}${errOf(prefix)}`;
})}${errOf(part.key)}`;
  };

  const otherKeys = Object.keys(s.others);
  const body = html`
${registerChoice(ctx, t, s.rn)}
<p class="help">${s.postRn === undefined && ctx.profiles.multiPos() ? t('cfg.multiPos') : t('cfg.intro', { rn: s.rn })}</p>
${s.warnings?.length ? html`<ul class="warnings">${s.warnings.map((w) => html`<li>${warningText(t, w)}</li>`)}</ul>` : ''}
<form class="grid" method="post" action="${s.postRn === undefined ? '/ui/cfg' : `/ui/cfg?rn=${encodeURIComponent(s.postRn)}`}" id="cfg-form">
${tokenField(ctx.dataDir)}
${CFG_PARTS.map(partHtml)}
${otherKeys.length ? html`<h2 class="full">${t('cfg.otherParts')}</h2><div class="full"><pre class="other-parts">${JSON.stringify(s.others, null, 2)}</pre><div class="help">${t('cfg.otherPartsHelp')}</div></div>` : ''}
<div class="full"><button type="submit">${t('form.save')}</button> <span class="help">* ${t('cfg.required')}</span></div>
</form>`;
  return uiPage({ lang, t, title: t('cfg.title'), active: 'cfg', body, ...(s.notice ? { notice: s.notice } : {}), path: s.rn === 'def' ? '/ui/cfg' : `/ui/cfg?rn=${encodeURIComponent(s.rn)}` });
}

const KNOWN_PARTS = new Set(CFG_PARTS.map((p) => p.key));
const othersOf = (cfg: Obj): Obj => Object.fromEntries(Object.entries(cfg).filter(([k]) => !KNOWN_PARTS.has(k)));

export function cfgPageRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const tr = (lang: UiLang): Translate => translator(lang, CFG_TEXTS, CFG_FIELD_TEXTS, COMMON);
  const cfgOfRn = async (rn: string): Promise<Obj> => {
    await ctx.registers.catchUp(rn);
    return ctx.registers.get(rn)?.state.cfg ?? {};
  };

  app.get('/ui/cfg', async (req, res) => {
    const lang = uiLangOf(req, res);
    const rn = pageRn(req);
    if (rn === undefined) return sendBadRn(res, lang, tr(lang), 'cfg', '/ui/cfg');
    const cfg = await cfgOfRn(rn);
    return sendPage(res, 200, renderCfg(ctx, lang, tr(lang), { rn, postRn: pageRnGiven(req) ? rn : undefined, model: modelOf(cfg), others: othersOf(cfg) }));
  });

  app.post('/ui/cfg', async (req, res) => {
    const lang = uiLangOf(req, res);
    const t = tr(lang);
    const rn = pageRn(req);
    if (rn === undefined) return sendBadRn(res, lang, t, 'cfg', '/ui/cfg');
    const postRn = pageRnGiven(req) ? rn : undefined;
    const form = formOf(req);
    let current = await cfgOfRn(rn);
    if (!formIsOurs(req, form, ctx.dataDir)) {
      return sendPage(res, 403, renderCfg(ctx, lang, t, { rn, postRn, model: modelOf(current), others: othersOf(current), notice: { kind: 'error', text: t('form.badOrigin') } }));
    }
    let made = cfgOf(form, current);
    try {
      // the register exactly as POST /cfg finds it (Multi POS without rn: from Cmp.TaxId, Loc.TL, Trm.TT)
      const target = cfgRnOf(ctx, postRn === undefined ? {} : { rn: postRn }, made.sent);
      if (target !== rn) {
        current = await cfgOfRn(target);
        made = cfgOf(form, current);
      }
      const reg = await ctx.registers.getOrCreate(target);
      const outcome = await saveCfg(ctx, reg, made.sent);
      if (outcome.sealed) remember(reg, 'Cfg', outcome.sealed);
      const saved = reg.state.cfg;
      const identical = !outcome.sealed;
      return sendPage(res, 200, renderCfg(ctx, lang, t, {
        rn: target, postRn: postRn ?? (target === rn ? undefined : target), model: modelOf(saved), others: othersOf(saved),
        notice: { kind: 'ok', text: identical ? t('cfg.identical') : `${t('form.saved')} ${t('cfg.recorded', { sq: outcome.sq })}` },
        warnings: outcome.warnings.filter((w) => w !== 'identical configuration: nothing recorded'),
      }));
    } catch (e) {
      if (!(e instanceof FiscalError)) req.log.error({ err: e }, 'base-data page: saving failed');
      const failure = failureOf(e, lang);
      const input = inputOfField(refusedField(e), made.index);
      return sendPage(res, failure.status >= 400 ? failure.status : 400, renderCfg(ctx, lang, t, {
        rn, postRn, model: made.typed, others: othersOf(current),
        notice: { kind: 'error', text: t('form.notSaved', { reason: failure.userMessage }) },
        ...(input ? { errorInput: input, errorText: failure.userMessage } : {}),
      }));
    }
  });
}
