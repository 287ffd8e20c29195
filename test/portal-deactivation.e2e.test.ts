/**
 * Deactivation in the portal over real HTTP with an injected clock: companies and
 * locations at once with their cascade, on 31 December 23:59:59 UTC of a year by the scheduler, and registers:
 * get, search with the register filters, discharge at once or at a set time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../src/shared/clock.js';
import type { NewRegister } from '../src/portal/store/types.js';
import { STORE_NAME, type TestPortal, company, location, org, startTestPortal } from './portal-helpers.js';

const register = (registerNumber: string, companyId: number, extra: Partial<NewRegister> = {}): NewRegister => ({
  registerNumber,
  companyId,
  countryCode: 'AT',
  lastTL: null,
  lastTT: null,
  userComment: null,
  firstTransaction: null,
  lastTransaction: null,
  versionNumber: '2.1.0',
  state: 'Productive',
  isCloudEFR: false,
  dischargeAfter: null,
  ...extra,
});

const secs = (iso: string): number => Date.parse(iso) / 1000;

describe(`portal deactivation and registers (${STORE_NAME})`, () => {
  const clock = new ManualClock(new Date('2026-06-15T12:00:00Z'));
  let p: TestPortal;
  let orgId: number;
  const state = async (kind: string, id: number): Promise<string> => {
    const r = await p.call('GET', `/api/v1/${kind}/${id}`);
    assert.equal(r.status, 200, r.text);
    return (Object.values(r.json).find((v) => typeof v === 'object' && v !== null && 'state' in v) as { state: string }).state;
  };
  const registerState = async (rn: string): Promise<string> => (await p.call('GET', `/api/v1/registers/${rn}`)).json.register.state;
  const create = async (path: string, body: Record<string, unknown>, key: string): Promise<number> => {
    const r = await p.call('POST', path, body);
    assert.equal(r.status, 200, r.text);
    return r.json[key].id as number;
  };

  /** moves the clock (tokens older than an hour expire with it) */
  const setClock = async (d: Date | number): Promise<void> => {
    if (typeof d === 'number') clock.advance(d);
    else clock.set(d);
    await p.renewAdmin();
  };

  before(async () => {
    p = await startTestPortal({ clock });
    orgId = await create('/api/v1/organizations', org(p.rootId), 'organization');
  });
  after(() => p.stop());

  test('a location and then its company are deactivated at once, with everything under them', async () => {
    const c = await create('/api/v1/companies', company(orgId), 'company');
    const l1 = await create('/api/v1/locations', location(c, { locationIdentification: 'L1' }), 'location');
    const l2 = await create('/api/v1/locations', location(c, { locationIdentification: 'L2' }), 'location');
    await p.store.putRegister(register('R1', c, { lastTL: 'l1' }), clock.now());
    await p.store.putRegister(register('R2', c, { lastTL: 'L2' }), clock.now());
    await p.store.putRegister(register('R3', c), clock.now());

    const r = await p.call('POST', `/api/v1/locations/${l1}/deactivate`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { success: true, errorCode: null, errorMessage: null, errorMessageTranslated: null, validationErrors: {} });
    assert.equal(await state('locations', l1), 'Deactivated');
    assert.equal(await registerState('R1'), 'Deactivated');
    assert.equal(await registerState('R2'), 'Productive');
    assert.equal(await state('locations', l2), 'Productive');
    assert.equal(await state('companies', c), 'Productive');

    const rc = await p.call('POST', `/api/v1/companies/${c}/deactivate?forceSubDeactivation=true`);
    assert.equal(rc.status, 200, rc.text);
    assert.equal(await state('companies', c), 'Deactivated');
    assert.equal(await state('locations', l2), 'Deactivated');
    assert.equal(await registerState('R2'), 'Deactivated');
    assert.equal(await registerState('R3'), 'Deactivated');
    // again: nothing to do, no error
    assert.equal((await p.call('POST', `/api/v1/companies/${c}/deactivate`)).status, 200);
    // nothing can be created under a deactivated company
    const under = await p.call('POST', '/api/v1/locations', location(c, { locationIdentification: 'L9' }));
    assert.equal(under.status, 400);
    assert.ok(under.json.validationErrors.parentEntityId);
    // deactivating an organization through a full update cascades too
    const o = await create('/api/v1/organizations', org(orgId, { name: 'Sub' }), 'organization');
    const oc = await create('/api/v1/companies', company(o, { name: 'Sub Co' }), 'company');
    const u = await p.call('PUT', `/api/v1/organizations/${o}`, { name: 'Sub', state: 'Deactivated' });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.json.organization.state, 'Deactivated');
    assert.equal(await state('companies', oc), 'Deactivated');
  });

  test('a scheduled deactivation happens on 31 December 23:59:59 UTC of the year, by the scheduler', async () => {
    const c = await create('/api/v1/companies', company(orgId, { name: 'Closing Co' }), 'company');
    const l = await create('/api/v1/locations', location(c, { locationIdentification: 'CL1' }), 'location');
    await p.store.putRegister(register('R-CLOSE', c, { lastTL: 'CL1' }), clock.now());
    const past = await p.call('POST', `/api/v1/companies/${c}/deactivate?deactivateAfterYear=2025`);
    assert.equal(past.status, 400);
    assert.deepEqual(Object.keys(past.json.validationErrors), ['deactivateAfterYear']);
    assert.equal((await p.call('POST', `/api/v1/companies/${c}/deactivate?deactivateAfterYear=abc`)).status, 400);
    assert.equal((await p.call('POST', `/api/v1/companies/${c}/deactivate?forceSubDeactivation=maybe`)).status, 400);

    const r = await p.call('POST', `/api/v1/companies/${c}/deactivate?deactivateAfterYear=2026&forceSubDeactivation=false`);
    assert.equal(r.status, 200, r.text);
    const got = (await p.call('GET', `/api/v1/companies/${c}`)).json.company;
    assert.equal(got.state, 'Productive');
    assert.equal(got.deactivateAfterTimestamp, '2026-12-31T23:59:59.000Z');
    const scheduled = await p.call('POST', '/api/v1/companies/search', { hasDeactivateAfterTimestamp: true });
    assert.deepEqual(scheduled.json.foundItems.map((x: { id: number }) => x.id), [c]);

    assert.deepEqual((await p.scheduler.runNow()).entities, []);
    await setClock(new Date('2026-12-31T23:59:58Z'));
    await p.scheduler.runNow();
    assert.equal(await state('companies', c), 'Productive');
    await setClock(new Date('2026-12-31T23:59:59Z'));
    const ran = await p.scheduler.runNow();
    assert.deepEqual([...ran.entities].sort((a, b) => a - b), [c, l].sort((a, b) => a - b));
    assert.equal(await state('companies', c), 'Deactivated');
    assert.equal(await state('locations', l), 'Deactivated');
    assert.equal(await registerState('R-CLOSE'), 'Deactivated');
    // a scheduled deactivation of a deactivated company is refused
    const again = await p.call('POST', `/api/v1/companies/${c}/deactivate?deactivateAfterYear=2027`);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.json.errorCode, 'INVALID_STATE');
  });

  test('a location scheduled for a later year stays until then', async () => {
    await setClock(new Date('2027-03-01T08:00:00Z'));
    const c = await create('/api/v1/companies', company(orgId, { name: 'Later Co' }), 'company');
    const l = await create('/api/v1/locations', location(c, { locationIdentification: 'LL' }), 'location');
    assert.equal((await p.call('POST', `/api/v1/locations/${l}/deactivate?deactivateAfterYear=2026`)).status, 400);
    assert.equal((await p.call('POST', `/api/v1/locations/${l}/deactivate?deactivateAfterYear=2028`)).status, 200);
    assert.equal((await p.call('GET', `/api/v1/locations/${l}`)).json.location.deactivateAfterTimestamp, '2028-12-31T23:59:59.000Z');
    await setClock(new Date('2028-07-01T00:00:00Z'));
    await p.scheduler.runNow();
    assert.equal(await state('locations', l), 'Productive');
    await setClock(new Date('2029-01-01T00:00:00Z'));
    await p.scheduler.runNow();
    assert.equal(await state('locations', l), 'Deactivated');
    assert.equal(await state('companies', c), 'Productive');
  });

  test('registers: get, search with the register filters', async () => {
    const c = await create('/api/v1/companies', company(orgId, { name: 'Register Co' }), 'company');
    await p.store.putRegister(register('REG-B', c, { lastTL: 'Shop-1', lastTT: 'Till-2', userComment: 'back office', firstTransaction: secs('2026-01-10T00:00:00Z'), lastTransaction: secs('2026-05-01T00:00:00Z') }), clock.now());
    await p.store.putRegister(register('REG-A', c, { lastTL: 'Shop-2', lastTT: 'Till-1', countryCode: 'DE', firstTransaction: secs('2026-03-10T00:00:00Z'), lastTransaction: secs('2026-09-01T00:00:00Z'), isCloudEFR: true }), clock.now());
    await p.store.putRegister(register('REG-C', c, { state: 'Test' }), clock.now());
    const g = await p.call('GET', '/api/v1/registers/REG-B');
    assert.equal(g.status, 200, g.text);
    assert.deepEqual(
      { ...g.json.register, creationTimestamp: undefined },
      { registerNumber: 'REG-B', parentEntityId: c, countryCode: 'AT', lastTL: 'Shop-1', lastTT: 'Till-2', userComment: 'back office', firstTransaction: secs('2026-01-10T00:00:00Z'), lastTransaction: secs('2026-05-01T00:00:00Z'), versionNumber: '2.1.0', state: 'Productive', isCloudEFR: false, dischargeAfterTimestamp: null, creationTimestamp: undefined },
    );
    assert.equal((await p.call('GET', '/api/v1/registers/NOPE')).status, 404);
    const rns = async (body: object): Promise<string[]> => {
      const r = await p.call('POST', '/api/v1/registers/search', { parentEntityId: c, ...body });
      assert.equal(r.status, 200, r.text);
      return r.json.foundItems.map((x: { registerNumber: string }) => x.registerNumber);
    };
    assert.deepEqual(await rns({}), ['REG-A', 'REG-B', 'REG-C']);
    assert.deepEqual(await rns({ orderDescending: true }), ['REG-C', 'REG-B', 'REG-A']);
    assert.deepEqual(await rns({ tl: 'shop-1' }), ['REG-B']);
    assert.deepEqual(await rns({ tt: 'TILL-1' }), ['REG-A']);
    assert.deepEqual(await rns({ state: 'Test' }), ['REG-C']);
    assert.deepEqual(await rns({ countryCode: 'DE' }), ['REG-A']);
    assert.deepEqual(await rns({ hasUserComment: true }), ['REG-B']);
    assert.deepEqual(await rns({ searchText: 'BACK' }), ['REG-B']);
    assert.deepEqual(await rns({ firstTransactionAfter: '2026-02-01T00:00:00Z' }), ['REG-A']);
    assert.deepEqual(await rns({ firstTransactionBefore: '2026-02-01T00:00:00Z' }), ['REG-B']);
    assert.deepEqual(await rns({ lastTransactionAfter: '2026-06-01T00:00:00Z' }), ['REG-A']);
    assert.deepEqual(await rns({ lastTransactionBefore: '2026-06-01T00:00:00Z' }), ['REG-B']);
    assert.deepEqual(await rns({ orderByField: 'lastTT' }), ['REG-A', 'REG-B', 'REG-C']);
    const bad = await p.call('POST', '/api/v1/registers/search', { orderByField: 'secret', state: 'Gone', firstTransactionAfter: 'yesterday', tl: 'x'.repeat(1001) });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.json.validationErrors).sort(), ['firstTransactionAfter', 'state', 'tl']);
    const badOrder = await p.call('POST', '/api/v1/registers/search', { orderByField: 'secret' });
    assert.deepEqual(Object.keys(badOrder.json.validationErrors), ['orderByField']);
  });

  test('registers are discharged at once or at a set time', async () => {
    const c = await create('/api/v1/companies', company(orgId, { name: 'Discharge Co' }), 'company');
    await p.store.putRegister(register('DIS-1', c), clock.now());
    await p.store.putRegister(register('DIS-2', c), clock.now());
    const r = await p.call('POST', '/api/v1/registers/DIS-1/deactivate');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.register.state, 'Discharged');
    assert.equal(await registerState('DIS-1'), 'Discharged');
    const again = await p.call('POST', '/api/v1/registers/DIS-1/deactivate');
    assert.equal(again.status, 409);
    assert.equal((await p.call('POST', '/api/v1/registers/NOPE/deactivate')).status, 404);

    const now = clock.now().getTime();
    const past = await p.call('POST', `/api/v1/registers/DIS-2/deactivate?dischargeAfter=${encodeURIComponent(new Date(now - 1000).toISOString())}`);
    assert.equal(past.status, 400);
    assert.deepEqual(Object.keys(past.json.validationErrors), ['dischargeAfter']);
    assert.equal((await p.call('POST', '/api/v1/registers/DIS-2/deactivate?dischargeAfter=soon')).status, 400);
    const at = new Date(now + 86_400_000).toISOString();
    const s = await p.call('POST', `/api/v1/registers/DIS-2/deactivate?dischargeAfter=${encodeURIComponent(at)}`);
    assert.equal(s.status, 200, s.text);
    assert.equal(s.json.register.state, 'Productive');
    assert.equal(s.json.register.dischargeAfterTimestamp, at);
    assert.deepEqual((await p.call('POST', '/api/v1/registers/search', { parentEntityId: c, hasDeactivateAfterTimestamp: true })).json.foundItems.map((x: { registerNumber: string }) => x.registerNumber), ['DIS-2']);
    await p.scheduler.runNow();
    assert.equal(await registerState('DIS-2'), 'Productive');
    await setClock(86_400_000);
    const ran = await p.scheduler.runNow();
    assert.deepEqual(ran.registers, ['DIS-2']);
    assert.equal(await registerState('DIS-2'), 'Discharged');
  });

  test('tokens expire by the clock after an hour', async () => {
    assert.equal((await p.call('GET', `/api/v1/organizations/${orgId}`)).status, 200);
    clock.advance(3601_000);
    const r = await p.call('GET', `/api/v1/organizations/${orgId}`);
    assert.equal(r.status, 401);
    assert.match(r.json.errorMessage, /expired/);
  });
});
