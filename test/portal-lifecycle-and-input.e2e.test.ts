/**
 * The portal's entity lifecycle and strict input over real HTTP: reactivation and the scheduler,
 * the register rights a deactivation cascade needs, reactivation under a deactivated parent, locationIdentification
 * unique regardless of case under parallel requests, leap seconds, strict JSON types, lone surrogates, U+001F in
 * searchText, countryProperties of organizations, searches without a body, 413/415, unknown parents.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../src/shared/clock.js';
import type { NewRegister } from '../src/portal/store/types.js';
import type { HttpAnswer } from './helpers.js';
import { STORE_NAME, type TestPortal, company, location, org, startTestPortal } from './portal-helpers.js';

const register = (registerNumber: string, companyId: number, extra: Partial<NewRegister> = {}): NewRegister => ({
  registerNumber, companyId, countryCode: 'AT', lastTL: null, lastTT: null, userComment: null, firstTransaction: null,
  lastTransaction: null, versionNumber: '2.1.0', state: 'Productive', isCloudEFR: false, dischargeAfter: null, ...extra,
});

function assertInvalid(r: HttpAnswer, ...fields: string[]): void {
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.errorCode, 'VALIDATION_FAILED');
  assert.deepEqual(Object.keys(r.json.validationErrors).sort(), [...fields].sort(), r.text);
}

describe(`portal lifecycle and input checks (${STORE_NAME})`, () => {
  const clock = new ManualClock(new Date('2026-06-15T12:00:00Z'));
  let p: TestPortal;
  let orgId: number;
  const create = async (path: string, body: Record<string, unknown>, key: string, token?: string): Promise<number> => {
    const r = await p.call('POST', path, body, token);
    assert.equal(r.status, 200, r.text);
    return r.json[key].id as number;
  };
  const entity = async (kind: string, id: number): Promise<Record<string, unknown>> => {
    const r = await p.call('GET', `/api/v1/${kind}/${id}`);
    assert.equal(r.status, 200, r.text);
    return Object.values(r.json).find((v) => typeof v === 'object' && v !== null && 'state' in v) as Record<string, unknown>;
  };
  const registerState = async (rn: string): Promise<string> => (await p.call('GET', `/api/v1/registers/${rn}`)).json.register.state;

  before(async () => {
    p = await startTestPortal({ clock });
    orgId = await create('/api/v1/organizations', org(p.rootId), 'organization');
  });
  after(() => p.stop());

  test('a company reactivated after its scheduled deactivation ran stays active; its schedule is gone', async () => {
    const c = await create('/api/v1/companies', company(orgId, { name: 'Phoenix GmbH' }), 'company');
    await p.store.putRegister(register('PHX-1', c), clock.now());
    assert.equal((await p.call('POST', `/api/v1/companies/${c}/deactivate?deactivateAfterYear=2026`)).status, 200);
    clock.set(new Date('2027-01-01T00:00:30Z'));
    await p.renewAdmin();
    const ran = await p.scheduler.runNow();
    assert.ok(ran.entities.includes(c));
    assert.equal((await entity('companies', c)).state, 'Deactivated');
    const back = await p.call('PUT', `/api/v1/companies/${c}`, { ...company(orgId, { name: 'Phoenix GmbH', taxId: undefined }), state: 'Productive' });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.json.company.state, 'Productive');
    assert.equal(back.json.company.deactivateAfterTimestamp, null);
    clock.advance(60_000);
    await p.renewAdmin();
    assert.deepEqual((await p.scheduler.runNow()).entities, []);
    assert.equal((await entity('companies', c)).state, 'Productive', 'the next run leaves it');
    assert.equal(await registerState('PHX-1'), 'Deactivated', 'its registers stay as the cascade left them');
  });

  test('a deactivation whose cascade reaches registers needs ManageRegister on their company', async () => {
    const c = await create('/api/v1/companies', company(orgId, { name: 'HQ Company' }), 'company');
    const hq = await create('/api/v1/locations', location(c, { name: 'HQ', locationIdentification: 'HQ' }), 'location');
    const branch = await create('/api/v1/locations', location(c, { name: 'Branch', locationIdentification: 'BR-1' }), 'location');
    await p.store.putRegister(register('HQ-TILL', c, { lastTL: 'HQ' }), clock.now());
    const branchManager = await p.client([{ entityId: branch, permission: 'ManageCompany' }]);
    // the branch's manager cannot read the HQ register (its company is above the grant: not found), and cannot take
    // it down by renaming its own location
    assert.equal((await p.call('GET', '/api/v1/registers/HQ-TILL', undefined, branchManager.token)).status, 404);
    const put = await p.call('PUT', `/api/v1/locations/${branch}`, location(c, { name: 'Branch', locationIdentification: 'hq', state: 'Deactivated' }), branchManager.token);
    assert.equal(put.status, 403, put.text);
    assert.equal(put.json.errorCode, 'FORBIDDEN');
    assert.match(put.json.errorMessage, /ManageRegister/);
    assert.equal(await registerState('HQ-TILL'), 'Productive');
    const b = await entity('locations', branch);
    assert.equal(b.state, 'Productive', 'nothing changed');
    assert.equal(b.locationIdentification, 'BR-1');
    // the same by the deactivate operation (after a rename that by itself touches no register)
    assert.equal((await p.call('PUT', `/api/v1/locations/${branch}`, location(c, { name: 'Branch', locationIdentification: 'hq' }), branchManager.token)).status, 409, 'hq is taken (regardless of case)');
    const mgrOfHq = await p.client([{ entityId: hq, permission: 'ManageCompany' }]);
    const now = await p.call('POST', `/api/v1/locations/${hq}/deactivate`, undefined, mgrOfHq.token);
    assert.equal(now.status, 403, now.text);
    assert.match(now.json.errorMessage, /ManageRegister/);
    const later = await p.call('POST', `/api/v1/locations/${hq}/deactivate?deactivateAfterYear=2030`, undefined, mgrOfHq.token);
    assert.equal(later.status, 403, later.text);
    assert.equal((await entity('locations', hq)).deactivateAfterTimestamp, null);
    assert.equal(await registerState('HQ-TILL'), 'Productive');
    // a location whose cascade reaches no register needs no register right
    assert.equal((await p.call('POST', `/api/v1/locations/${branch}/deactivate`, undefined, branchManager.token)).status, 200);
    // with ManageRegister on the company (here inherited from the organization) it works
    const full = await p.client([{ entityId: hq, permission: 'ManageCompany' }, { entityId: orgId, permission: 'ManageRegister' }]);
    assert.equal((await p.call('POST', `/api/v1/locations/${hq}/deactivate`, undefined, full.token)).status, 200);
    assert.equal(await registerState('HQ-TILL'), 'Deactivated');
    // a company: the organization's company manager without register rights cannot deactivate it with its registers
    const c2 = await create('/api/v1/companies', company(orgId, { name: 'Till Company' }), 'company');
    await p.store.putRegister(register('TILL-2', c2), clock.now());
    const orgManager = await p.client([{ entityId: orgId, permission: 'ManageCompany' }]);
    const byOrg = await p.call('PUT', `/api/v1/organizations/${orgId}`, { name: 'Retail Group', state: 'Deactivated' }, orgManager.token);
    assert.equal(byOrg.status, 403, byOrg.text);
    assert.equal((await p.call('POST', `/api/v1/companies/${c2}/deactivate`, undefined, orgManager.token)).status, 403);
    assert.equal((await entity('companies', c2)).state, 'Productive');
    assert.equal(await registerState('TILL-2'), 'Productive');
  });

  test('a location cannot be reactivated while its company is deactivated', async () => {
    const c = await create('/api/v1/companies', company(orgId, { name: 'Closed Co' }), 'company');
    const l = await create('/api/v1/locations', location(c, { locationIdentification: 'CL-1' }), 'location');
    assert.equal((await p.call('POST', `/api/v1/companies/${c}/deactivate`)).status, 200);
    const r = await p.call('PUT', `/api/v1/locations/${l}`, location(c, { locationIdentification: 'CL-1', state: 'Productive' }));
    assert.equal(r.status, 409, r.text);
    assert.equal(r.json.errorCode, 'INVALID_STATE');
    assert.equal((await entity('locations', l)).state, 'Deactivated');
    assert.equal((await p.call('PUT', `/api/v1/locations/${l}`, location(c, { locationIdentification: 'CL-1', state: 'Test' }))).status, 409);
    // other changes of the deactivated location are still possible
    const renamed = await p.call('PUT', `/api/v1/locations/${l}`, location(c, { name: 'Closed shop', locationIdentification: 'CL-1' }));
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json.location.state, 'Deactivated');
    // first the company, then the location
    assert.equal((await p.call('PUT', `/api/v1/companies/${c}`, { ...company(orgId, { name: 'Closed Co', taxId: undefined }), state: 'Productive' })).status, 200);
    assert.equal((await p.call('PUT', `/api/v1/locations/${l}`, location(c, { locationIdentification: 'CL-1', state: 'Productive' }))).status, 200);
  });

  test('parallel creates of identifications differing only in case: one of each pair', async () => {
    const c = await create('/api/v1/companies', company(orgId, { name: 'Race Co' }), 'company');
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => [`Dup-${i}`, `DUP-${i}`]).flat()
      .map((li) => p.call('POST', '/api/v1/locations', location(c, { name: li, locationIdentification: li }))));
    assert.equal(answers.filter((a) => a.status === 200).length, 10, answers.map((a) => a.status).join(','));
    for (const a of answers.filter((x) => x.status !== 200)) {
      assert.equal(a.status, 409, a.text);
      assert.ok(a.json.validationErrors.locationIdentification);
    }
    const found = await p.call('POST', '/api/v1/locations/search', { parentEntityId: c, limit: 0 });
    assert.equal(found.json.totalCount, 10);
  });

  test('a leap second is a date-time (the second before it); errors name the API fields', async () => {
    const r = await p.call('POST', '/api/v1/organizations/search', { createdAfter: '2016-12-31T23:59:60Z' });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.totalCount >= 1);
    const c = await create('/api/v1/companies', company(orgId, { name: 'Leap Co' }), 'company');
    await p.store.putRegister(register('LEAP-1', c, { firstTransaction: Date.parse('2016-12-31T23:59:59Z') / 1000, lastTransaction: Date.parse('2017-01-01T00:00:00Z') / 1000 }), clock.now());
    const rns = async (body: object): Promise<string[]> => {
      const a = await p.call('POST', '/api/v1/registers/search', { parentEntityId: c, ...body });
      assert.equal(a.status, 200, a.text);
      return a.json.foundItems.map((x: { registerNumber: string }) => x.registerNumber);
    };
    assert.deepEqual(await rns({ firstTransactionAfter: '2016-12-31T23:59:60Z' }), [], 'exclusive: 23:59:60 counts as 23:59:59');
    assert.deepEqual(await rns({ firstTransactionBefore: '2016-12-31T23:59:60.5Z', lastTransactionAfter: '2016-12-31T23:59:60Z' }), [], 'before 23:59:59 is not');
    assert.deepEqual(await rns({ lastTransactionBefore: '2017-01-01T00:59:60+01:00' }), []);
    assert.deepEqual(await rns({ lastTransactionAfter: '2016-12-31T23:59:58Z' }), ['LEAP-1']);
    const bad = await p.call('POST', '/api/v1/registers/search', { firstTransactionAfter: '2016-12-31T23:59:61Z', createdAfter: 'soon' });
    assertInvalid(bad, 'firstTransactionAfter', 'createdAfter');
  });

  test('bodies are strict JSON types (no coercion); path and query values are still read as numbers', async () => {
    assertInvalid(await p.call('POST', '/api/v1/organizations', { parentEntityId: String(orgId), name: 12345 }), 'parentEntityId', 'name');
    assertInvalid(await p.call('POST', '/api/v1/organizations', { parentEntityId: [orgId], name: ['Array Org'] }), 'parentEntityId', 'name');
    assertInvalid(await p.call('POST', '/api/v1/companies/search', { limit: '5', orderDescending: 'true' }), 'limit', 'orderDescending');
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { ignoreTaxId: 'true' })), 'ignoreTaxId');
    const none = await p.call('POST', '/api/v1/organizations/search', { name: 'Nope', limit: 1 });
    assert.equal(none.status, 200, none.text);
    assert.equal((await p.call('GET', `/api/v1/organizations/${orgId}`)).status, 200);
    const c = await create('/api/v1/companies', company(orgId, { name: 'Query Co' }), 'company');
    assert.equal((await p.call('POST', `/api/v1/companies/${c}/deactivate?deactivateAfterYear=2030&forceSubDeactivation=true`)).status, 200);
    assert.equal((await p.call('POST', `/api/v1/companies/${c}/deactivate?deactivateAfterYear=2030&deactivateAfterYear=2031`)).status, 400);
  });

  test('text with a lone UTF-16 surrogate is refused, naming the field', async () => {
    const raw = `{"parentEntityId":${orgId},"name":"x\\ud800y","userComment":"ok \\ud83d\\ude00"}`;
    assertInvalid(await p.call('POST', '/api/v1/organizations', raw, undefined, { 'content-type': 'application/json' }), 'name');
    const low = `{"parentEntityId":${orgId},"name":"Fine","city":"\\udc00"}`;
    assertInvalid(await p.call('POST', '/api/v1/organizations', low, undefined, { 'content-type': 'application/json' }), 'city');
    const pair = await p.call('POST', '/api/v1/organizations', `{"parentEntityId":${orgId},"name":"Emoji \\ud83d\\ude00"}`, undefined, { 'content-type': 'application/json' });
    assert.equal(pair.status, 200, pair.text);
    assert.equal(pair.json.organization.name, 'Emoji \u{1F600}');
  });

  test('searchText with U+001F (the store\'s field separator) is refused', async () => {
    assertInvalid(await p.call('POST', '/api/v1/companies/search', { searchText: '1010\u001fatu' }), 'searchText');
    assertInvalid(await p.call('POST', '/api/v1/registers/search', { searchText: '\u001f' }), 'searchText');
  });

  test('an organization keeps no countryProperties from its create', async () => {
    const r = await p.call('POST', '/api/v1/organizations', org(orgId, { name: 'No props', countryProperties: { dE_WIdNr: 'DE1' } }));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.organization.countryProperties, null);
    assert.equal((await entity('organizations', r.json.organization.id)).countryProperties, null);
  });

  test('a search without a body is an empty search; 413 and 415 keep their status', async () => {
    for (const kind of ['organizations', 'companies', 'locations', 'registers']) {
      const r = await p.call('POST', `/api/v1/${kind}/search`);
      assert.equal(r.status, 200, `${kind}: ${r.text}`);
      assert.equal(r.json.success, true);
    }
    const big = await p.call('POST', '/api/v1/organizations', { parentEntityId: orgId, name: 'Big', userComment: 'x'.repeat(1024 * 1024 + 1) });
    assert.equal(big.status, 413, big.text);
    assert.equal(big.json.success, false);
    assert.equal(big.json.errorCode, 'PAYLOAD_TOO_LARGE');
    const text = await p.call('POST', '/api/v1/organizations', '<name>x</name>', undefined, { 'content-type': 'application/xml' });
    assert.equal(text.status, 415, text.text);
    assert.equal(text.json.errorCode, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(text.json.errorMessage, /application\/xml/);
  });

  test('an unknown parent answers like a foreign one (403) unless the caller manages a root', async () => {
    const c = await create('/api/v1/companies', company(orgId, { name: 'Parent Co' }), 'company');
    const manager = await p.client([{ entityId: c, permission: 'ManageCompany' }]);
    const missing = await p.call('POST', '/api/v1/locations', location(999_999, { locationIdentification: 'M1' }), manager.token);
    const foreign = await p.call('POST', '/api/v1/locations', location(orgId, { locationIdentification: 'M1' }), manager.token);
    assert.equal(missing.status, 403, missing.text);
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal(missing.text.replaceAll('entity 999999', 'entity ID'), foreign.text.replaceAll(`entity ${orgId}`, 'entity ID'), 'the same answer, naming the id asked for');
    assertInvalid(await p.call('POST', '/api/v1/locations', location(999_999, { locationIdentification: 'M1' })), 'parentEntityId');
  });
});
