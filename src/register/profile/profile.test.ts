import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalError } from '../../shared/errors.js';
import type { JournalStore } from '../journal/types.js';
import { Profiles, envSettings, checkPassword, hashPassword } from './profile.js';

const PREFIX = 'SVC_EFR_PROFILE_CFG';

function memoryStore(): JournalStore {
  const settings = new Map<string, string>();
  const store: Pick<JournalStore, 'getSetting' | 'putSetting'> = {
    getSetting: async (key) => settings.get(key),
    putSetting: async (key, value) => {
      settings.set(key, value);
    },
  };
  return store as JournalStore;
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<FiscalError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof FiscalError) {
      assert.equal(e.code, code);
      return e;
    }
    throw e;
  }
  return assert.fail(`expected ${code}`);
}

describe('envSettings', () => {
  test('a setting of def', () => {
    const m = envSettings({ [`${PREFIX}__DOT__def__DOT__Normalize_D`]: '3' });
    assert.deepEqual([...m.keys()], ['def']);
    assert.deepEqual([...(m.get('def') ?? [])], [['Normalize_D', '3']]);
  });

  test('__DOLLAR__ in the RN is a $', () => {
    const m = envSettings({ [`${PREFIX}__DOT__ATU12345678__DOLLAR__001_1__DOT__TEST_RC`]: 'NO' });
    assert.deepEqual([...m.keys()], ['ATU12345678$001_1']);
    assert.equal(m.get('ATU12345678$001_1')?.get('TEST_RC'), 'NO');
  });

  test('several settings and registers, values kept as they are', () => {
    const m = envSettings({
      [`${PREFIX}__DOT__def__DOT__RN_TT`]: 'true',
      [`${PREFIX}__DOT__def__DOT__HttpServer_respond200`]: 'false',
      [`${PREFIX}__DOT__r2__DOT__Badge`]: 'B-1',
      PATH: '/usr/bin',
    });
    assert.deepEqual(Object.fromEntries([...m].map(([rn, s]) => [rn, Object.fromEntries(s)])), {
      def: { RN_TT: 'true', HttpServer_respond200: 'false' },
      r2: { Badge: 'B-1' },
    });
  });

  test('malformed names are ignored', () => {
    const m = envSettings({
      [`${PREFIX}__DOT__def`]: '1', // no setting
      [`${PREFIX}__DOT__def__DOT__`]: '1', // empty setting
      [`${PREFIX}__DOT____DOT__Normalize_D`]: '1', // empty RN
      [`${PREFIX}__DOT__Normalize_D`]: '1', // no RN
      [`${PREFIX.toLowerCase()}__DOT__def__DOT__Normalize_D`]: '1', // wrong case of the prefix
      [`${PREFIX}_DOT_def_DOT_Normalize_D`]: '1', // single underscores
      [`X${PREFIX}__DOT__def__DOT__Normalize_D`]: '1', // other prefix
      [`${PREFIX}__DOT__def__DOT__1abc`]: '1', // setting not starting with a letter
      [`${PREFIX}__DOT__def__DOT__Normalize-D`]: '1', // not a setting name
      [`${PREFIX}__DOT__def__DOT__x__DOT__Normalize_D`]: '1', // three parts
      [`${PREFIX}__DOT__def__DOT__Normalize_D__DOT__`]: '1', // trailing separator
    });
    assert.deepEqual(Object.fromEntries([...m].map(([rn, s]) => [rn, Object.fromEntries(s)])), {});
  });
});

describe('Profiles with environment settings', () => {
  test('an environment attribute becomes a setting and is blocked for change', async () => {
    const env = envSettings({ [`${PREFIX}__DOT__def__DOT__Normalize_D`]: '3', [`${PREFIX}__DOT__def__DOT__Badge`]: 'B-1' });
    const profiles = new Profiles(memoryStore(), env);
    await profiles.load([]);
    assert.equal(profiles.settings('def').normalizeDays, 3);
    assert.equal(profiles.own('def').Badge, 'B-1');
    const blocked = await rejectsWith(profiles.update('def', { Attributes: 'normalize_d=5' }), '#BLOCKED');
    assert.equal(blocked.message, 'Setting of Normalize_D for def is blocked');
    await rejectsWith(profiles.update('def', { Badge: 'other' }), '#BLOCKED');
    assert.match(String(profiles.view('def').Blocked), /Normalize_D/);
  });

  test('a preset RN_TT sent back is no change; a value that is no boolean is refused as one, not let through', async () => {
    const env = envSettings({ [`${PREFIX}__DOT__def__DOT__RN_TT`]: 'false', [`${PREFIX}__DOT__def__DOT__Badge`]: 'B-1' });
    const profiles = new Profiles(memoryStore(), env);
    await profiles.load([]);
    await profiles.update('def', { RN_TT: 'false' });
    await profiles.update('def', { RN_TT: '0' });
    await rejectsWith(profiles.update('def', { RN_TT: 'true' }), '#BLOCKED');
    await rejectsWith(profiles.update('def', { RN_TT: 'perhaps' }), '#INVALID_TYPE');
  });

  test('a register inherits def attributes and its own win', async () => {
    const env = envSettings({ [`${PREFIX}__DOT__ATU1__DOLLAR__1_1__DOT__Normalize_D`]: '2' });
    const profiles = new Profiles(memoryStore(), env);
    await profiles.load(['ATU1$1_1']);
    await profiles.update('def', { Badge: 'B', Attributes: 'Normalize_D=9 TEST_RC=NO' });
    assert.equal(profiles.settings('def').normalizeDays, 9);
    const s = profiles.settings('ATU1$1_1');
    assert.equal(s.normalizeDays, 2);
    assert.equal(s.testRc, 'NO');
  });

  test('profile validation of Attributes and RN_TT', async () => {
    const profiles = new Profiles(memoryStore());
    await profiles.load([]);
    await rejectsWith(profiles.update('def', { Badge: 'B', Attributes: 'Normalize_D=x' }), '#INVALID_TYPE');
    await rejectsWith(profiles.update('def', { Badge: 'B', Attributes: 'TEST_RC=maybe' }), '#INVALID_TYPE');
    await rejectsWith(profiles.update('def', { Badge: 'B', RN_TT: 'perhaps' }), '#INVALID_TYPE');
    await rejectsWith(profiles.update('def', { TaxId: 'ATU1' }), '#MISSING_FIELD');
    await profiles.update('def', { Badge: 'B', RN_TT: 'true' });
    assert.equal(profiles.multiPos(), true);
  });

  test('GET /profile sent back unchanged is no change where the whole attribute list is preset, whatever the order', async () => {
    const env = envSettings({ [`${PREFIX}__DOT__def__DOT__Attributes`]: 'DiskQuota=500 Log_Level=info', [`${PREFIX}__DOT__def__DOT__Badge`]: 'B-1' });
    const profiles = new Profiles(memoryStore(), env);
    await profiles.load([]);
    const view = profiles.view('def');
    assert.equal(view.DiskQuota, '500');
    // the view as a POS posts it back: every field, the attribute list and DiskQuota beside it
    await profiles.update('def', { ...view });
    await rejectsWith(profiles.update('def', { ...view, DiskQuota: '600' }), '#BLOCKED');
    // the field alone, as shown
    await profiles.update('def', { Badge: 'B-1', DiskQuota: '500' });
    await rejectsWith(profiles.update('def', { Badge: 'B-1', DiskQuota: '600' }), '#BLOCKED');
  });

  test('a profile field that is an attribute sets that attribute alone, whatever quotes its value holds', async () => {
    const profiles = new Profiles(memoryStore());
    await profiles.load([]);
    let stored: string | undefined;
    for (const value of ['1" TEST_RC=NO x="', '"1"TEST_RC=NO', "'1'TEST_RC=NO", `1 " ' TEST_RC=NO`]) {
      try {
        await profiles.update('def', { Badge: 'B', Proxy: value });
        stored = value;
      } catch (e) {
        assert.ok(e instanceof FiscalError, String(e));
        assert.match(e.message, /Proxy/);
      }
      assert.equal(profiles.settings('def').testRc, undefined, `Proxy ${value} set TEST_RC`);
      assert.equal(profiles.view('def').Proxy, stored, `Proxy ${value}`);
    }
    assert.equal(stored, "'1'TEST_RC=NO", 'only a value no quoting can hold is refused');
  });

  test('passwords are stored hashed and checked', async () => {
    const h = hashPassword('secret');
    assert.ok(!h.includes('secret'));
    assert.ok(checkPassword(h, 'secret'));
    assert.ok(!checkPassword(h, 'Secret'));
    assert.ok(!checkPassword(undefined, 'secret'));
    const profiles = new Profiles(memoryStore());
    await profiles.load([]);
    await profiles.update('def', { Badge: 'B', Password: 'pw' });
    assert.equal(profiles.view('def').PasswordSet, 'true');
    assert.ok(!JSON.stringify(profiles.view('def')).includes('pw"'));
  });
});
