/**
 * The Profile page at the base address (GET and POST `/`, `?rn=` for a register's own profile, default def):
 * Badge, TaxId, RN_TT, the password, the settings HttpServer_Port, DiskQuota and Proxy, and the attribute list
 * as rows with the spec's help for each known attribute. Settings preset by environment variables are shown
 * read-only with the spec's "blocked" message and are never sent. Saving does exactly what POST /profile does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FiscalError } from '../../../shared/errors.js';
import type { Obj } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import type { Profile } from '../../profile/profile.js';
import { saveProfile } from '../../save-profile.js';
import { formatAttributes, parseAttributes } from '../../profile/attributes.js';
import { failureOf } from '../../respond.js';
import { ATTRIBUTE_HELP, attributeHelp, attributeName } from '../attribute-help.js';
import { type FormFields, formIsOurs, formOf, tokenField } from '../forms.js';
import { type Html, html } from '../html.js';
import { COMMON, type Translate, type UiLang, translator, uiLangOf } from '../i18n.js';
import { type Notice, uiPage } from '../layout.js';
import { refusedField, sendPage } from '../page-reply.js';
import { pageRn, sendBadRn } from '../page-rn.js';
import { PROFILE_TEXTS } from '../texts/profile-texts.js';

/** The settings the page shows as fields of their own (they are attributes of the profile). */
export const PROFILE_SETTINGS = ['HttpServer_Port', 'DiskQuota', 'Proxy'] as const;
type SettingName = (typeof PROFILE_SETTINGS)[number];

/** Empty attribute rows offered for new attributes. */
const NEW_ROWS = 3;

interface AttrRow {
  name: string;
  /** the stored form: '' is `name=` (empty text), a bare `name` is 'true' */
  value: string;
  /** a row offered for a new attribute: an empty value there means a bare `name` (true) */
  fresh: boolean;
}

/** What the form shows: the stored profile, or the values as typed. */
interface ProfileModel {
  badge: string;
  taxId: string;
  rnTT: boolean;
  passwordSet: boolean;
  settings: Record<SettingName, string>;
  rows: AttrRow[];
}

/** The environment's settings for this RN, by lower-cased name: the name as written there. */
function blockedNames(ctx: ServiceContext, rn: string): Map<string, string> {
  return new Map([...(ctx.envSettings.get(rn)?.keys() ?? [])].map((k) => [k.toLowerCase(), k]));
}

/** The names of an attribute list as written there, by lower-cased name (parseAttributes keeps only the lower case). */
function spellingsOf(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of (text ?? '').matchAll(/([^\s=]+)(?:=(?:"[^"]*"|'[^']*'|\S*))?/g)) out.set((m[1] as string).toLowerCase(), m[1] as string);
  return out;
}

function modelOf(ctx: ServiceContext, rn: string): ProfileModel {
  const own = ctx.profiles.own(rn);
  const attrs = parseAttributes(own.Attributes);
  const written = spellingsOf(own.Attributes);
  const settings = Object.fromEntries(PROFILE_SETTINGS.map((s) => [s, attrs.get(s.toLowerCase()) ?? ''])) as Record<SettingName, string>;
  const rows: AttrRow[] = [];
  for (const [name, value] of attrs) {
    if (!PROFILE_SETTINGS.some((s) => s.toLowerCase() === name)) rows.push({ name: attributeHelp(name) ? attributeName(name) : written.get(name) ?? name, value, fresh: false });
  }
  return { badge: own.Badge ?? '', taxId: own.TaxId ?? '', rnTT: own.RN_TT === true, passwordSet: Boolean(own.PasswordHash), settings, rows };
}

/** A refusal of the page itself (before the API is asked), naming the field like the API does. */
class FormRefusal extends Error {
  constructor(
    readonly field: string,
    text: string,
  ) {
    super(text);
  }
}

/**
 * The POST /profile body the form stands for: only what differs from the stored profile (an unchanged save
 * sends nothing, and a field left empty never hides the instance's value a register inherits); values exactly as
 * typed (the API does not trim either). Blocked settings are left out (the environment sets them).
 */
function bodyOf(form: FormFields, rn: string, stored: Profile, blocked: ReadonlyMap<string, string>, t: Translate): { body: Obj; typed: ProfileModel } {
  const names = form.all('attr.name');
  const values = form.all('attr.value');
  const kinds = form.all('attr.kind');
  const removed = new Set(form.all('attr.remove'));
  const rows: AttrRow[] = names
    .map((name, i) => ({ name: name.trim(), value: values[i] ?? '', fresh: kinds[i] === 'new' }))
    .filter((r, i) => !removed.has(String(i)) && r.name !== '');
  const settings = Object.fromEntries(PROFILE_SETTINGS.map((s) => [s, form.get(s) ?? ''])) as Record<SettingName, string>;
  const typed: ProfileModel = { badge: form.get('Badge') ?? '', taxId: form.get('TaxId') ?? '', rnTT: form.has('RN_TT'), passwordSet: false, settings, rows };

  const body: Obj = {};
  const changed = (field: 'Badge' | 'TaxId', value: string): boolean => form.has(field) && !blocked.has(field.toLowerCase()) && value !== (stored[field] ?? '');
  if (changed('Badge', typed.badge)) body.Badge = typed.badge;
  if (changed('TaxId', typed.taxId)) body.TaxId = typed.taxId;
  if (rn === 'def' && !blocked.has('rn_tt') && form.has('RN_TT.shown') && typed.rnTT !== (stored.RN_TT === true)) body.RN_TT = typed.rnTT ? 'true' : 'false';
  const password = form.get('Password') ?? '';
  if (password !== '' && !blocked.has('password')) {
    if (password !== (form.get('Password2') ?? '')) throw new FormRefusal('Password', t('password.mismatch'));
    body.Password = password;
  }
  // the attribute list only when the form had its rows (a form without them leaves it as it is)
  if (!blocked.has('attributes') && form.has('attr.name')) {
    const storedAttrs = parseAttributes(stored.Attributes);
    const list = new Map<string, [string, string]>();
    for (const r of rows) {
      if (!/^[^\s="']+$/.test(r.name)) throw new FormRefusal(`Attributes.${r.name}`, t('attr.badName', { name: r.name }));
      if (blocked.has(r.name.toLowerCase())) continue;
      // a stored value goes back as it is ('' stays `name=`); an empty new row is a bare `name` (true)
      list.set(r.name.toLowerCase(), [attributeHelp(r.name) ? attributeName(r.name) : r.name, r.fresh && r.value === '' ? 'true' : r.value]);
    }
    for (const s of PROFILE_SETTINGS) {
      if (blocked.has(s.toLowerCase())) continue;
      list.delete(s.toLowerCase());
      if (settings[s] !== '' || storedAttrs.get(s.toLowerCase()) === '') list.set(s.toLowerCase(), [s, settings[s]]);
    }
    const unchanged = [...storedAttrs].filter(([k]) => !blocked.has(k));
    const same = unchanged.length === list.size && unchanged.every(([k, v]) => list.get(k)?.[1] === v);
    if (!same) {
      const map = new Map([...list.values()]);
      const text = formatAttributes(map);
      // the list must read back as written (a value with both spaces and quotes cannot be written)
      const back = parseAttributes(text);
      for (const [name, value] of map) {
        if (back.get(name.toLowerCase()) !== value) throw new FormRefusal(`Attributes.${name}`, t('attr.badValue', { name }));
      }
      body.Attributes = text;
    }
  }
  return { body, typed };
}

function blockedNote(t: Translate, setting: string, rn: string): Html {
  return html`<div class="help blocked"><strong>${t('blocked', { setting_name: setting, RN: rn })}</strong> · ${t('blocked.why')}</div>`;
}

function fieldError(errorField: string | undefined, field: string, text: string | undefined): Html | '' {
  return errorField !== undefined && text !== undefined && errorField.toLowerCase() === field.toLowerCase() ? html`<div class="field-error" role="alert">${text}</div>` : '';
}

interface Shown {
  rn: string;
  model: ProfileModel;
  notice?: Notice;
  /** the field a refusal names, and its message */
  errorField?: string;
  errorText?: string;
}

function registerChoice(ctx: ServiceContext, t: Translate, rn: string): Html | '' {
  const rns = [...new Set(['def', ...ctx.registers.list().map((r) => r.state.rn), ...ctx.envSettings.keys(), rn])];
  if (rns.length < 2) return '';
  return html`<form class="register-choice" method="get" action="/"><label for="rn-choice">${t('register.label')}</label>
<select id="rn-choice" name="rn">${rns.map((r) => html`<option value="${r}"${r === rn ? html` selected` : ''}>${r === 'def' ? t('profile.instance') : r}</option>`)}</select>
<button type="submit" class="secondary">${t('profile.show')}</button></form>`;
}

function renderProfile(ctx: ServiceContext, lang: UiLang, t: Translate, s: Shown): string {
  const { rn, model } = s;
  const blocked = blockedNames(ctx, rn);
  const isBlocked = (name: string): boolean => blocked.has(name.toLowerCase()) || (PROFILE_SETTINGS.some((p) => p.toLowerCase() === name.toLowerCase()) && blocked.has('attributes'));
  const err = (field: string): Html | '' => fieldError(s.errorField, field, s.errorText);
  const own = ctx.profiles.own(rn);
  const locked = ctx.profiles.lockedBadge !== undefined && (own.Badge ?? '') === ctx.profiles.lockedBadge;

  const textField = (id: string, name: string, label: string, value: string, help: string | undefined, readOnly: boolean, note: Html | ''): Html => html`
<label for="${id}">${label}</label>
<div><input type="text" id="${id}" name="${name}" value="${value}"${readOnly ? html` readonly aria-readonly="true"` : ''}${s.errorField?.toLowerCase() === name.toLowerCase() || s.errorField?.toLowerCase() === `attributes.${name.toLowerCase()}` ? html` aria-invalid="true"` : ''}>
${help ? html`<div class="help">${help}</div>` : ''}${note}${err(name)}${err(`Attributes.${name}`)}</div>`;

  // a register's empty field is no value of its own: the instance's applies (left out when saved)
  const def = ctx.profiles.own('def');
  const inherited = (field: 'Badge' | 'TaxId'): Html | '' => (rn !== 'def' && own[field] === undefined && def[field] ? html`<div class="help inherited">${t('profile.inherited', { value: def[field] ?? '' })}</div>` : '');
  const badgeNote = isBlocked('Badge') ? blockedNote(t, 'Badge', rn) : locked ? html`<div class="help locked">${t('badge.locked', { badge: ctx.profiles.lockedBadge ?? '' })}</div>` : '';
  const attrsBlocked = blocked.has('attributes');
  const envRows = [...(ctx.envSettings.get(rn) ?? new Map<string, string>()).keys()].filter((k) => !['badge', 'taxid', 'rn_tt', 'password', 'attributes'].includes(k.toLowerCase()) && !PROFILE_SETTINGS.some((p) => p.toLowerCase() === k.toLowerCase()));

  const rowHtml = (r: AttrRow, i: number): Html => {
    const known = r.name === '' ? undefined : attributeHelp(r.name);
    const rowBlocked = r.name !== '' && (attrsBlocked || blocked.has(r.name.toLowerCase()));
    const ro = rowBlocked ? html` readonly aria-readonly="true"` : '';
    return html`<tr${s.errorField?.toLowerCase() === `attributes.${r.name.toLowerCase()}` && r.name !== '' ? html` class="invalid"` : ''}>
<td><input type="hidden" name="attr.kind" value="${r.fresh ? 'new' : 'stored'}"><input type="text" name="attr.name" value="${r.name}" list="attribute-names" aria-label="${t('attr.name')} ${i + 1}"${ro}></td>
<td><input type="text" name="attr.value" value="${r.value}" aria-label="${t('attr.value')} ${i + 1}"${ro}></td>
<td>${rowBlocked || r.name === '' ? '' : html`<label class="inline"><input type="checkbox" name="attr.remove" value="${i}"> ${t('attr.remove')}</label>`}</td>
<td>${known ? html`<div class="help">${known.countries ? html`<strong>${known.countries}</strong> · ` : ''}${known.help[lang]}</div>` : r.name ? html`<div class="help unknown">${t('attr.unknown')}</div>` : ''}
${rowBlocked ? blockedNote(t, attrsBlocked ? 'Attributes' : blocked.get(r.name.toLowerCase()) ?? r.name, rn) : ''}${r.name ? err(`Attributes.${r.name}`) : ''}</td></tr>`;
  };
  const rows = attrsBlocked ? model.rows : [...model.rows, ...Array.from({ length: NEW_ROWS }, (): AttrRow => ({ name: '', value: '', fresh: true }))];
  const shownNames = new Set(model.rows.map((r) => r.name.toLowerCase()));
  const envOnly = envRows.filter((k) => !shownNames.has(k.toLowerCase()));

  const body = html`
${registerChoice(ctx, t, rn)}
<p class="help">${rn === 'def' ? t('profile.introDef') : t('profile.introRn', { rn })}</p>
<form class="grid" method="post" action="/?rn=${encodeURIComponent(rn)}" id="profile-form">
${tokenField(ctx.dataDir)}
<h2 class="full">${t('section.connection')}</h2>
${textField('badge', 'Badge', t('field.badge'), model.badge, t('help.badge'), locked || isBlocked('Badge'), html`${badgeNote}${inherited('Badge')}`)}
${textField('taxid', 'TaxId', t('field.taxid'), model.taxId, t('help.taxid'), isBlocked('TaxId'), html`${isBlocked('TaxId') ? blockedNote(t, 'TaxId', rn) : ''}${inherited('TaxId')}`)}
${rn === 'def' ? html`<label for="rn_tt">RN_TT</label>
<div><input type="hidden" name="RN_TT.shown" value="1"><label class="inline"><input type="checkbox" id="rn_tt" name="RN_TT" value="true"${model.rnTT ? html` checked` : ''}${isBlocked('RN_TT') ? html` disabled` : ''}> ${t('field.rntt')}</label>
<div class="help">${t('help.rntt')}</div>${isBlocked('RN_TT') ? blockedNote(t, 'RN_TT', rn) : ''}${err('RN_TT')}</div>` : ''}
<h2 class="full">${t('section.password')}</h2>
<label for="password">${t('field.password')}</label>
<div><input type="password" id="password" name="Password" autocomplete="new-password"${isBlocked('Password') ? html` readonly aria-readonly="true"` : ''}>
<div class="help">${model.passwordSet ? t('password.set') : t('password.notSet')} ${t('help.password')}</div>${isBlocked('Password') ? blockedNote(t, 'Password', rn) : ''}${err('Password')}</div>
<label for="password2">${t('field.password2')}</label>
<div><input type="password" id="password2" name="Password2" autocomplete="new-password"${isBlocked('Password') ? html` readonly aria-readonly="true"` : ''}></div>
<h2 class="full">${t('section.settings')}</h2>
${PROFILE_SETTINGS.map((name) => textField(`setting-${name}`, name, t(`field.${name}`), model.settings[name], attributeHelp(name)?.help[lang], isBlocked(name), isBlocked(name) ? blockedNote(t, blocked.get(name.toLowerCase()) ?? 'Attributes', rn) : ''))}
<h2 class="full">${t('section.attributes')}</h2>
<div class="full">
<p class="help">${t('help.attributes')}</p>
<table class="attributes"><thead><tr><th>${t('attr.name')}</th><th>${t('attr.value')}</th><th></th><th>${t('attr.help')}</th></tr></thead>
<tbody>${rows.map(rowHtml)}</tbody></table>
${envOnly.length ? html`<p class="help">${t('attr.envOnly')}</p><ul class="env-settings">${envOnly.map((k) => html`<li><code>${k}</code> — ${t('blocked', { setting_name: k, RN: rn })}</li>`)}</ul>` : ''}
<datalist id="attribute-names">${ATTRIBUTE_HELP.map((a) => html`<option value="${a.name}">`)}</datalist>
${s.errorField?.startsWith('Attributes') && !PROFILE_SETTINGS.some((p) => `attributes.${p.toLowerCase()}` === s.errorField?.toLowerCase()) && !model.rows.some((r) => `attributes.${r.name.toLowerCase()}` === s.errorField?.toLowerCase()) ? fieldError(s.errorField, s.errorField, s.errorText) : ''}
</div>
<div class="full"><button type="submit">${t('form.save')}</button></div>
</form>
<details class="help-table"><summary>${t('attr.all')}</summary>
<table><thead><tr><th>${t('attr.name')}</th><th>${t('attr.countries')}</th><th>${t('attr.help')}</th></tr></thead>
<tbody>${ATTRIBUTE_HELP.map((a) => html`<tr><td><code>${a.name}</code></td><td>${a.countries ?? ''}</td><td>${a.help[lang]}</td></tr>`)}</tbody></table></details>`;
  return uiPage({ lang, t, title: t('profile.title'), active: 'profile', body, ...(s.notice ? { notice: s.notice } : {}), path: rn === 'def' ? '/' : `/?rn=${encodeURIComponent(rn)}` });
}

export function profilePageRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const tr = (lang: UiLang): Translate => translator(lang, PROFILE_TEXTS, COMMON);

  app.get('/', async (req, res) => {
    const lang = uiLangOf(req, res);
    const rn = pageRn(req);
    if (rn === undefined) return sendBadRn(res, lang, tr(lang), 'profile', '/');
    return sendPage(res, 200, renderProfile(ctx, lang, tr(lang), { rn, model: modelOf(ctx, rn) }));
  });

  app.post('/', async (req: FastifyRequest, res: FastifyReply) => {
    const lang = uiLangOf(req, res);
    const t = tr(lang);
    const rn = pageRn(req);
    if (rn === undefined) return sendBadRn(res, lang, t, 'profile', '/');
    const form = formOf(req);
    if (!formIsOurs(req, form, ctx.dataDir)) {
      return sendPage(res, 403, renderProfile(ctx, lang, t, { rn, model: modelOf(ctx, rn), notice: { kind: 'error', text: t('form.badOrigin') } }));
    }
    let typed: ProfileModel | undefined;
    try {
      const made = bodyOf(form, rn, ctx.profiles.own(rn), blockedNames(ctx, rn), t);
      typed = made.typed;
      if (Object.keys(made.body).length === 0) {
        return sendPage(res, 200, renderProfile(ctx, lang, t, { rn, model: modelOf(ctx, rn), notice: { kind: 'ok', text: t('profile.unchanged') } }));
      }
      // exactly what POST /profile does
      await saveProfile(ctx, rn, made.body, req.log);
      return sendPage(res, 200, renderProfile(ctx, lang, t, { rn, model: modelOf(ctx, rn), notice: { kind: 'ok', text: t('form.saved') } }));
    } catch (e) {
      const model = { ...(typed ?? modelOf(ctx, rn)), passwordSet: Boolean(ctx.profiles.own(rn).PasswordHash) };
      if (e instanceof FormRefusal) {
        return sendPage(res, 400, renderProfile(ctx, lang, t, { rn, model, notice: { kind: 'error', text: t('form.notSaved', { reason: e.message }) }, errorField: e.field, errorText: e.message }));
      }
      if (!(e instanceof FiscalError)) req.log.error({ err: e }, 'profile page: saving failed');
      const failure = failureOf(e, lang);
      const field = refusedField(e);
      const text = e instanceof FiscalError && e.code === '#BLOCKED' ? t('blocked', { setting_name: String(e.params.field ?? ''), RN: String(e.params.rn ?? rn) }) : failure.userMessage;
      return sendPage(res, failure.status >= 400 ? failure.status : 400, renderProfile(ctx, lang, t, { rn, model, notice: { kind: 'error', text: t('form.notSaved', { reason: text }) }, ...(field ? { errorField: field, errorText: text } : {}) }));
    }
  });
}
