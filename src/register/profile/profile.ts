/**
 * The profile of an instance and of its registers: Badge, TaxId, RN_TT, Password, Attributes.
 * Stored in the journal store's settings (not in the journal). A register's own profile
 * is laid over the instance profile (`def`).
 */
import { parseFisQr } from '../render/qr/fis-qr.js';
import { parseQuotaMb } from '../maintenance/disk-quota.js';
import { checkLogAttributes } from '../logs/log-settings.js';
import { checkEinvoiceAttributes } from '../einvoice/endpoint.js';
import { checkPrinterAttributes } from '../peripherals/printer-config.js';
import { restartAtOf } from '../maintenance/restart-schedule.js';
import { respond102Of } from '../maintenance/interim-102.js';
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { FiscalError } from '../../shared/errors.js';
import type { Obj } from '../codec/index.js';
import type { JournalStore } from '../journal/types.js';
import { type Settings, attributeEntries, formatAttributes, parseAttributes, settingsOf, timeOfDay } from './attributes.js';

export interface Profile {
  Badge?: string;
  TaxId?: string;
  RN_TT?: boolean;
  /** scrypt$<salt>$<hash>, never the password itself */
  PasswordHash?: string;
  Attributes?: string;
}

const KNOWN = ['Badge', 'TaxId', 'RN_TT', 'Password', 'Attributes'];

/**
 * Profile fields the specification names that are settings of the attribute list as well: a field sets (or,
 * empty, removes) the attribute of its name, so that both forms reach the same setting, and GET /profile shows
 * each as a field when it is set.
 */
export const ATTRIBUTE_FIELDS = ['DiskQuota', 'HttpServer_Port', 'UdpServer_Port', 'Proxy', 'Sign_require', 'Sign_Cfg'] as const;

/** `name=value` as the attribute list writes it, read back as exactly that attribute; undefined when no quoting can. */
function attributeText(name: string, value: string): string | undefined {
  for (const written of [`${name}=${value}`, `${name}="${value}"`, `${name}='${value}'`]) {
    const back = [...parseAttributes(written)];
    if (back.length === 1 && back[0]?.[0] === name.toLowerCase() && back[0][1] === value) return written;
  }
  return undefined;
}

/** `text` with the attribute `name` set to `value` (removed when empty); the other attributes keep their spelling. */
function withAttribute(text: string, name: string, value: string): string {
  const kept = attributeEntries(text).filter((e) => e.name.toLowerCase() !== name.toLowerCase()).map((e) => e.written);
  if (value !== '') {
    // a value whose quotes would end it early must not set further attributes
    const written = attributeText(name, value);
    if (written === undefined) throw new FiscalError('#INVALID_VALUE', { field: name, detail: 'a value with both kinds of quotes and a space cannot be an attribute' });
    kept.push(written);
  }
  return kept.join(' ');
}

/** An attribute list as a comparable text: the order of its attributes means nothing. */
function sortedAttributes(text: string | undefined): string {
  return formatAttributes(new Map([...parseAttributes(text)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 32).toString('base64')}`;
}

export function checkPassword(stored: string | undefined, password: string): boolean {
  if (!stored) return false;
  const [, salt, hash] = stored.split('$');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = scryptSync(password, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(expected, actual);
}

function parseBool(field: string, v: string): boolean {
  const l = v.toLowerCase();
  if (['true', '1'].includes(l)) return true;
  if (['false', '0', ''].includes(l)) return false;
  throw new FiscalError('#INVALID_TYPE', { field, expected: 'true or false', value: v });
}

export class Profiles {
  private cache = new Map<string, Profile>();
  private settingsCache = new Map<string, Settings>();

  /** hashes of passwords preset by environment variables, made once (scrypt is slow, and a salt is random) */
  private readonly envPasswordHash = new Map<string, string>();

  /** the badge the instance is activated with (recorder): a different Badge is refused afterwards */
  lockedBadge: string | undefined;

  constructor(
    private readonly store: JournalStore,
    /** settings preset by environment variables, per RN: blocked for change */
    private readonly env: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map(),
  ) {
    for (const [rn, settings] of env) {
      const password = settings.get('Password');
      if (password) this.envPasswordHash.set(rn, hashPassword(password));
    }
  }

  async load(rns: readonly string[]): Promise<void> {
    for (const rn of new Set(['def', ...rns])) {
      const text = await this.store.getSetting(`profile:${rn}`);
      this.cache.set(rn, text ? (JSON.parse(text) as Profile) : {});
    }
    this.settingsCache.clear();
  }

  /** The stored profile of one RN, with environment settings applied. */
  own(rn: string): Profile {
    const p: Profile = { ...(this.cache.get(rn) ?? {}) };
    const env = this.env.get(rn);
    if (env) {
      if (env.has('Badge')) p.Badge = env.get('Badge') as string;
      if (env.has('TaxId')) p.TaxId = env.get('TaxId') as string;
      if (env.has('RN_TT')) p.RN_TT = env.get('RN_TT') === 'true';
      if (env.has('Password')) {
        const hash = this.envPasswordHash.get(rn);
        if (hash) p.PasswordHash = hash;
        else delete p.PasswordHash;
      }
      // a preset attribute list replaces the stored one; single preset attributes are laid over either
      const attrs = parseAttributes(env.has('Attributes') ? env.get('Attributes') : p.Attributes);
      for (const [k, v] of env) if (!KNOWN.includes(k)) attrs.set(k.toLowerCase(), v);
      if (attrs.size || env.has('Attributes')) p.Attributes = formatAttributes(attrs);
    }
    return p;
  }

  /** Instance-wide fields come from `def`; a register's own fields and attributes win over them. */
  effective(rn: string): Profile {
    const def = this.own('def');
    if (rn === 'def') return def;
    const own = this.own(rn);
    const attrs = parseAttributes(def.Attributes);
    for (const [k, v] of parseAttributes(own.Attributes)) attrs.set(k, v);
    return { ...def, ...own, RN_TT: def.RN_TT ?? false, Attributes: formatAttributes(attrs) };
  }

  settings(rn: string): Settings {
    let s = this.settingsCache.get(rn);
    if (!s) {
      s = settingsOf(parseAttributes(this.effective(rn).Attributes));
      this.settingsCache.set(rn, s);
    }
    return s;
  }

  multiPos(): boolean {
    return this.own('def').RN_TT === true;
  }

  /** Applies a profile update from POST /profile; refuses fields blocked by environment settings. */
  async update(rn: string, bodyIn: Obj): Promise<Profile> {
    const current: Profile = { ...(this.cache.get(rn) ?? {}) };
    const env = this.env.get(rn);
    const body = this.withAttributeFields(rn, bodyIn, current);
    for (const field of KNOWN) {
      const v = body[field];
      if (v === undefined) continue;
      if (typeof v !== 'string') throw new FiscalError('#INVALID_TYPE', { field, expected: 'text', value: '{...}' });
      if (env?.has(field)) {
        // a preset setting sent back as it is (a POS that always sends its Badge, a page posting what it showed) changes nothing
        if (this.presetUnchanged(rn, field, v)) continue;
        throw new FiscalError('#BLOCKED', { field, rn });
      }
      switch (field) {
        case 'Badge':
          if (this.lockedBadge !== undefined && v !== this.lockedBadge) throw new FiscalError('#BADGE_LOCKED', { field: 'Badge', badge: this.lockedBadge });
          current.Badge = v;
          break;
        case 'TaxId': current.TaxId = v; break;
        case 'RN_TT': current.RN_TT = parseBool(field, v); break;
        case 'Password':
          if (v === '') delete current.PasswordHash;
          else current.PasswordHash = hashPassword(v);
          break;
        case 'Attributes': {
          const attrs = parseAttributes(v);
          for (const [name, value] of attrs) {
            const blocked = env && [...env.keys()].find((k) => k.toLowerCase() === name);
            // the value preset for it, as GET /profile shows it, is no change
            if (blocked && env.get(blocked) !== value) throw new FiscalError('#BLOCKED', { field: blocked, rn });
          }
          const nd = attrs.get('normalize_d');
          if (nd !== undefined && !/^\d+$/.test(nd)) throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.Normalize_D', expected: 'a whole number of days', value: nd });
          const rc = attrs.get('test_rc');
          if (rc !== undefined && !['BAD', 'NO', 'OK'].includes(rc.toUpperCase())) throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.TEST_RC', expected: 'BAD or NO', value: rc });
          for (const name of ['TSE_SelfTestAt', 'TSE_BackupAt', 'Fiscal_BackupAt']) {
            const t = attrs.get(name.toLowerCase());
            if (t !== undefined && timeOfDay(t) === undefined) throw new FiscalError('#INVALID_TYPE', { field: `Attributes.${name}`, expected: 'a time of day HH:MM[:SS] or NO', value: t });
          }
          const keepAlive = attrs.get('tse_keepalive');
          if (keepAlive !== undefined && !/^\d{1,5}$/.test(keepAlive)) throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.TSE_KeepAlive', expected: 'a whole number of seconds', value: keepAlive });
          for (const name of ['HttpServer_Port', 'UdpServer_Port']) {
            const port = attrs.get(name.toLowerCase());
            if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) throw new FiscalError('#INVALID_TYPE', { field: `Attributes.${name}`, expected: 'a port number 1-65535', value: port });
          }
          const fisQr = attrs.get('fis_qr');
          if (fisQr !== undefined) parseFisQr(fisQr);
          const diskQuota = attrs.get('diskquota');
          if (diskQuota !== undefined && parseQuotaMb(diskQuota) === undefined) throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.DiskQuota', expected: 'a number of MB (0 or more, e.g. 500 or 0.5)', value: diskQuota });
          checkLogAttributes(attrs);
          checkEinvoiceAttributes(attrs);
          // the printer is chosen by the effective attributes (the register's own over def's): check those,
          // and on a change of def every register that inherits from it
          if (rn === 'def') {
            checkPrinterAttributes(attrs);
            for (const other of this.cache.keys()) {
              if (other === 'def') continue;
              const merged = new Map(attrs);
              for (const [k, val] of parseAttributes(this.own(other).Attributes)) merged.set(k, val);
              checkPrinterAttributes(merged, other);
            }
          } else {
            const merged = parseAttributes(this.own('def').Attributes);
            for (const [k, val] of attrs) merged.set(k, val);
            checkPrinterAttributes(merged);
          }
          const restartAt = restartAtOf(attrs.get('app_restartat'), true);
          if ('error' in restartAt) throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.App_restartAt', expected: 'a time of day HH:MM[:SS] or NO', value: attrs.get('app_restartat') ?? '' });
          const respond102 = respond102Of(attrs.get('httpserver_respond102'));
          if ('error' in respond102) throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.HttpServer_respond102', expected: 'a whole number of milliseconds (100 to 3600000) or NO', value: attrs.get('httpserver_respond102') ?? '' });
          current.Attributes = v;
          break;
        }
      }
    }
    if (!current.Badge && !env?.has('Badge')) throw new FiscalError('#MISSING_FIELD', { field: 'Badge' });
    await this.store.putSetting(`profile:${rn}`, JSON.stringify(current));
    this.cache.set(rn, current);
    this.settingsCache.clear();
    return this.own(rn);
  }

  /** The profile fields that are attributes (ATTRIBUTE_FIELDS), laid into the body's attribute list (or the stored one). */
  private withAttributeFields(rn: string, body: Obj, current: Profile): Obj {
    const given = ATTRIBUTE_FIELDS.filter((f) => body[f] !== undefined);
    if (given.length === 0) return body;
    const env = this.env.get(rn);
    // without a list in the body, the one in force: the preset list where the whole list is preset, else the stored one
    let attributes = typeof body.Attributes === 'string' ? body.Attributes : (env?.has('Attributes') ? this.own(rn).Attributes : current.Attributes) ?? '';
    for (const field of given) {
      const v = body[field];
      if (typeof v !== 'string') throw new FiscalError('#INVALID_TYPE', { field, expected: 'text', value: '{...}' });
      if (env?.has(field) && env.get(field) !== v) throw new FiscalError('#BLOCKED', { field, rn });
      attributes = withAttribute(attributes, field, v.trim());
    }
    return { ...body, Attributes: attributes };
  }

  /** Whether `value` of a field preset by the environment is the preset value (the password: whether it is the preset password). */
  private presetUnchanged(rn: string, field: string, value: string): boolean {
    const preset = this.env.get(rn)?.get(field);
    if (preset === undefined) return false;
    if (field === 'Password') return value === preset;
    // a value that is no boolean is refused as such, not taken for "unchanged" or "changed"
    if (field === 'RN_TT') return parseBool(field, value) === (preset === 'true');
    if (field === 'Attributes') return sortedAttributes(value) === sortedAttributes(this.own(rn).Attributes);
    return value === preset;
  }

  /** The profile as GET /profile shows it: the password never leaves the service. */
  view(rn: string): Obj {
    const p = this.own(rn);
    const out: Obj = {};
    if (p.Badge !== undefined) out.Badge = p.Badge;
    if (p.TaxId !== undefined) out.TaxId = p.TaxId;
    out.RN_TT = p.RN_TT ? 'true' : 'false';
    out.PasswordSet = p.PasswordHash ? 'true' : 'false';
    out.Attributes = p.Attributes ?? '';
    const attrs = parseAttributes(p.Attributes);
    for (const field of ATTRIBUTE_FIELDS) {
      const v = attrs.get(field.toLowerCase());
      if (v !== undefined) out[field] = v;
    }
    const env = this.env.get(rn);
    if (env && env.size) out.Blocked = [...env.keys()].join(' ');
    return out;
  }
}

const ENV_PREFIX = 'SVC_EFR_PROFILE_CFG__DOT__';
/** Fields whose values are text: `True` there is a value, not a boolean written wrongly. */
const TEXT_FIELDS = new Set(['badge', 'taxid', 'password', 'attributes']);

/**
 * Settings preset by `SVC_EFR_PROFILE_CFG__DOT__{RN}__DOT__{setting}`, `__DOLLAR__` for a `$` in the RN.
 * Ignored, each with a process warning (the service manager's log): a malformed name (characters other
 * than letters, digits and `_`, not exactly RN and setting, an empty RN, a `__` left in the RN after
 * `__DOLLAR__`), and a boolean not written in lower case (`True`, `FALSE`: booleans are `true`/`false`).
 */
export function envSettings(env: NodeJS.ProcessEnv, warn: (message: string) => void = envWarning): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || value === undefined) continue;
    const parts = name.slice(ENV_PREFIX.length).split('__DOT__');
    const [rawRn, setting] = parts as [string, string | undefined];
    const rn = rawRn.replace(/__DOLLAR__/g, '$');
    if (
      !/^[A-Za-z0-9_]+$/.test(name) ||
      parts.length !== 2 ||
      setting === undefined ||
      !/^[A-Za-z][A-Za-z0-9_]*[A-Za-z0-9]$/.test(setting) ||
      !/^[A-Za-z0-9$](?:[A-Za-z0-9_$]*[A-Za-z0-9$])?$/.test(rn) ||
      rn.includes('__')
    ) {
      warn(`${name} is ignored: expected ${ENV_PREFIX}<RN>__DOT__<setting> (letters, digits, _; __DOLLAR__ for $ in the RN)`);
      continue;
    }
    const lower = value.toLowerCase();
    if ((lower === 'true' || lower === 'false') && value !== lower && !TEXT_FIELDS.has(setting.toLowerCase())) {
      warn(`${name}=${value} is ignored: booleans are written in lower case, true or false`);
      continue;
    }
    if (setting === 'RN_TT' && value !== 'true' && value !== 'false') {
      warn(`${name}=${value} is ignored: RN_TT is true or false`);
      continue;
    }
    const map = out.get(rn) ?? new Map<string, string>();
    map.set(setting, value);
    out.set(rn, map);
  }
  return out;
}

function envWarning(message: string): void {
  process.emitWarning(message, { code: 'EFR_ENV_SETTING' });
}

const SECRET_SETTING = /password|passwd|secret|pin$|puk$|apikey|api_key|_auth$|token/i;

/**
 * Environment settings as GET /state shows them: secrets (Password, TSE PINs and PUKs, Device_Auth, API keys,
 * the password of a proxy URL) are masked, the rest as set.
 */
export function envSettingsView(settings: ReadonlyMap<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of settings) {
    if (SECRET_SETTING.test(name)) out[name] = value === '' ? '' : '********';
    else if (name.toLowerCase() === 'attributes') {
      const attrs = parseAttributes(value);
      for (const [k, v] of attrs) if (SECRET_SETTING.test(k) && v !== 'true') attrs.set(k, '********');
      out[name] = formatAttributes(attrs);
    } else out[name] = value.replace(/(\/\/[^/@:\s]*:)[^/@\s]*@/g, '$1********@');
  }
  return out;
}
