/**
 * Searches of the portal over real HTTP: paging over 600 locations (limit 0 to 250, default
 * 100, 0 = all; offset), every filter of the spec, the sort field whitelist and order.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../src/shared/clock.js';
import { STORE_NAME, type TestPortal, company, location, org, startTestPortal } from './portal-helpers.js';

const N = 600;
const T1 = new Date('2026-03-01T10:00:00Z');
const T2 = new Date('2026-03-02T10:00:00Z');

describe(`portal search (${STORE_NAME})`, () => {
  const clock = new ManualClock(T1);
  let p: TestPortal;
  let orgId: number;
  let companyId: number;
  const name = (i: number): string => `Loc ${String(i).padStart(3, '0')}`;

  before(async () => {
    p = await startTestPortal({ clock });
    orgId = (await p.call('POST', '/api/v1/organizations', org(p.rootId, { name: 'Search Org' }))).json.organization.id;
    companyId = (await p.call('POST', '/api/v1/companies', company(orgId, { name: 'Search Co' }))).json.company.id;
    // the first half at T1, the second at T2; every 10th has a comment, every 3rd is in Germany, every 7th in Graz
    const make = async (i: number): Promise<void> => {
      const body = location(companyId, {
        name: name(i),
        locationIdentification: `L${i}`,
        ...(i % 10 === 0 ? { userComment: `comment ${i}` } : {}),
        ...(i % 3 === 0 ? { countryCode: 'DE' } : {}),
        ...(i % 7 === 0 ? { city: 'Graz' } : {}),
      });
      const r = await p.call('POST', '/api/v1/locations', body);
      assert.equal(r.status, 200, r.text);
    };
    for (const [from, to, t] of [[0, N / 2, T1], [N / 2, N, T2]] as const) {
      clock.set(t);
      await p.renewAdmin();
      const order = Array.from({ length: to - from }, (_, k) => from + k);
      // eight at a time, in a shuffled order so that the store's order is not the creation order
      order.sort((a, b) => ((a * 7919) % 601) - ((b * 7919) % 601));
      for (let k = 0; k < order.length; k += 8) await Promise.all(order.slice(k, k + 8).map(make));
    }
  });
  after(() => p.stop());

  const search = async (body: object, kind = 'locations') => {
    const r = await p.call('POST', `/api/v1/${kind}/search`, body);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.success, true);
    assert.equal(r.json.currentCount, r.json.foundItems.length);
    return r.json as { currentCount: number; totalCount: number; foundItems: Array<Record<string, unknown>> };
  };
  const names = (r: { foundItems: Array<Record<string, unknown>> }): string[] => r.foundItems.map((x) => x.name as string);

  test('paging over 600 locations: pages of 250, the default 100, 0 for all, offsets', async () => {
    const seen: string[] = [];
    for (const offset of [0, 250, 500]) {
      const r = await search({ parentEntityId: companyId, limit: 250, offset });
      assert.equal(r.totalCount, N);
      assert.equal(r.currentCount, offset === 500 ? 100 : 250);
      seen.push(...names(r));
    }
    assert.deepEqual(seen, Array.from({ length: N }, (_, i) => name(i)));
    const def = await search({ parentEntityId: companyId });
    assert.equal(def.currentCount, 100);
    assert.deepEqual(names(def), seen.slice(0, 100));
    const all = await search({ parentEntityId: companyId, limit: 0 });
    assert.equal(all.currentCount, N);
    const mid = await search({ parentEntityId: companyId, limit: 5, offset: 297 });
    assert.deepEqual(names(mid), seen.slice(297, 302));
    const beyond = await search({ parentEntityId: companyId, offset: 10_000 });
    assert.equal(beyond.currentCount, 0);
    assert.equal(beyond.totalCount, N);
    // descending
    const desc = await search({ parentEntityId: companyId, limit: 3, orderDescending: true });
    assert.deepEqual(names(desc), [name(599), name(598), name(597)]);
  });

  test('limit and offset bounds', async () => {
    for (const [body, field] of [[{ limit: 251 }, 'limit'], [{ limit: -1 }, 'limit'], [{ offset: -1 }, 'offset'], [{ limit: 'many' }, 'limit'], [{ offset: 1.5 }, 'offset']] as const) {
      const r = await p.call('POST', '/api/v1/locations/search', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.deepEqual(Object.keys(r.json.validationErrors), [field]);
    }
    assert.equal((await search({ limit: 250 })).currentCount, 250);
    const text = await p.call('POST', '/api/v1/locations/search', { searchText: 's'.repeat(1001), parentEntityId: 1, state: 'Closed', createdAfter: 'today', countryCode: 'DEU', hasUserComment: 'yes' });
    assert.equal(text.status, 400);
    assert.deepEqual(Object.keys(text.json.validationErrors).sort(), ['countryCode', 'createdAfter', 'hasUserComment', 'parentEntityId', 'searchText', 'state']);
    const order = await p.call('POST', '/api/v1/locations/search', { orderByField: 'name; DROP TABLE entities' });
    assert.equal(order.status, 400);
    assert.match(order.json.validationErrors.orderByField[0], /locationIdentification/);
    // a companies-only sort field is not one of locations
    assert.equal((await p.call('POST', '/api/v1/locations/search', { orderByField: 'taxId' })).status, 400);
  });

  test('filters: createdAfter, hasUserComment, searchText, countryCode, state, hasDeactivateAfterTimestamp, sort fields', async () => {
    const base = { parentEntityId: companyId, limit: 0 };
    assert.equal((await search({ ...base, createdAfter: '2026-03-01T12:00:00Z' })).totalCount, N / 2);
    assert.equal((await search({ ...base, createdAfter: '2026-02-01T00:00:00Z' })).totalCount, N);
    assert.equal((await search({ ...base, hasUserComment: true })).totalCount, N / 10);
    assert.equal((await search({ ...base, hasUserComment: false })).totalCount, N - N / 10);
    assert.equal((await search({ ...base, hasUserComment: null })).totalCount, N);
    assert.equal((await search({ ...base, countryCode: 'DE' })).totalCount, N / 3);
    assert.equal((await search({ ...base, countryCode: 'de' })).totalCount, N / 3);
    assert.equal((await search({ ...base, searchText: 'graz' })).totalCount, Math.ceil(N / 7));
    assert.deepEqual(names(await search({ ...base, searchText: 'COMMENT 59' })), [name(590)]);
    assert.deepEqual(names(await search({ ...base, searchText: 'L123' })), [name(123)]);
    // by id: creation order is not name order here
    const byId = await search({ ...base, orderByField: 'id', limit: 0 });
    const ids = byId.foundItems.map((x) => x.id as number);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    assert.notDeepEqual(names(byId), names(await search(base)));
    const byTl = names(await search({ ...base, orderByField: 'LOCATIONIDENTIFICATION', limit: 3 }));
    assert.equal(byTl.length, 3);
    // state and scheduled deactivation
    const some = (await search({ ...base, limit: 4 })).foundItems.map((x) => x.id as number);
    await p.call('POST', `/api/v1/locations/${some[0]}/deactivate`);
    await p.call('POST', `/api/v1/locations/${some[1]}/deactivate?deactivateAfterYear=2030`);
    assert.deepEqual((await search({ ...base, state: 'Deactivated' })).foundItems.map((x) => x.id), [some[0]]);
    assert.equal((await search({ ...base, state: 'Productive' })).totalCount, N - 1);
    assert.deepEqual((await search({ ...base, hasDeactivateAfterTimestamp: true })).foundItems.map((x) => x.id), [some[1]]);
    assert.equal((await search({ ...base, hasDeactivateAfterTimestamp: false })).totalCount, N - 1);
  });

  test('organizations and companies are searched the same way', async () => {
    const o2 = (await p.call('POST', '/api/v1/organizations', org(orgId, { name: 'Nested Org', userComment: 'needle' }))).json.organization;
    await p.call('POST', '/api/v1/companies', company(orgId, { name: 'Beta Handel', taxId: 'DE136695976', countryCode: 'DE', city: 'Berlin' }));
    assert.deepEqual(names(await search({ searchText: 'NEEDLE' }, 'organizations')), ['Nested Org']);
    assert.deepEqual(names(await search({ parentEntityId: orgId }, 'organizations')), ['Nested Org']);
    assert.deepEqual(names(await search({ searchText: '136695976' }, 'companies')), ['Beta Handel']);
    assert.deepEqual(names(await search({ parentEntityId: orgId, countryCode: 'DE' }, 'companies')), ['Beta Handel']);
    assert.deepEqual(names(await search({ parentEntityId: orgId, orderByField: 'name', orderDescending: true }, 'companies')), ['Search Co', 'Beta Handel']);
    assert.deepEqual(names(await search({ searchText: o2.badge }, 'organizations')), ['Nested Org']);
    assert.equal((await search({ orderByField: 'taxId' }, 'companies')).totalCount, 2);
  });
});
