import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../shared/clock.js';
import { SqliteJournalStore } from '../journal/sqlite/sqlite-store.js';
import { ApiKeys, sameSecret, sha256 } from './api-keys.js';
import { DEFAULT_ACCESS_TTL, DEFAULT_REFRESH_TTL, OAuthError, TokenService, cloudSettingsOf } from './tokens.js';

const dirs: string[] = [];
function tempData(): { dir: string; store: SqliteJournalStore } {
  const dir = mkdtempSync(join(tmpdir(), 'efr-tokens-'));
  dirs.push(dir);
  return { dir, store: new SqliteJournalStore(join(dir, 'journal', 'journal.sqlite')) };
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function refusal(p: Promise<unknown>, error: string): Promise<OAuthError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof OAuthError, String(e));
    assert.equal(e.error, error, e.description);
    return e;
  }
  return assert.fail(`expected ${error}`);
}

describe('cloudSettingsOf', () => {
  test('off by default; on by option or EFR_CLOUD=true; the option wins', () => {
    assert.equal(cloudSettingsOf(undefined, {}), undefined);
    assert.equal(cloudSettingsOf(undefined, { EFR_CLOUD: 'false' }), undefined);
    assert.deepEqual(cloudSettingsOf(undefined, { EFR_CLOUD: 'true' }), { accessTtl: DEFAULT_ACCESS_TTL, refreshTtl: DEFAULT_REFRESH_TTL });
    assert.equal(cloudSettingsOf(false, { EFR_CLOUD: 'true' }), undefined);
    assert.deepEqual(cloudSettingsOf(true, {}), { accessTtl: 3600, refreshTtl: 604800 });
  });

  test('lifetimes from the option, else the environment; nonsense is refused at start', () => {
    assert.deepEqual(cloudSettingsOf(true, { EFR_TOKEN_ACCESS_TTL: '60', EFR_TOKEN_REFRESH_TTL: '600' }), { accessTtl: 60, refreshTtl: 600 });
    assert.deepEqual(cloudSettingsOf({ accessTtl: 5 }, { EFR_TOKEN_ACCESS_TTL: '60' }), { accessTtl: 5, refreshTtl: DEFAULT_REFRESH_TTL });
    assert.throws(() => cloudSettingsOf(true, { EFR_TOKEN_ACCESS_TTL: '1h' }), /EFR_TOKEN_ACCESS_TTL/);
    assert.throws(() => cloudSettingsOf(true, { EFR_TOKEN_REFRESH_TTL: '0' }), /EFR_TOKEN_REFRESH_TTL/);
  });
});

describe('ApiKeys', () => {
  test('the secret is returned once and stored only as its SHA-256; verify, revoke, list', async () => {
    const { store } = tempData();
    const keys = new ApiKeys(store);
    const now = new Date('2026-01-01T00:00:00Z');
    const { record, secret } = await keys.create('ATU1', 'till', now);
    assert.match(record.key, /^ak_[A-Za-z0-9_-]{16}$/);
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    const stored = await store.getSetting(`cloud.apikey:${record.key}`);
    assert.ok(stored && !stored.includes(secret));
    assert.ok(stored.includes(sha256(secret).toString('hex')));
    assert.equal((await keys.verify(record.key, secret))?.taxId, 'ATU1');
    assert.equal(await keys.verify(record.key, `${secret}x`), undefined);
    assert.equal(await keys.verify('ak_AAAAAAAAAAAAAAAA', secret), undefined);
    assert.equal(await keys.verify('not a key', secret), undefined);
    assert.deepEqual((await keys.list()).map((k) => k.key), [record.key]);
    assert.equal(await keys.revoke(record.key, now), true);
    assert.equal(await keys.verify(record.key, secret), undefined);
    assert.equal(await keys.revoke('ak_AAAAAAAAAAAAAAAA', now), false);
    await assert.rejects(keys.create('', undefined, now));
    await store.close();
  });

  test('sameSecret compares digests, also against a malformed stored digest', () => {
    assert.equal(sameSecret('a', sha256('a').toString('hex')), true);
    assert.equal(sameSecret('a', sha256('b').toString('hex')), false);
    assert.equal(sameSecret('a', 'abcd'), false);
  });
});

describe('TokenService', () => {
  test('login, refresh with rotation, replay revokes the family, expiry by the clock', async () => {
    const { dir, store } = tempData();
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const svc = new TokenService(store, dir, clock, { accessTtl: 100, refreshTtl: 1000 });
    const { record, secret } = await svc.apiKeys.create('ATU1', undefined, clock.now());
    const scope = { taxId: undefined, tl: 'A', tt: '1' };
    const first = await svc.login(record.key, secret, scope);
    assert.equal(first.expires_in, 100);
    assert.equal(first.refresh_token_expires, Math.floor(clock.now().getTime() / 1000) + 1000);
    assert.deepEqual(await svc.verifyAccess(first.access_token), { scope: { apiKey: record.key, taxId: 'ATU1', tl: 'A', tt: '1' } });
    assert.equal(statSync(join(dir, 'keys', 'token.key')).mode & 0o777, 0o600);
    await refusal(svc.login(record.key, 'wrong', scope), 'invalid_client');
    await refusal(svc.login(record.key, secret, { ...scope, taxId: 'DE1' }), 'invalid_scope');

    clock.advance(100_000);
    assert.match(JSON.stringify(await svc.verifyAccess(first.access_token)), /expired/);
    const second = await svc.refresh(first.refresh_token, record.key, scope);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.ok('scope' in (await svc.verifyAccess(second.access_token)));

    await refusal(svc.refresh(first.refresh_token, record.key, scope), 'invalid_grant');
    await refusal(svc.refresh(second.refresh_token, record.key, scope), 'invalid_grant');
    assert.match(JSON.stringify(await svc.verifyAccess(second.access_token)), /revoked/);

    const third = await svc.login(record.key, secret, scope);
    clock.advance(1000_000);
    const expired = await refusal(svc.refresh(third.refresh_token, record.key, scope), 'invalid_token');
    assert.equal(expired.status, 401);
    await store.close();
  });

  test('a token signed with another instance key is not valid', async () => {
    const a = tempData();
    const b = tempData();
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const sa = new TokenService(a.store, a.dir, clock, { accessTtl: 100, refreshTtl: 1000 });
    const sb = new TokenService(b.store, b.dir, clock, { accessTtl: 100, refreshTtl: 1000 });
    const { record, secret } = await sa.apiKeys.create('ATU1', undefined, clock.now());
    const t = await sa.login(record.key, secret, { taxId: 'ATU1', tl: '', tt: '1' });
    assert.deepEqual(await sb.verifyAccess(t.access_token), { invalid: 'the access token is not valid' });
    await a.store.close();
    await b.store.close();
  });

  test('a token key file that is not one is refused rather than replaced', async () => {
    const { dir, store } = tempData();
    const svc = new TokenService(store, dir, new ManualClock(new Date()), { accessTtl: 100, refreshTtl: 1000 });
    const { record, secret } = await svc.apiKeys.create('ATU1', undefined, new Date());
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'keys'), { recursive: true });
    writeFileSync(join(dir, 'keys', 'token.key'), 'short\n');
    await assert.rejects(svc.login(record.key, secret, { taxId: undefined, tl: '', tt: '1' }), /not a token key/);
    await store.close();
  });
});
