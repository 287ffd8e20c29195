/**
 * POST /lic: the license key of a register. The spec shows neither the key's form
 * nor the answer; we decided (docs/decisions.md, "Service control"):
 * - form: letters A-Z and digits in groups separated by single dashes, 16 to 64 letters and digits in
 *   all (`ABCD-EFGH-IJKL-MNOP`); case and surrounding blanks do not matter, the key is kept in capitals;
 * - kept in the journal database's settings (`license:<RN>`), so a backup carries it; a new key replaces
 *   the old one;
 * - the answer and the log show it masked: every letter and digit but the last four as `*`.
 * This service checks no signature of the key (it needs no license to run); the key is kept for the
 * operator, the portal and support.
 */
import { FiscalError } from '../../shared/errors.js';
import type { JournalStore } from '../journal/types.js';

export const MIN_KEY_CHARS = 16;
export const MAX_KEY_CHARS = 64;

const settingKey = (rn: string): string => `license:${rn}`;

/** The key in its kept form (capitals, no blanks around it), or #INVALID_VALUE naming `key`. */
export function normalizeLicenseKey(text: string): string {
  const key = text.trim().toUpperCase();
  if (key === '') throw new FiscalError('#MISSING_FIELD', { field: 'key' });
  if (!/^[A-Z0-9]+(?:-[A-Z0-9]+)*$/.test(key)) {
    throw new FiscalError('#INVALID_VALUE', { field: 'key', detail: 'a license key is letters A-Z and digits in groups separated by single dashes, such as ABCD-EFGH-IJKL-MNOP' });
  }
  const chars = key.replace(/-/g, '').length;
  if (chars < MIN_KEY_CHARS || chars > MAX_KEY_CHARS) {
    throw new FiscalError('#INVALID_VALUE', { field: 'key', detail: `a license key has ${MIN_KEY_CHARS} to ${MAX_KEY_CHARS} letters and digits, this one ${chars}` });
  }
  return key;
}

/** Every letter and digit but the last four as `*`, dashes kept: `****-****-****-MNOP`. */
export function maskLicenseKey(key: string): string {
  let visible = 4;
  const out: string[] = [];
  for (let i = key.length - 1; i >= 0; i--) {
    const c = key[i] as string;
    if (c === '-') out.push(c);
    else if (visible > 0) {
      out.push(c);
      visible -= 1;
    } else out.push('*');
  }
  return out.reverse().join('');
}

export async function storeLicenseKey(store: JournalStore, rn: string, text: string): Promise<{ key: string; replaced: boolean }> {
  const key = normalizeLicenseKey(text);
  const before = await store.getSetting(settingKey(rn));
  await store.putSetting(settingKey(rn), key);
  return { key, replaced: before !== undefined && before !== key };
}

export async function licenseKeyOf(store: JournalStore, rn: string): Promise<string | undefined> {
  return store.getSetting(settingKey(rn));
}
