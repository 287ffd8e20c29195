/**
 * Cloud mode end to end: POST /auth/token in its three variants, bearer tokens on every
 * request, expiry by the injected clock, refresh rotation and replay detection, tokens scoped to
 * TaxId/TL/TT, secrets stored hashed, and `efr apikey` as a real child process.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { ManualClock } from '../src/shared/clock.js';
import { type RunningService, startService } from '../src/register/server.js';
import { ApiKeys } from '../src/register/security/api-keys.js';
import { saveProfile } from '../src/register/save-profile.js';
import { ROOT, jsonOf, sale, tempDir } from './helpers.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test access to parsed JSON
  json: any;
}

async function call(base: string, method: 'GET' | 'POST', path: string, body?: string | object, headers: Record<string, string> = {}): Promise<Answer> {
  const h: Record<string, string> = { ...headers };
  let payload: string | undefined;
  if (typeof body === 'string') payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    h['content-type'] ??= 'application/json';
  }
  const res = await request(`${base}${path}`, { method, headers: h, body: payload });
  const text = await res.body.text();
  const json = jsonOf(text);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) out[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
  return { status: res.statusCode, headers: out, text, json };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
const basic = (key: string, secret: string): string => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

function settingsRows(dataDir: string): Array<{ key: string; value: string }> {
  const db = new Database(join(dataDir, 'journal', 'journal.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT key, value FROM settings').all() as Array<{ key: string; value: string }>;
  } finally {
    db.close();
  }
}

const T0 = new Date('2026-03-02T10:00:00Z');
const clock = new ManualClock(T0);
const now = (): number => Math.floor(clock.now().getTime() / 1000);
let dataDir: string;
let svc: RunningService;
let url: string;
let key: string;
let secret: string;
/** every secret or token handed out, to look for in the stored settings */
const handedOut: string[] = [];

async function login(tl: string, tt: string, taxId = 'ATU11111111'): Promise<Answer> {
  const r = await call(url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', TaxId: taxId, TL: tl, TT: tt }), { ...FORM, authorization: basic(key, secret) });
  if (r.status === 200) handedOut.push(r.json.access_token, r.json.refresh_token, r.json.refresh_token.split('.')[2]);
  return r;
}

async function refresh(refreshToken: string, tl: string, tt: string, clientId = key, taxId = 'ATU11111111'): Promise<Answer> {
  const r = await call(url, 'POST', '/auth/token', form({ client_id: clientId, grant_type: 'refresh_token', refresh_token: refreshToken, TaxId: taxId, TL: tl, TT: tt }), FORM);
  if (r.status === 200) handedOut.push(r.json.access_token, r.json.refresh_token, r.json.refresh_token.split('.')[2]);
  return r;
}

function assertInvalidToken(r: Answer, pattern?: RegExp): void {
  assert.equal(r.status, 401, r.text);
  assert.match(r.headers['content-type'] ?? '', /application\/json/);
  assert.equal(r.json.error, 'invalid_token');
  assert.equal(typeof r.json.error_description, 'string');
  if (pattern) assert.match(r.json.error_description, pattern);
  assert.match(r.headers['www-authenticate'] ?? '', /^Bearer .*error="invalid_token"/);
}

before(async () => {
  dataDir = tempDir('efr-cloud-');
  svc = await startService({ port: 0, host: '127.0.0.1', dataDir, log: false, clock, env: {}, cloud: true });
  url = svc.url;
  const made = await new ApiKeys(svc.ctx.store).create('ATU11111111', 'till', clock.now());
  key = made.record.key;
  secret = made.secret;
  handedOut.push(secret);
});

after(async () => {
  await svc.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('POST /auth/token', () => {
  test('Basic variant: every field of the spec with its type; 1 h and 7 days; not cached', async () => {
    const r = await login('1', '1');
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers['content-type'] ?? '', /application\/json/);
    assert.equal(r.headers['cache-control'], 'no-store');
    const j = r.json;
    assert.deepEqual(Object.keys(j).sort(), ['access_token', 'access_token_expires', 'access_token_expires_at', 'api_key', 'expires_in', 'refresh_token', 'refresh_token_expires', 'refresh_token_expires_at', 'token_type']);
    assert.equal(typeof j.access_token, 'string');
    assert.equal(typeof j.refresh_token, 'string');
    assert.equal(j.token_type, 'Bearer');
    assert.equal(j.expires_in, 3600);
    assert.equal(j.access_token_expires, now() + 3600);
    assert.equal(j.access_token_expires_at, j.access_token_expires);
    assert.equal(j.refresh_token_expires, now() + 7 * 24 * 3600);
    assert.equal(j.refresh_token_expires_at, j.refresh_token_expires);
    assert.equal(j.api_key, key);
    assert.notEqual(j.access_token, j.refresh_token);
    const state = await call(url, 'GET', '/state', undefined, bearer(j.access_token));
    assert.equal(state.status, 200, state.text);
  });

  test('body credentials variant', async () => {
    const r = await call(url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', client_id: key, client_secret: secret, TaxId: 'ATU11111111', TL: '1', TT: '1' }), FORM);
    assert.equal(r.status, 200, r.text);
    handedOut.push(r.json.access_token, r.json.refresh_token);
    assert.equal(r.json.api_key, key);
    assert.equal(r.json.token_type, 'Bearer');
    const state = await call(url, 'GET', '/state', undefined, bearer(r.json.access_token));
    assert.equal(state.status, 200);
  });

  test('refresh variant: a new pair, the refresh token rotates, the old one is refused and revokes the login', async () => {
    const first = await login('1', '1');
    const second = await refresh(first.json.refresh_token, '1', '1');
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(Object.keys(second.json).sort(), Object.keys(first.json).sort());
    assert.notEqual(second.json.refresh_token, first.json.refresh_token);
    assert.notEqual(second.json.access_token, first.json.access_token);
    assert.equal(second.json.api_key, key);
    assert.equal((await call(url, 'GET', '/state', undefined, bearer(second.json.access_token))).status, 200);
    // the used refresh token again: refused, and the whole login with it
    const replay = await refresh(first.json.refresh_token, '1', '1');
    assert.equal(replay.status, 400, replay.text);
    assert.equal(replay.json.error, 'invalid_grant');
    assert.match(replay.json.error_description, /already used/);
    const newest = await refresh(second.json.refresh_token, '1', '1');
    assert.equal(newest.status, 400, newest.text);
    assert.equal(newest.json.error, 'invalid_grant');
    assertInvalidToken(await call(url, 'GET', '/state', undefined, bearer(second.json.access_token)), /revoked/);
    // another login is not touched
    const other = await login('1', '1');
    assert.equal((await refresh(other.json.refresh_token, '1', '1')).status, 200);
  });

  test('refresh needs the same client_id and scope', async () => {
    const first = await login('1', '1');
    const otherKey = await new ApiKeys(svc.ctx.store).create('ATU11111111', undefined, clock.now());
    handedOut.push(otherKey.secret);
    const wrongClient = await refresh(first.json.refresh_token, '1', '1', otherKey.record.key);
    assert.equal(wrongClient.status, 400);
    assert.equal(wrongClient.json.error, 'invalid_grant');
    const wrongScope = await refresh(first.json.refresh_token, '1', '2');
    assert.equal(wrongScope.status, 400);
    assert.equal(wrongScope.json.error, 'invalid_scope');
    // neither used it up
    assert.equal((await refresh(first.json.refresh_token, '1', '1')).status, 200);
  });

  test('two refreshes with the same token at the same time: only one succeeds', async () => {
    const first = await login('1', '1');
    const both = await Promise.all([refresh(first.json.refresh_token, '1', '1'), refresh(first.json.refresh_token, '1', '1')]);
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 400], both.map((r) => r.text).join('\n'));
  });

  test('wrong secret, unknown key, missing or unsupported grant, another TaxId, not a form', async () => {
    const wrong = await call(url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', TaxId: 'ATU11111111', TL: '1', TT: '1' }), { ...FORM, authorization: basic(key, `${secret.slice(0, -1)}x`) });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json.error, 'invalid_client');
    assert.equal(typeof wrong.json.error_description, 'string');
    assert.match(wrong.headers['www-authenticate'] ?? '', /^Basic /);
    const wrongBody = await call(url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', client_id: key, client_secret: 'nope', TaxId: 'ATU11111111', TL: '1', TT: '1' }), FORM);
    assert.equal(wrongBody.status, 401);
    assert.equal(wrongBody.json.error, 'invalid_client');
    const unknown = await call(url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', client_id: 'ak_AAAAAAAAAAAAAAAA', client_secret: secret, TT: '1' }), FORM);
    assert.equal(unknown.json.error, 'invalid_client');
    const noGrant = await call(url, 'POST', '/auth/token', form({ TT: '1' }), { ...FORM, authorization: basic(key, secret) });
    assert.equal(noGrant.status, 400);
    assert.equal(noGrant.json.error, 'invalid_request');
    const password = await call(url, 'POST', '/auth/token', form({ grant_type: 'password', TT: '1' }), { ...FORM, authorization: basic(key, secret) });
    assert.equal(password.status, 400);
    assert.equal(password.json.error, 'unsupported_grant_type');
    const otherTaxId = await login('1', '1', 'DE999999999');
    assert.equal(otherTaxId.status, 400);
    assert.equal(otherTaxId.json.error, 'invalid_scope');
    const noTt = await call(url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', TL: '1' }), { ...FORM, authorization: basic(key, secret) });
    assert.equal(noTt.json.error, 'invalid_request');
    const json = await call(url, 'POST', '/auth/token', { grant_type: 'client_credentials', TT: '1' }, { authorization: basic(key, secret) });
    assert.equal(json.status, 400);
    assert.equal(json.json.error, 'invalid_request');
    const unknownRefresh = await refresh('rt1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '1', '1');
    assert.equal(unknownRefresh.status, 400);
    assert.equal(unknownRefresh.json.error, 'invalid_grant');
  });
});

describe('bearer tokens on every request', () => {
  test('no token, a malformed one, a forged one: 401 invalid_token with WWW-Authenticate', async () => {
    assertInvalidToken(await call(url, 'GET', '/state'), /required/);
    assertInvalidToken(await call(url, 'POST', '/register', sale()));
    assertInvalidToken(await call(url, 'GET', '/find'));
    assertInvalidToken(await call(url, 'GET', '/state', undefined, bearer('abc.def.ghi')));
    assertInvalidToken(await call(url, 'GET', '/state', undefined, { authorization: basic(key, secret) }));
    const good = (await login('1', '1')).json.access_token as string;
    const [h, p, s] = good.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, tt: '9' })).toString('base64url')}.${s}`;
    assertInvalidToken(await call(url, 'GET', '/state', undefined, bearer(forged)));
    assert.equal((await call(url, 'GET', '/state', undefined, bearer(good))).status, 200);
  });

  test('an expired access token is refused with invalid_token; the refresh token gets a new one', async () => {
    const t = await login('1', '1');
    clock.advance(3599 * 1000);
    assert.equal((await call(url, 'GET', '/state', undefined, bearer(t.json.access_token))).status, 200);
    clock.advance(2 * 1000);
    assertInvalidToken(await call(url, 'GET', '/state', undefined, bearer(t.json.access_token)), /expired/);
    const r = await refresh(t.json.refresh_token, '1', '1');
    assert.equal(r.status, 200, r.text);
    assert.equal((await call(url, 'GET', '/state', undefined, bearer(r.json.access_token))).status, 200);
  });

  test('an expired refresh token is refused with 401 invalid_token', async () => {
    const t = await login('1', '1');
    clock.advance((7 * 24 * 3600 + 1) * 1000);
    const r = await refresh(t.json.refresh_token, '1', '1');
    assertInvalidToken(r, /expired/);
    // key and secret still work
    assert.equal((await login('1', '1')).status, 200);
  });
});

describe('tokens are scoped to TaxId, TL and TT', () => {
  let a: string;
  let b: string;
  before(async () => {
    a = (await login('1', '1')).json.access_token as string;
    b = (await login('1', '2')).json.access_token as string;
    // the register exists with one receipt of terminal 1/1
    assert.equal((await call(url, 'POST', '/register', sale(), bearer(a))).status, 200);
  });

  test('a token for TL/TT 1/1 cannot register for 1/2, nor for another TaxId; nothing is journaled', async () => {
    const before = await svc.ctx.store.count();
    for (const body of [sale({ TT: '2' }), sale({ TL: '2' }), sale({ TL: '', TT: '1/2' }), sale({ TaxId: 'DE999999999' })]) {
      const r = await call(url, 'POST', '/register', body, bearer(a));
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.TraC.Result.RC, 'BAD');
      assert.equal(r.json.TraC.Result.ErrorCode, '#OUT_OF_SCOPE');
      assert.match(r.json.TraC.Result.UserMessage, /TL 1, TT 1/);
    }
    const restart = await call(url, 'POST', '/restart', sale({ TT: '2', TN: '77' }), bearer(a));
    assert.equal(restart.status, 403);
    assert.equal(await svc.ctx.store.count(), before, 'nothing journaled');
    const found = await call(url, 'GET', '/find', undefined, bearer(b));
    assert.equal(found.status, 200, found.text);
    assert.equal(found.json.Find.Count, '0', 'no record of terminal 1/2');
  });

  test('the right scope registers OK; reads show only the own terminal', async () => {
    const ra = await call(url, 'POST', '/register', sale({ TN: '10' }), bearer(a));
    assert.equal(ra.status, 200, ra.text);
    assert.equal(ra.json.TraC.Result.RC, 'OK');
    const rb = await call(url, 'POST', '/register', sale({ TT: '2', TN: '20' }), bearer(b));
    assert.equal(rb.status, 200, rb.text);
    // /find without TL/TT: only the token's terminal; with another TL/TT: refused
    const fa = await call(url, 'GET', '/find', undefined, bearer(a));
    assert.equal(fa.status, 200, fa.text);
    assert.ok(fa.json.Find.Records.length >= 1);
    for (const rec of fa.json.Find.Records) assert.equal(rec.ESR.TT, '1');
    const fb = await call(url, 'GET', '/find', undefined, bearer(b));
    assert.deepEqual(fb.json.Find.Records.map((r: { ESR: { TN: string } }) => r.ESR.TN), ['20']);
    const other = await call(url, 'GET', '/find?tt=2', undefined, bearer(a));
    assert.equal(other.status, 403);
    assert.equal(other.json.Result.ErrorCode, '#OUT_OF_SCOPE');
    const otherTaxId = await call(url, 'GET', '/find?TaxId=DE999999999', undefined, bearer(a));
    assert.equal(otherTaxId.status, 403);
    // /tra: the own transaction, not the other terminal's
    assert.equal((await call(url, 'GET', '/tra?tl=1&tt=1&tn=10', undefined, bearer(a))).status, 200);
    assert.equal((await call(url, 'GET', '/tra?tl=1&tt=2&tn=20', undefined, bearer(a))).status, 403);
    assert.equal((await call(url, 'GET', '/tra?tn=20', undefined, bearer(a))).status, 404);
    // /last: the last record of the own terminal, though 1/2 registered after it
    const last = await call(url, 'GET', '/last?_=Tra', undefined, bearer(a));
    assert.equal(last.status, 200, last.text);
    assert.equal(last.json.TraC.ESR.TN, '10');
  });

  test('/register/void/last does not void another terminal\'s receipt', async () => {
    const before = await svc.ctx.store.count();
    // the register's last transaction is terminal 1/2's (TN 20)
    const r = await call(url, 'POST', '/register/void/last', undefined, bearer(a));
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.TraC.Result.ErrorCode, '#OUT_OF_SCOPE');
    assert.equal(await svc.ctx.store.count(), before);
    // terminal 1/2 voids its own last receipt, under its own TL/TT
    const own = await call(url, 'POST', '/register/void/last', undefined, bearer(b));
    assert.equal(own.status, 200, own.text);
    const voids = await call(url, 'GET', '/find?bc=void', undefined, bearer(b));
    assert.equal(voids.json.Find.Records.length, 1, voids.text);
    assert.equal(voids.json.Find.Records[0].ESR.TT, '2');
    assert.equal(voids.json.Find.Records[0].ESR.RTN, '20');
    // /register/void with the original in the body: registered under the token's TL/TT too
    const original = (await call(url, 'GET', '/tra?tn=10', undefined, bearer(a))).json;
    const v = await call(url, 'POST', '/register/void', { Tra: { ESR: original.Tra.ESR } }, bearer(a));
    assert.equal(v.status, 200, v.text);
    assert.equal((await call(url, 'GET', '/find?bc=void', undefined, bearer(a))).json.Find.Records[0].ESR.TT, '1');
  });

  test('a register whose profile names another TaxId is refused', async () => {
    const otherKey = await new ApiKeys(svc.ctx.store).create('DE999999999', 'other', clock.now());
    handedOut.push(otherKey.secret);
    // the instance profile is the operator's: a tenant's token cannot change it
    const p = await call(url, 'POST', '/profile', { Badge: 'B', TaxId: 'ATU11111111' }, bearer(a));
    assert.equal(p.status, 403, p.text);
    // the operator makes the profile of def ATU11111111 (here in-process; over HTTP with the instance password)
    await saveProfile(svc.ctx, 'def', { Badge: 'B', TaxId: 'ATU11111111' }, { info: () => undefined });
    const t = await call(url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', TaxId: 'DE999999999', TL: '1', TT: '1' }), { ...FORM, authorization: basic(otherKey.record.key, otherKey.secret) });
    assert.equal(t.status, 200, t.text);
    handedOut.push(t.json.access_token, t.json.refresh_token);
    const before = await svc.ctx.store.count();
    const r = await call(url, 'POST', '/register', sale({ TaxId: 'DE999999999' }), bearer(t.json.access_token));
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.TraC.Result.ErrorCode, '#OUT_OF_SCOPE');
    assert.equal((await call(url, 'GET', '/find', undefined, bearer(t.json.access_token))).status, 403);
    assert.equal(await svc.ctx.store.count(), before);
  });
});

describe('stored credentials', () => {
  test('the settings hold no secret, refresh token or access token in clear', async () => {
    const rows = settingsRows(dataDir);
    const text = rows.map((r) => `${r.key}=${r.value}`).join('\n');
    assert.ok(rows.some((r) => r.key.startsWith('cloud.apikey:')), 'API keys are in the settings');
    assert.ok(rows.some((r) => r.key.startsWith('cloud.token-family:')), 'logins are in the settings');
    assert.ok(handedOut.length > 20);
    for (const s of handedOut) assert.ok(!text.includes(s), `found a secret in the settings: ${s.slice(0, 12)}...`);
    assert.match(text, /"secret":"sha256:[0-9a-f]{64}"/);
  });

  test('efr apikey create as a child process prints credentials that work; revoke ends them', async () => {
    const made = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'apikey', 'create', '--taxid', 'ATU11111111', '--name', 'cli', '--data', dataDir], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const cliKey = /API key:\s+(\S+)/.exec(made.stdout)?.[1];
    const cliSecret = /API secret:\s+(\S+)/.exec(made.stdout)?.[1];
    assert.ok(cliKey && cliSecret, made.stdout);
    const t = await call(url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', client_id: cliKey, client_secret: cliSecret, TaxId: 'ATU11111111', TL: '1', TT: '1' }), FORM);
    assert.equal(t.status, 200, t.text);
    const r = await call(url, 'POST', '/register', sale(), bearer(t.json.access_token));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.TraC.Result.RC, 'OK');
    assert.ok(!settingsRows(dataDir).some((row) => row.value.includes(cliSecret)), 'the CLI stored no clear secret');
    const list = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'apikey', 'list', '--data', dataDir], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`${cliKey}\\tATU11111111\\tcli\\t.*active`));
    assert.ok(!list.stdout.includes(cliSecret));
    const revoked = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'apikey', 'revoke', cliKey, '--data', dataDir], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(revoked.status, 0, revoked.stderr);
    const again = await call(url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', client_id: cliKey, client_secret: cliSecret, TT: '1', TL: '1' }), FORM);
    assert.equal(again.status, 401);
    assert.equal(again.json.error, 'invalid_client');
    const refreshed = await refresh(t.json.refresh_token, '1', '1', cliKey);
    assert.equal(refreshed.status, 401);
    assert.equal(refreshed.json.error, 'invalid_client');
  });
});

describe('other modes', () => {
  test('a local instance needs no token and has no /auth/token', async () => {
    const dir = tempDir('efr-local-');
    const local = await startService({ port: 0, host: '127.0.0.1', dataDir: dir, log: false, env: {} });
    try {
      assert.equal((await call(local.url, 'GET', '/state')).status, 200);
      assert.equal((await call(local.url, 'POST', '/register', sale())).status, 200);
      assert.equal((await call(local.url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', TT: '1' }), FORM)).status, 404);
    } finally {
      await local.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('EFR_CLOUD=true with lifetimes from EFR_TOKEN_ACCESS_TTL / EFR_TOKEN_REFRESH_TTL; Multi POS: only the own register', async () => {
    const dir = tempDir('efr-cloud-env-');
    const c = new ManualClock(T0);
    const env = {
      EFR_CLOUD: 'true',
      EFR_TOKEN_ACCESS_TTL: '60',
      EFR_TOKEN_REFRESH_TTL: '120',
      SVC_EFR_PROFILE_CFG__DOT__def__DOT__RN_TT: 'true',
    };
    const s = await startService({ port: 0, host: '127.0.0.1', dataDir: dir, log: false, env, clock: c });
    try {
      const k = await new ApiKeys(s.ctx.store).create('ATU22222222', undefined, c.now());
      const tok = async (tl: string, tt: string): Promise<Answer> =>
        call(s.url, 'POST', '/auth/token', form({ grant_type: 'client_credentials', TaxId: 'ATU22222222', TL: tl, TT: tt }), { ...FORM, authorization: basic(k.record.key, k.secret) });
      const t = await tok('L1', '1');
      assert.equal(t.status, 200, t.text);
      assert.equal(t.json.expires_in, 60);
      assert.equal(t.json.refresh_token_expires - t.json.access_token_expires, 60);
      assertInvalidToken(await call(s.url, 'GET', '/state'));
      // registers of this terminal with the token's TaxId (none in the ESR)
      const r = await call(s.url, 'POST', '/register', sale({ TL: 'L1' }), bearer(t.json.access_token));
      assert.equal(r.status, 200, r.text);
      const t2 = await tok('L1', '2');
      assert.equal((await call(s.url, 'POST', '/register', sale({ TL: 'L1', TT: '2' }), bearer(t2.json.access_token))).status, 200);
      const before = await s.ctx.store.count();
      const cross = await call(s.url, 'POST', '/register', sale({ TL: 'L1', TT: '2' }), bearer(t.json.access_token));
      assert.equal(cross.status, 403, cross.text);
      assert.equal(await s.ctx.store.count(), before);
      // another register named by rn: refused; the own one by TL/TT of the token
      const foreign = await call(s.url, 'GET', `/find?rn=${encodeURIComponent('ATU22222222$L1_2')}`, undefined, bearer(t.json.access_token));
      assert.equal(foreign.status, 403, foreign.text);
      const own = await call(s.url, 'GET', '/find', undefined, bearer(t.json.access_token));
      assert.equal(own.status, 200, own.text);
      assert.equal(own.json.Find.Records.length, 1);
      c.advance(61_000);
      assertInvalidToken(await call(s.url, 'GET', '/find', undefined, bearer(t.json.access_token)), /expired/);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('no local exemption in cloud mode: /retrieve from 127.0.0.1 with a token needs the profile password', async () => {
    const t = await login('1', '1');
    const token = bearer(t.json.access_token);
    const refused = await call(url, 'GET', '/retrieve?last=0', undefined, token);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.Result.ErrorCode, '#FORBIDDEN');
    // the operator sets the instance password (a tenant's token alone cannot); the bearer token holds the
    // Authorization header, so the password goes in the query
    assert.equal((await call(url, 'POST', '/profile', { Password: 'Cl0ud-pass' }, token)).status, 403);
    await saveProfile(svc.ctx, 'def', { Password: 'Cl0ud-pass' }, { info: () => undefined });
    assert.equal((await call(url, 'GET', '/retrieve?last=0&password=wrong', undefined, token)).status, 403);
    const ok = await call(url, 'GET', '/retrieve?last=0&password=Cl0ud-pass', undefined, token);
    assert.equal(ok.status, 200, ok.text);
    // the operator may come without a tenant's token, with the instance password: on every route
    assert.equal((await call(url, 'GET', '/retrieve?last=0&password=Cl0ud-pass')).status, 200, 'the operator');
    assertInvalidToken(await call(url, 'GET', '/retrieve?last=0&password=wrong'));
    assertInvalidToken(await call(url, 'GET', '/state?password=wrong'), /instance password/);
    assert.equal((await call(url, 'GET', '/state')).status, 401, 'nobody without a token or the password');
  });
});
