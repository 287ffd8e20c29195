/**
 * Cloud API keys from the portal at a cloud register service, with a real portal and a real
 * register service in cloud mode activated by a company badge: a key made at the portal logs in at
 * POST /auth/token and its token registers a sale; a key of another company is refused; a revoked key's
 * refresh is refused once the cache time (EFR_PORTAL_KEY_CACHE_MS, low here) is over; with the portal stopped
 * a key answered before still logs in and one never seen gets 503 temporarily_unavailable; an instance not
 * activated refuses portal keys as not connected.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type HttpAnswer, get, http, post, sale, startTestService, tempDir, until } from './helpers.js';
import { type TestPortal, startTestPortal } from './portal-helpers.js';

const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

const CACHE_MS = 300;
const TAX_ID = 'ATU13585627';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (key: string, secret: string): string => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

async function portalKey(portal: TestPortal, companyId: number): Promise<{ key: string; secret: string }> {
  const r = await portal.call('POST', `/api/v1/companies/${companyId}/apiKeys`, { name: 'cloud POS' });
  assert.equal(r.status, 200, r.text);
  return { key: r.json.companyApiKey.apiKey as string, secret: r.json.apiSecret as string };
}

function login(url: string, k: { key: string; secret: string }, taxId = TAX_ID): Promise<HttpAnswer> {
  return http('POST', `${url}/auth/token`, new URLSearchParams({ grant_type: 'client_credentials', TaxId: taxId, TL: 'Shop-1', TT: 'POS-1' }).toString(), { ...FORM, authorization: basic(k.key, k.secret) });
}

function refresh(url: string, key: string, refreshToken: string): Promise<HttpAnswer> {
  return http('POST', `${url}/auth/token`, new URLSearchParams({ grant_type: 'refresh_token', client_id: key, refresh_token: refreshToken, TaxId: TAX_ID, TL: 'Shop-1', TT: 'POS-1' }).toString(), FORM);
}

function assertOAuth(r: HttpAnswer, status: number, error: string, description?: RegExp): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.json.error, error, r.text);
  if (description) assert.match(r.json.error_description as string, description);
}

test('portal API keys at a cloud instance: login, scope, another company, revocation after the cache time, portal outage', async () => {
  const portal = await startTestPortal();
  let portalStopped = false;
  cleanup.push(async () => {
    if (!portalStopped) await portal.stop();
  });
  const c = await portal.call('POST', '/api/v1/companies', { parentEntityId: portal.rootId, name: 'Café Central GmbH', taxId: TAX_ID, address: 'Herrengasse 14', city: 'Wien', zip: '1010', countryCode: 'AT' });
  assert.equal(c.status, 200, c.text);
  const company = c.json.company as { id: number; badge: string };
  const l = await portal.call('POST', '/api/v1/locations', { parentEntityId: company.id, name: 'Shop Herrengasse', address: 'Herrengasse 14', city: 'Wien', zip: '1010', countryCode: 'AT', locationIdentification: 'Shop-1' });
  assert.equal(l.status, 200, l.text);
  const o = await portal.call('POST', '/api/v1/companies', { parentEntityId: portal.rootId, name: 'Other GmbH', taxId: 'ATU10223006', address: 'Ring 1', city: 'Wien', zip: '1010', countryCode: 'AT' });
  assert.equal(o.status, 200, o.text);
  const otherCompany = o.json.company as { id: number };

  // the instance is activated by the company badge (the profile is saved before cloud mode is switched on)
  const dataDir = tempDir('efr-cloud-portal-');
  cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const setup = await startTestService({ dataDir, env: { EFR_PORTAL_URL: portal.url } });
  const p = await post(`${setup.url}/profile`, { Badge: `${company.badge}/Shop-1/POS-1`, Attributes: 'Recorder_init=50' });
  assert.equal(p.status, 200, p.text);
  await until('Recorder online', async () => ((await get(`${setup.url}/state`)).json?.Recorder === 'online' ? true : undefined));
  await setup.close();
  const env = { EFR_PORTAL_URL: portal.url, EFR_CLOUD: 'true', EFR_PORTAL_KEY_CACHE_MS: String(CACHE_MS), EFR_RECORDER_RETRY_MS: '50,400' };
  const svc = await startTestService({ dataDir, env });
  cleanup.push(() => svc.close());

  // a key made at the portal logs in, and its token registers a sale of its terminal
  const k1 = await portalKey(portal, company.id);
  const t1 = await login(svc.url, k1);
  assert.equal(t1.status, 200, t1.text);
  assert.equal(t1.json.api_key, k1.key);
  const sold = await http('POST', `${svc.url}/register`, sale({ TL: 'Shop-1', TT: 'POS-1' }), { authorization: `Bearer ${t1.json.access_token as string}` });
  assert.equal(sold.status, 200, sold.text);
  assert.equal(sold.json.TraC.Result.RC, 'OK', sold.text);
  // the key's TaxId is its company's
  assertOAuth(await login(svc.url, k1, 'ATU10223006'), 400, 'invalid_scope');
  // a wrong secret and a key of another company are refused alike
  assertOAuth(await login(svc.url, { key: k1.key, secret: `${k1.secret}x` }), 401, 'invalid_client');
  const foreign = await portalKey(portal, otherCompany.id);
  assertOAuth(await login(svc.url, foreign), 401, 'invalid_client');
  assertOAuth(await login(svc.url, foreign, 'ATU10223006'), 401, 'invalid_client');

  // refresh works; after the revocation at the portal and the cache time it is refused
  const r1 = await refresh(svc.url, k1.key, t1.json.refresh_token as string);
  assert.equal(r1.status, 200, r1.text);
  assert.equal((await portal.call('DELETE', `/api/v1/companies/${company.id}/apiKeys/${k1.key}`)).status, 200);
  await sleep(CACHE_MS + 100);
  assertOAuth(await refresh(svc.url, k1.key, r1.json.refresh_token as string), 401, 'invalid_client', /revoked/);
  assertOAuth(await login(svc.url, k1), 401, 'invalid_client');

  // the portal stops: a key answered before still logs in (also after the cache time), one never seen gets 503
  const k2 = await portalKey(portal, company.id);
  const k3 = await portalKey(portal, company.id);
  assert.equal((await login(svc.url, k2)).status, 200);
  await portal.stop();
  portalStopped = true;
  await sleep(CACHE_MS + 100);
  const cached = await login(svc.url, k2);
  assert.equal(cached.status, 200, cached.text);
  const refreshed = await refresh(svc.url, k2.key, cached.json.refresh_token as string);
  assert.equal(refreshed.status, 200, refreshed.text);
  const unseen = await login(svc.url, k3);
  assertOAuth(unseen, 503, 'temporarily_unavailable', /try again/);
  // a wrong secret of a cached key is not let in by the cache
  assertOAuth(await login(svc.url, { key: k2.key, secret: `${k2.secret}x` }), 503, 'temporarily_unavailable');
});

test('an instance not activated at the portal refuses portal keys as not connected; its own keys work', async () => {
  const svc = await startTestService({ env: { EFR_CLOUD: 'true' } });
  cleanup.push(() => svc.stop());
  const r = await login(svc.url, { key: 'ck_AAAAAAAAAAAAAAAA', secret: 'x'.repeat(43) });
  assertOAuth(r, 401, 'invalid_client', /not connected to the portal/);
  const { ApiKeys } = await import('../src/register/security/api-keys.js');
  const own = await new ApiKeys(svc.ctx.store).create(TAX_ID, 'local', new Date());
  const ok = await login(svc.url, { key: own.record.key, secret: own.secret });
  assert.equal(ok.status, 200, ok.text);
});
