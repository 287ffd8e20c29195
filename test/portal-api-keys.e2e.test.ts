/**
 * Cloud API keys of a company at the portal, on a real portal (SQLite; PostgreSQL with
 * EFR_TEST_PG): made with ManageCompany, the secret answered once and stored as SHA-256 only, listed with
 * ReadCompany without secrets, revoked (kept for the record); the instance check POST /api/v1/recorder/apiKeys/verify
 * for company and organization badges, an unknown key and a wrong secret answering alike.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type TestPortal, company, org, startTestPortal } from './portal-helpers.js';

let portal: TestPortal;
const cleanup: Array<() => Promise<void>> = [];
before(async () => {
  portal = await startTestPortal();
  cleanup.push(() => portal.stop());
});
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

async function newCompany(parent: number, taxId: string): Promise<{ id: number; badge: string }> {
  const r = await portal.call('POST', '/api/v1/companies', company(parent, { taxId, name: `Company ${taxId}`, countryCode: taxId.slice(0, 2) === 'DE' ? 'DE' : 'AT' }));
  assert.equal(r.status, 200, r.text);
  return r.json.company as { id: number; badge: string };
}

async function newOrg(parent: number, name: string): Promise<{ id: number; badge: string }> {
  const r = await portal.call('POST', '/api/v1/organizations', org(parent, { name }));
  assert.equal(r.status, 200, r.text);
  return r.json.organization as { id: number; badge: string };
}

async function activate(badge: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await portal.call('POST', '/api/v1/recorder/activate', { badge, ...extra }, null);
  assert.equal(r.status, 200, r.text);
  return r.json.token as string;
}

const verify = (credential: string | null, body: Record<string, unknown>) =>
  portal.call('POST', '/api/v1/recorder/apiKeys/verify', body, null, credential === null ? {} : { authorization: `Bearer ${credential}` });

describe('company API keys', () => {
  test('made with ManageCompany: the secret once, only its SHA-256 stored; listed with ReadCompany without secrets; revoked and kept', async () => {
    const c = await newCompany(portal.rootId, 'ATU13585627');
    const other = await newCompany(portal.rootId, 'ATU10223006');
    const reader = await portal.client([{ entityId: c.id, permission: 'ReadCompany' }]);
    const manager = await portal.client([{ entityId: c.id, permission: 'ManageCompany' }]);

    // permissions: a reader may not make or revoke keys; to a client without a grant on it the company is not found
    const denied = await portal.call('POST', `/api/v1/companies/${c.id}/apiKeys`, { name: 'cloud' }, reader.token);
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.json.success, false);
    assert.equal((await portal.call('GET', `/api/v1/companies/${other.id}/apiKeys`, undefined, manager.token)).status, 404);
    assert.equal((await portal.call('POST', `/api/v1/companies/${other.id}/apiKeys`, {}, manager.token)).status, 404);
    assert.equal((await portal.call('GET', `/api/v1/companies/${c.id}/apiKeys`, undefined, null)).status, 401);
    assert.equal((await portal.call('POST', '/api/v1/companies/999999/apiKeys', {}, manager.token)).status, 404);

    const made = await portal.call('POST', `/api/v1/companies/${c.id}/apiKeys`, { name: 'cloud POS' }, manager.token);
    assert.equal(made.status, 200, made.text);
    assert.equal(made.json.success, true);
    const key = made.json.companyApiKey as { apiKey: string; companyId: number; name: string; revoked: boolean; revocationTimestamp: string | null; creationTimestamp: string };
    const secret = made.json.apiSecret as string;
    assert.match(key.apiKey, /^ck_[A-Za-z0-9_-]{16}$/);
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual({ companyId: key.companyId, name: key.name, revoked: key.revoked, revocationTimestamp: key.revocationTimestamp }, { companyId: c.id, name: 'cloud POS', revoked: false, revocationTimestamp: null });
    // no body at all is fine too (no name)
    const second = await portal.call('POST', `/api/v1/companies/${c.id}/apiKeys`, undefined, manager.token);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.companyApiKey.name, null);
    assert.notEqual(second.json.companyApiKey.apiKey, key.apiKey);
    assert.notEqual(second.json.apiSecret, secret);

    // the store holds the digest, never the secret
    const stored = await portal.store.getCompanyApiKey(key.apiKey);
    assert.equal(stored?.secretHash, createHash('sha256').update(secret).digest('hex'));
    assert.ok(!JSON.stringify(stored).includes(secret));

    // listed without secrets, to a reader too
    const list = await portal.call('GET', `/api/v1/companies/${c.id}/apiKeys`, undefined, reader.token);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.companyApiKeys.map((k: { apiKey: string }) => k.apiKey).sort(), [key.apiKey, second.json.companyApiKey.apiKey].sort());
    assert.ok(!list.text.includes(secret) && !list.text.includes(second.json.apiSecret as string), 'no secret in the list');
    assert.ok(!list.text.includes(stored?.secretHash ?? '-'), 'no digest in the list');
    assert.ok(!/secret/i.test(list.text), 'no secret field at all');

    // revoke: a reader may not; a key of another company is not found there; revoked keys stay listed
    assert.equal((await portal.call('DELETE', `/api/v1/companies/${c.id}/apiKeys/${key.apiKey}`, undefined, reader.token)).status, 403);
    const otherKey = await portal.call('POST', `/api/v1/companies/${other.id}/apiKeys`, {});
    assert.equal(otherKey.status, 200);
    assert.equal((await portal.call('DELETE', `/api/v1/companies/${c.id}/apiKeys/${otherKey.json.companyApiKey.apiKey as string}`, undefined, manager.token)).status, 404);
    assert.equal((await portal.call('DELETE', `/api/v1/companies/${c.id}/apiKeys/ck_nothingnothingno`, undefined, manager.token)).status, 404);
    const revoked = await portal.call('DELETE', `/api/v1/companies/${c.id}/apiKeys/${key.apiKey}`, undefined, manager.token);
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.json.companyApiKey.revoked, true);
    assert.equal(typeof revoked.json.companyApiKey.revocationTimestamp, 'string');
    const again = await portal.call('DELETE', `/api/v1/companies/${c.id}/apiKeys/${key.apiKey}`, undefined, manager.token);
    assert.equal(again.json.companyApiKey.revocationTimestamp, revoked.json.companyApiKey.revocationTimestamp, 'revoking again keeps the first time');
    const after = await portal.call('GET', `/api/v1/companies/${c.id}/apiKeys`, undefined, reader.token);
    const listed = after.json.companyApiKeys.find((k: { apiKey: string }) => k.apiKey === key.apiKey);
    assert.equal(listed?.revoked, true, 'the revoked key is kept for the record');
    assert.equal((await portal.call('GET', `/api/v1/companies/${other.id}/apiKeys`)).json.companyApiKeys.length, 1);
  });

  test('the instance check: own company only (company badge), companies under the organization (organization badge); unknown and wrong alike', async () => {
    const group = await newOrg(portal.rootId, 'Cloud Group');
    const a = await newCompany(group.id, 'DE123456788');
    const b = await newCompany(group.id, 'DE136695976');
    const outside = await newCompany(portal.rootId, 'DE111111125');
    const mk = async (companyId: number): Promise<{ apiKey: string; secret: string }> => {
      const r = await portal.call('POST', `/api/v1/companies/${companyId}/apiKeys`, {});
      assert.equal(r.status, 200, r.text);
      return { apiKey: r.json.companyApiKey.apiKey as string, secret: r.json.apiSecret as string };
    };
    const ka = await mk(a.id);
    const kb = await mk(b.id);
    const ko = await mk(outside.id);
    const companyInstance = await activate(`${a.badge}/Shop-1/POS-1`);
    const orgInstance = await activate(group.badge, { taxId: 'DE123456788', tl: 'L1', tt: '1' });

    const valid = await verify(companyInstance, { apiKey: ka.apiKey, apiSecret: ka.secret });
    assert.equal(valid.status, 200, valid.text);
    assert.deepEqual({ valid: valid.json.valid, taxId: valid.json.taxId, companyId: valid.json.companyId, revoked: valid.json.revoked }, { valid: true, taxId: 'DE123456788', companyId: a.id, revoked: false });
    // a company badge serves its company only, not a sister company
    const sister = await verify(companyInstance, { apiKey: kb.apiKey, apiSecret: kb.secret });
    const wrong = await verify(companyInstance, { apiKey: ka.apiKey, apiSecret: `${ka.secret}x` });
    const unknown = await verify(companyInstance, { apiKey: 'ck_AAAAAAAAAAAAAAAA', apiSecret: ka.secret });
    const malformed = await verify(companyInstance, { apiKey: 'nonsense', apiSecret: ka.secret });
    const bodyOf = (r: { json: Record<string, unknown> }) => ({ valid: r.json.valid, taxId: r.json.taxId, companyId: r.json.companyId, revoked: r.json.revoked });
    const notValid = { valid: false, taxId: null, companyId: null, revoked: false };
    for (const r of [sister, wrong, unknown, malformed]) {
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(bodyOf(r), notValid, 'another company, a wrong secret, an unknown key: the same answer');
    }
    // an organization badge serves every company under the organization, not one outside it
    assert.equal((await verify(orgInstance, { apiKey: ka.apiKey, apiSecret: ka.secret })).json.valid, true);
    const viaOrg = await verify(orgInstance, { apiKey: kb.apiKey, apiSecret: kb.secret });
    assert.deepEqual(bodyOf(viaOrg), { valid: true, taxId: 'DE136695976', companyId: b.id, revoked: false });
    assert.deepEqual(bodyOf(await verify(orgInstance, { apiKey: ko.apiKey, apiSecret: ko.secret })), notValid);

    // without a secret: whether the key is active (a refresh's check)
    assert.equal((await verify(companyInstance, { apiKey: ka.apiKey })).json.valid, true);
    assert.equal((await portal.call('DELETE', `/api/v1/companies/${a.id}/apiKeys/${ka.apiKey}`)).status, 200);
    assert.deepEqual(bodyOf(await verify(companyInstance, { apiKey: ka.apiKey })), { valid: false, taxId: 'DE123456788', companyId: a.id, revoked: true });
    assert.deepEqual(bodyOf(await verify(companyInstance, { apiKey: ka.apiKey, apiSecret: ka.secret })), { valid: false, taxId: 'DE123456788', companyId: a.id, revoked: true });
    assert.deepEqual(bodyOf(await verify(companyInstance, { apiKey: ka.apiKey, apiSecret: 'wrong' })), notValid, 'a wrong secret does not learn that the key is revoked');

    // no or a bad instance credential: 401; a bad body: 400
    assert.equal((await verify(null, { apiKey: kb.apiKey, apiSecret: kb.secret })).status, 401);
    assert.equal((await verify('not-a-credential', { apiKey: kb.apiKey, apiSecret: kb.secret })).status, 401);
    assert.equal((await verify(orgInstance, { apiSecret: kb.secret })).status, 400);
  });

  test('the OpenAPI document lists the routes under their tags', async () => {
    const r = await portal.call('GET', '/openapi.json', undefined, null);
    if (r.status !== 200) return assert.fail(`no OpenAPI document: ${r.status}`);
    const paths = r.json.paths as Record<string, Record<string, { tags?: string[] }>>;
    assert.deepEqual(paths['/api/v1/companies/{companyId}/apiKeys']?.post?.tags, ['API keys']);
    assert.deepEqual(paths['/api/v1/companies/{companyId}/apiKeys/{apiKey}']?.delete?.tags, ['API keys']);
    assert.deepEqual(paths['/api/v1/recorder/apiKeys/verify']?.post?.tags, ['Recorder']);
  });
});
