import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JournalStore } from '../journal/types.js';
import { Profiles, checkPassword, envSettings, envSettingsView } from './profile.js';

const P = 'SVC_EFR_PROFILE_CFG__DOT__';

function memoryStore(): JournalStore {
  const settings = new Map<string, string>();
  return {
    getSetting: async (key: string) => settings.get(key),
    putSetting: async (key: string, value: string) => {
      settings.set(key, value);
    },
  } as unknown as JournalStore;
}

test('booleans must be lower case: True and FALSE are ignored with a warning; text fields keep any case', () => {
  const warnings: string[] = [];
  const m = envSettings(
    {
      [`${P}def__DOT__HttpServer_respond200`]: 'True',
      [`${P}def__DOT__Fis_Tot`]: 'FALSE',
      [`${P}def__DOT__IO_nosync`]: 'true',
      [`${P}def__DOT__RN_TT`]: 'yes',
      [`${P}def__DOT__Badge`]: 'True',
      [`${P}def__DOT__Password`]: 'False',
      [`${P}r__DOLLAR____DOT__X1`]: 'v',
      [`${P}a__b__DOT__X1`]: 'v',
      [`${P}def__DOT__Fis.QR`]: 'v',
    },
    (w) => warnings.push(w),
  );
  assert.deepEqual(Object.fromEntries(m.get('def') ?? []), { IO_nosync: 'true', Badge: 'True', Password: 'False' });
  assert.deepEqual([...m.keys()].sort(), ['def', 'r$'], 'a__b has an unknown escape');
  assert.equal(warnings.length, 5, warnings.join('\n'));
  assert.ok(warnings.some((w) => /HttpServer_respond200=True is ignored: booleans are written in lower case/.test(w)));
  assert.ok(warnings.some((w) => /RN_TT=yes is ignored/.test(w)));
  assert.ok(warnings.some((w) => /Fis\.QR is ignored/.test(w)));
});

test('a preset password and attribute list are in force and blocked; single preset attributes lie over the list', async () => {
  const env = envSettings({ [`${P}def__DOT__Password`]: 'env-pw', [`${P}def__DOT__Attributes`]: 'Normalize_D=4 Fis_Tot', [`${P}def__DOT__TEST_RC`]: 'NO' }, () => undefined);
  const profiles = new Profiles(memoryStore(), env);
  await profiles.load([]);
  assert.ok(checkPassword(profiles.own('def').PasswordHash, 'env-pw'));
  assert.equal(profiles.own('def').PasswordHash, profiles.own('def').PasswordHash, 'hashed once');
  assert.equal(profiles.settings('def').normalizeDays, 4);
  assert.equal(profiles.settings('def').testRc, 'NO');
  assert.equal(profiles.settings('def').raw.get('fis_tot'), 'true');
  await assert.rejects(profiles.update('def', { Badge: 'B', Password: 'x' }), /^FiscalError: Setting of Password for def is blocked$/);
  await assert.rejects(profiles.update('def', { Badge: 'B', Attributes: 'Log_debug' }), /^FiscalError: Setting of Attributes for def is blocked$/);
  await profiles.update('def', { Badge: 'B' });
  assert.equal(profiles.own('def').Badge, 'B');
});

test('GET /state view: secrets masked, the rest as set', () => {
  const view = envSettingsView(
    new Map([
      ['Password', 'pw'],
      ['TSE_AdminPin', '1234'],
      ['TSE_TimePuk', '99'],
      ['Device_Auth', 'u:p'],
      ['Fiscal_ApiKey', 'k'],
      ['Proxy', 'http://me:pass@proxy:8080'],
      ['Attributes', 'TSE_AdminPuk=77 Fis_Tot Normalize_D=3'],
      ['Normalize_D', '3'],
    ]),
  );
  assert.deepEqual(view, {
    Password: '********',
    TSE_AdminPin: '********',
    TSE_TimePuk: '********',
    Device_Auth: '********',
    Fiscal_ApiKey: '********',
    Proxy: 'http://me:********@proxy:8080',
    Attributes: 'tse_adminpuk=******** fis_tot normalize_d=3',
    Normalize_D: '3',
  });
});
