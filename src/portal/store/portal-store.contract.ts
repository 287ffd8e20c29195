/**
 * The contract every PortalStore keeps (SQLite and PostgreSQL): one suite, run against each implementation
 * by its own test file with a factory that gives a fresh, migrated, empty store.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ENTITY_SORT_FIELDS, REGISTER_SORT_FIELDS, StoreBadQuery, StoreConflict, StoreReferenceMissing,
  type Entity, type EntityKind, type EntitySearch, type NewEntity, type NewRegister, type PortalStore, type ReadScope, type Register,
  type RegisterSearch,
} from './types.js';

export interface OpenedStore {
  store: PortalStore;
  close(): Promise<void>;
}

/** minutes after 2026-03-01 10:00 UTC */
const at = (min: number): Date => new Date(Date.UTC(2026, 2, 1, 10, min));
const iso = (min: number): string => at(min).toISOString();

const EMPTY: Omit<NewEntity, 'kind' | 'parentId' | 'name'> = {
  address: null, city: null, zip: null, countryCode: null, invoiceEmailAddress: null, userComment: null, state: 'Productive',
  test: false, badge: null, taxId: null, ignoreTaxId: false, countryProperties: null, locationIdentification: null, deactivateAfter: null,
};

function entity(kind: EntityKind, parentId: number | null, name: string, more: Partial<NewEntity> = {}): NewEntity {
  return { ...EMPTY, kind, parentId, name, ...more };
}

function register(registerNumber: string, companyId: number, more: Partial<NewRegister> = {}): NewRegister {
  return {
    registerNumber, companyId, countryCode: null, lastTL: null, lastTT: null, userComment: null, firstTransaction: null,
    lastTransaction: null, versionNumber: null, state: 'Productive', isCloudEFR: false, dischargeAfter: null, ...more,
  };
}

const PAGE = { offset: 0, limit: null, orderBy: 'name', descending: false } as const;
const ALL: ReadScope = { all: true };

/** The small hierarchy most cases search in. */
async function tree(s: PortalStore) {
  const R = await s.createEntity(entity('organization', null, 'Root Holding'), at(0));
  const A = await s.createEntity(entity('organization', R.id, 'Alpen Gruppe', { userComment: 'Key account', countryCode: 'AT' }), at(1));
  const B = await s.createEntity(entity('organization', R.id, 'Baltic Group', { userComment: '' }), at(2));
  const C1 = await s.createEntity(entity('company', A.id, 'Bäckerei Huber GmbH', {
    taxId: 'ATU12345678', city: 'Wien', zip: '1010', address: 'Graben 1', countryCode: 'AT', badge: 'BADGE-C1',
    invoiceEmailAddress: 'billing@huber.example', userComment: 'pays late', deactivateAfter: '2026-12-31T23:59:59.000Z',
  }), at(3));
  const C2 = await s.createEntity(entity('company', A.id, 'Cafe Sacher', {
    taxId: 'ATU99999999', city: 'Salzburg', zip: '5020', address: 'Getreidegasse 9', countryCode: 'AT', state: 'Test', test: true,
  }), at(4));
  const C3 = await s.createEntity(entity('company', B.id, '50%_off Outlet', {
    taxId: 'DE123456789', city: 'Berlin', zip: '10115', address: 'Unter den Linden 5', countryCode: 'DE', state: 'Deactivated',
  }), at(5));
  const C4 = await s.createEntity(entity('company', B.id, '50xxoff Outlet', {
    taxId: 'DE987654321', city: 'Hamburg', zip: '20095', address: 'Back\\slash 1', countryCode: 'de',
  }), at(6));
  const L1 = await s.createEntity(entity('location', C1.id, 'Filiale Graben', { locationIdentification: 'GRABEN-1', city: 'Wien', zip: '1010', address: 'Graben 1', countryCode: 'AT' }), at(7));
  const L2 = await s.createEntity(entity('location', C1.id, 'Filiale Mitte', { locationIdentification: 'mitte.2', city: 'Wien', zip: '1010', address: 'Mitte 2', countryCode: 'AT' }), at(8));
  return { R, A, B, C1, C2, C3, C4, L1, L2 };
}

async function registers(s: PortalStore, t: Awaited<ReturnType<typeof tree>>) {
  const R1 = await s.putRegister(register('ATU1-R1', t.C1.id, {
    countryCode: 'AT', lastTL: 'GRABEN-1', lastTT: '1', userComment: 'front desk', firstTransaction: 1000, lastTransaction: 5000, versionNumber: '2.1.0',
  }), at(10));
  const R2 = await s.putRegister(register('ATU1-R2', t.C1.id, {
    countryCode: 'AT', lastTL: 'graben-1', lastTT: '2', firstTransaction: 2000, lastTransaction: 6000, versionNumber: '2.2.0', isCloudEFR: true,
  }), at(11));
  const R3 = await s.putRegister(register('ATU1-R3', t.C1.id, { countryCode: 'AT', lastTL: 'MITTE.2', lastTT: '1', state: 'Test' }), at(12));
  const R4 = await s.putRegister(register('ATU2-R1', t.C2.id, {
    countryCode: 'at', lastTL: 'X', lastTT: 'T-9', state: 'Discharged', dischargeAfter: '2026-06-30T00:00:00.000Z', userComment: '',
  }), at(13));
  const R5 = await s.putRegister(register('DE3-R1', t.C3.id, { countryCode: 'DE', versionNumber: '1.0.0', firstTransaction: 3000, lastTransaction: 3000 }), at(14));
  return { R1, R2, R3, R4, R5 };
}

const ids = (r: { items: Entity[] }): number[] => r.items.map((e) => e.id);
const rns = (r: { items: Register[] }): string[] => r.items.map((e) => e.registerNumber);

type Key = string | number | boolean | null;

/** The documented order, computed in JavaScript: text case-insensitively then exactly, nulls last, then the tie break. */
function referenceOrder<T>(rows: T[], key: (x: T) => Key, descending: boolean, tie: (x: T) => string | number): T[] {
  const cmp = (a: string | number | boolean, b: string | number | boolean): number => (a < b ? -1 : a > b ? 1 : 0);
  const dir = descending ? -1 : 1;
  return [...rows].sort((x, y) => {
    const a = key(x);
    const b = key(y);
    if (a === null && b !== null) return 1;
    if (b === null && a !== null) return -1;
    if (a !== null && b !== null) {
      const c = typeof a === 'string' && typeof b === 'string' ? cmp(a.toLowerCase(), b.toLowerCase()) || cmp(a, b) : cmp(a, b);
      if (c !== 0) return c * dir;
    }
    return cmp(tie(x), tie(y)) * dir;
  });
}

async function rejectsWith(p: Promise<unknown>, kind: new (...args: never[]) => Error, field: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof kind, `expected ${kind.name}, got ${String(err)}`);
    assert.equal((err as Error & { field: string }).field, field);
    return true;
  });
}

export function portalStoreContract(name: string, open: () => Promise<OpenedStore>): void {
  const withStore = (fn: (s: PortalStore) => Promise<void>) => async () => {
    const o = await open();
    try {
      await fn(o.store);
    } finally {
      await o.close();
    }
  };

  describe(`PortalStore contract: ${name}`, () => {
    test('migrate again changes nothing and keeps the rows', withStore(async (s) => {
      const root = await s.createEntity(entity('organization', null, 'Root'), at(0));
      await s.migrate();
      await s.migrate();
      assert.deepEqual(await s.getEntity(root.id), root);
    }));

    test('organizations: every field round-trips; ids start at 2; paths and descendants', withStore(async (s) => {
      const input = entity('organization', null, 'Root Org', {
        address: 'Ring 1', city: 'Wien', zip: 'A-1010', countryCode: 'AT', invoiceEmailAddress: 'inv@root.example', userComment: 'the root',
        state: 'Test', test: true, badge: 'ORG-BADGE-1', deactivateAfter: '2027-12-31T23:59:59.000Z',
      });
      const root = await s.createEntity(input, at(0));
      assert.equal(root.id, 2, 'the first entity of a new store is 2');
      assert.deepEqual(root, { ...input, id: 2, path: '/2/', createdAt: iso(0), updatedAt: iso(0) });
      assert.deepEqual(await s.getEntity(root.id), root);
      const sub = await s.createEntity(entity('organization', root.id, 'Sub'), at(1));
      assert.deepEqual(sub, { ...entity('organization', root.id, 'Sub'), id: sub.id, path: `/2/${sub.id}/`, createdAt: iso(1), updatedAt: iso(1) });
      const co = await s.createEntity(entity('company', sub.id, 'Co', { taxId: 'ATU1' }), at(2));
      const loc = await s.createEntity(entity('location', co.id, 'Loc', { locationIdentification: 'L1' }), at(3));
      assert.equal(loc.path, `/2/${sub.id}/${co.id}/${loc.id}/`);
      assert.ok(sub.id > root.id && co.id > sub.id && loc.id > co.id);
      assert.deepEqual(await s.descendantIds(root.id), [sub.id, co.id, loc.id]);
      assert.deepEqual(await s.descendantIds(co.id), [loc.id]);
      assert.deepEqual(await s.descendantIds(loc.id), []);
      assert.deepEqual(await s.descendantIds(9999), []);
      assert.equal(await s.getEntity(9999), undefined);
    }));

    test('companies and locations: every field round-trips (nulls, countryProperties, booleans, times normalized)', withStore(async (s) => {
      const root = await s.createEntity(entity('organization', null, 'Root'), at(0));
      const input = entity('company', root.id, 'Müller & Söhne KG', {
        address: 'Hauptstraße 5', city: 'München', zip: '80331', countryCode: 'DE', invoiceEmailAddress: 'rechnung@mueller.example',
        userComment: 'Großkunde "A"', state: 'Productive', test: false, badge: 'CO-BADGE', taxId: 'DE123456789', ignoreTaxId: true,
        countryProperties: { dE_WIdNr: 'DE123456789-00001', other: '' },
      });
      const co = await s.createEntity({ ...input, deactivateAfter: '2027-01-01T00:59:59+01:00' }, at(1));
      assert.deepEqual(co, { ...input, deactivateAfter: '2026-12-31T23:59:59.000Z', id: co.id, path: `/${root.id}/${co.id}/`, createdAt: iso(1), updatedAt: iso(1) });
      assert.deepEqual(await s.getEntity(co.id), co);
      const bare = await s.createEntity(entity('company', root.id, 'Bare'), at(2));
      assert.deepEqual(await s.getEntity(bare.id), { ...entity('company', root.id, 'Bare'), id: bare.id, path: bare.path, createdAt: iso(2), updatedAt: iso(2) });
      const linput = entity('location', co.id, 'Filiale 1', { address: 'A 1', city: 'B', zip: 'C', countryCode: 'DE', locationIdentification: 'Fil-1+<>#.,=' });
      const loc = await s.createEntity(linput, at(3));
      assert.deepEqual(await s.getEntity(loc.id), { ...linput, id: loc.id, path: `${co.path}${loc.id}/`, createdAt: iso(3), updatedAt: iso(3) });
    }));

    test('full update: every changeable field, the test flag kept unless given, kind/parent/path/badge/createdAt unchanged', withStore(async (s) => {
      const root = await s.createEntity(entity('organization', null, 'Root'), at(0));
      const co = await s.createEntity(entity('company', root.id, 'Co', { badge: 'B-1', taxId: 'ATU1', test: true, state: 'Test', countryProperties: { dE_WIdNr: 'x' } }), at(1));
      const update = {
        name: 'Co renamed', address: 'Street 2', city: 'Graz', zip: '8010', countryCode: 'AT', invoiceEmailAddress: 'a@b.example',
        userComment: 'changed', state: 'Deactivated' as const, taxId: 'ATU2', ignoreTaxId: true, countryProperties: { dE_WIdNr: 'y', more: 'z' },
        locationIdentification: null, deactivateAfter: '2026-12-31T23:59:59.000Z',
      };
      const after = await s.updateEntity(co.id, update, at(5));
      const expected = { ...co, ...update, test: true, updatedAt: iso(5) };
      assert.deepEqual(after, expected);
      assert.deepEqual(await s.getEntity(co.id), expected);
      const cleared = await s.updateEntity(co.id, {
        ...update, address: null, city: null, zip: null, countryCode: null, invoiceEmailAddress: null, userComment: null,
        taxId: null, ignoreTaxId: false, countryProperties: null, deactivateAfter: null, state: 'Productive', test: false,
      }, at(6));
      assert.equal(cleared?.test, false);
      assert.equal(cleared?.countryProperties, null);
      assert.equal(cleared?.deactivateAfter, null);
      assert.equal(cleared?.badge, 'B-1');
      assert.equal(cleared?.createdAt, iso(1));
      assert.equal(cleared?.updatedAt, iso(6));
      assert.equal(await s.updateEntity(9999, update, at(7)), undefined);
      // the search text follows the update
      assert.deepEqual(ids(await s.searchEntities({ ...PAGE, kind: 'company', searchText: 'renamed' }, ALL)), [co.id]);
      assert.deepEqual(ids(await s.searchEntities({ ...PAGE, kind: 'company', searchText: 'graz' }, ALL)), []);
    }));

    test('conflicts: badge, locationIdentification per company (regardless of case), client id; missing references', withStore(async (s) => {
      const root = await s.createEntity(entity('organization', null, 'Root', { badge: 'DUP' }), at(0));
      await rejectsWith(s.createEntity(entity('company', root.id, 'Co', { badge: 'DUP' }), at(1)), StoreConflict, 'badge');
      const c1 = await s.createEntity(entity('company', root.id, 'C1', { badge: 'dup' }), at(1));
      const c2 = await s.createEntity(entity('company', root.id, 'C2'), at(1));
      await s.createEntity(entity('location', c1.id, 'L', { locationIdentification: 'SHOP-1' }), at(2));
      await rejectsWith(s.createEntity(entity('location', c1.id, 'L again', { locationIdentification: 'SHOP-1' }), at(2)), StoreConflict, 'locationIdentification');
      await rejectsWith(s.createEntity(entity('location', c1.id, 'L lower', { locationIdentification: 'shop-1' }), at(2)), StoreConflict, 'locationIdentification');
      await rejectsWith(s.createEntity(entity('location', c1.id, 'L non-ASCII', { locationIdentification: 'Shop-1' }), at(2)), StoreConflict, 'locationIdentification');
      const other = await s.createEntity(entity('location', c1.id, 'L other', { locationIdentification: 'shop-2' }), at(2));
      await s.createEntity(entity('location', c2.id, 'Other company', { locationIdentification: 'shop-1' }), at(2));
      await rejectsWith(s.updateEntity(other.id, { ...other, locationIdentification: 'Shop-1' }, at(3)), StoreConflict, 'locationIdentification');
      assert.equal((await s.getEntity(other.id))?.locationIdentification, 'shop-2', 'a refused update changes nothing');
      const own = await s.updateEntity(other.id, { ...other, locationIdentification: 'SHOP-2' }, at(3));
      assert.equal(own?.locationIdentification, 'SHOP-2', 'its own identification in another case is no clash');
      // non-ASCII letters fold too (the service allows only ASCII; the store holds any text alike in both databases)
      await s.createEntity(entity('location', c1.id, 'Umlaut', { locationIdentification: 'ÄRGER-1' }), at(2));
      await rejectsWith(s.createEntity(entity('location', c1.id, 'Umlaut lower', { locationIdentification: 'ärger-1' }), at(2)), StoreConflict, 'locationIdentification');
      // requests at the same time: one of each pair differing only in case wins, the other is a conflict
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => [`Dup-${i}`, `DUP-${i}`]).flat()
        .map((li) => s.createEntity(entity('location', c2.id, li, { locationIdentification: li }), at(4))));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 10);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof StoreConflict && r.reason.field === 'locationIdentification', String(r.reason));
      await rejectsWith(s.createEntity(entity('company', 9999, 'Orphan'), at(1)), StoreReferenceMissing, 'parentId');
      const client = { clientId: 'client-1', name: 'Admin', secretHash: 'h', createdAt: iso(0), revokedAt: null };
      await s.createClient(client);
      await rejectsWith(s.createClient({ ...client, name: 'Other' }), StoreConflict, 'clientId');
      assert.equal((await s.getClient('client-1'))?.name, 'Admin');
    }));

    test('search: each entity filter alone', withStore(async (s) => {
      const t = await tree(s);
      const co = (q: Partial<EntitySearch>) => s.searchEntities({ ...PAGE, kind: 'company', ...q }, ALL).then(ids);
      const orgs = (q: Partial<EntitySearch>) => s.searchEntities({ ...PAGE, kind: 'organization', ...q }, ALL).then(ids);
      const locs = (q: Partial<EntitySearch>) => s.searchEntities({ ...PAGE, kind: 'location', ...q }, ALL).then(ids);
      assert.deepEqual(await co({}), [t.C3.id, t.C4.id, t.C1.id, t.C2.id], 'kind only, by name case-insensitively');
      assert.deepEqual(await orgs({}), [t.A.id, t.B.id, t.R.id]);
      assert.deepEqual(await locs({}), [t.L1.id, t.L2.id]);
      assert.deepEqual(await co({ parentId: t.A.id }), [t.C1.id, t.C2.id]);
      assert.deepEqual(await co({ parentId: t.R.id }), [], 'direct children only');
      assert.deepEqual(await orgs({ parentId: t.R.id }), [t.A.id, t.B.id]);
      assert.deepEqual(await locs({ parentId: t.C1.id }), [t.L1.id, t.L2.id]);
      assert.deepEqual(await co({ createdAfter: iso(4) }), [t.C3.id, t.C4.id], 'strictly after');
      assert.deepEqual(await co({ createdAfter: '2026-03-01T11:04:00+01:00' }), [t.C3.id, t.C4.id], 'any ISO offset');
      assert.deepEqual(await co({ hasUserComment: true }), [t.C1.id]);
      assert.deepEqual(await co({ hasUserComment: false }), [t.C3.id, t.C4.id, t.C2.id]);
      assert.deepEqual(await orgs({ hasUserComment: true }), [t.A.id]);
      assert.deepEqual(await orgs({ hasUserComment: false }), [t.B.id, t.R.id], 'an empty comment is no comment');
      assert.deepEqual(await co({ hasDeactivateAfter: true }), [t.C1.id]);
      assert.deepEqual(await co({ hasDeactivateAfter: false }), [t.C3.id, t.C4.id, t.C2.id]);
      assert.deepEqual(await co({ state: 'Test' }), [t.C2.id]);
      assert.deepEqual(await co({ state: 'Deactivated' }), [t.C3.id]);
      assert.deepEqual(await co({ state: 'Productive' }), [t.C4.id, t.C1.id]);
      assert.deepEqual(await co({ countryCode: 'DE' }), [t.C3.id, t.C4.id], 'country code case-insensitively');
      assert.deepEqual(await co({ countryCode: 'at' }), [t.C1.id, t.C2.id]);
    }));

    test('search: searchText in every listed field, case-insensitive, %, _ and \\ literal, no injection', withStore(async (s) => {
      const t = await tree(s);
      const co = (text: string) => s.searchEntities({ ...PAGE, kind: 'company', searchText: text }, ALL).then(ids);
      assert.deepEqual(await co('HUBER'), [t.C1.id], 'name');
      assert.deepEqual(await co('bäckerei'), [t.C1.id], 'name, non-ASCII');
      assert.deepEqual(await co('BÄCKEREI'), [t.C1.id], 'name, non-ASCII upper case');
      assert.deepEqual(await co('pays LATE'), [t.C1.id], 'userComment');
      assert.deepEqual(await co('salzburg'), [t.C2.id], 'city');
      assert.deepEqual(await co('getreide'), [t.C2.id], 'address');
      assert.deepEqual(await co('20095'), [t.C4.id], 'zip');
      assert.deepEqual(await co('atu9999'), [t.C2.id], 'taxId');
      assert.deepEqual(await co('badge-c1'), [t.C1.id], 'badge');
      assert.deepEqual(await co('BILLING@'), [t.C1.id], 'invoiceEmailAddress');
      assert.deepEqual(await s.searchEntities({ ...PAGE, kind: 'location', searchText: 'graben-1' }, ALL).then(ids), [t.L1.id], 'locationIdentification');
      assert.deepEqual(await s.searchEntities({ ...PAGE, kind: 'location', searchText: 'MITTE.2' }, ALL).then(ids), [t.L2.id]);
      assert.deepEqual(await co('%'), [t.C3.id], '% is literal');
      assert.deepEqual(await co('_'), [t.C3.id], '_ is literal');
      assert.deepEqual(await co('50%_'), [t.C3.id]);
      assert.deepEqual(await co('50__off'), []);
      assert.deepEqual(await co('xx'), [t.C4.id]);
      assert.deepEqual(await co('k\\s'), [t.C4.id], 'backslash is literal');
      assert.deepEqual(await co('outlet'), [t.C3.id, t.C4.id]);
      assert.deepEqual(await co(''), [t.C3.id, t.C4.id, t.C1.id, t.C2.id], 'an empty text filters nothing');
      assert.deepEqual(await co("x'; DROP TABLE entities; --"), []);
      assert.deepEqual(await co('1010atu'), [], 'no match across two fields (zip, taxId)');
      assert.deepEqual(await co('1010\u001fatu'), [], 'not even with the separator of the fields in the text');
      assert.deepEqual(await co('\u001f'), []);
      assert.equal((await s.searchEntities({ ...PAGE, kind: 'company' }, ALL)).totalCount, 4);
    }));

    test('search: filters combined', withStore(async (s) => {
      const t = await tree(s);
      const co = (q: Partial<EntitySearch>) => s.searchEntities({ ...PAGE, kind: 'company', ...q }, ALL).then(ids);
      assert.deepEqual(await co({ parentId: t.A.id, countryCode: 'AT', searchText: 'sacher' }), [t.C2.id]);
      assert.deepEqual(await co({ parentId: t.B.id, state: 'Productive' }), [t.C4.id]);
      assert.deepEqual(await co({ hasUserComment: false, countryCode: 'DE', createdAfter: iso(5) }), [t.C4.id]);
      assert.deepEqual(await co({ parentId: t.A.id, hasDeactivateAfter: true, hasUserComment: true, state: 'Productive', searchText: 'wien', createdAfter: iso(0), countryCode: 'AT' }), [t.C1.id]);
      assert.deepEqual(await co({ parentId: t.A.id, state: 'Deactivated' }), []);
      const scoped = await s.searchEntities({ ...PAGE, kind: 'company', searchText: 'outlet', limit: 1, descending: true }, { prefixes: [t.B.path] });
      assert.deepEqual(ids(scoped), [t.C4.id]);
      assert.equal(scoped.totalCount, 2);
    }));

    test('search: read scopes by path prefix (entities and registers)', withStore(async (s) => {
      const t = await tree(s);
      const r = await registers(s, t);
      const co = (scope: ReadScope) => s.searchEntities({ ...PAGE, kind: 'company' }, scope).then(ids);
      assert.deepEqual(await co({ prefixes: [t.A.path] }), [t.C1.id, t.C2.id]);
      assert.deepEqual(await co({ prefixes: [t.A.path, t.C1.path] }), [t.C1.id, t.C2.id], 'nested prefixes: no duplicates');
      assert.deepEqual(await co({ prefixes: [t.C1.path, t.B.path] }), [t.C3.id, t.C4.id, t.C1.id]);
      assert.deepEqual(await co({ prefixes: [t.L1.path] }), []);
      assert.deepEqual(await co({ prefixes: [] }), []);
      assert.equal((await s.searchEntities({ ...PAGE, kind: 'company' }, { prefixes: [] })).totalCount, 0);
      assert.deepEqual(await co(ALL), [t.C3.id, t.C4.id, t.C1.id, t.C2.id]);
      assert.deepEqual(await s.searchEntities({ ...PAGE, kind: 'organization' }, { prefixes: [t.A.path] }).then(ids), [t.A.id], 'the entity itself is in its scope');
      assert.deepEqual(await s.searchEntities({ ...PAGE, kind: 'location' }, { prefixes: [t.A.path] }).then(ids), [t.L1.id, t.L2.id]);
      // a prefix is a whole path: /2/3/ must not see /2/30/ (organizations under the root until such an id exists)
      let look: Entity | undefined;
      for (let i = 0; i < 200 && !(look && String(look.id).startsWith(String(t.A.id))); i++) {
        look = await s.createEntity(entity('organization', t.R.id, `Extra ${i}`), at(20));
      }
      assert.ok(look && String(look.id).length > String(t.A.id).length && String(look.id).startsWith(String(t.A.id)));
      assert.deepEqual(await s.searchEntities({ ...PAGE, kind: 'organization' }, { prefixes: [t.A.path] }).then(ids), [t.A.id]);
      assert.deepEqual(await s.descendantIds(t.A.id), [t.C1.id, t.C2.id, t.L1.id, t.L2.id]);
      const reg = (scope: ReadScope) => s.searchRegisters({ ...PAGE, orderBy: 'registerNumber' }, scope).then(rns);
      assert.deepEqual(await reg({ prefixes: [t.A.path] }), ['ATU1-R1', 'ATU1-R2', 'ATU1-R3', 'ATU2-R1']);
      assert.deepEqual(await reg({ prefixes: [t.C1.path] }), [r.R1.registerNumber, r.R2.registerNumber, r.R3.registerNumber]);
      assert.deepEqual(await reg({ prefixes: [t.B.path] }), ['DE3-R1']);
      assert.deepEqual(await reg({ prefixes: [t.L1.path] }), [], 'registers follow their company\'s path');
      assert.deepEqual(await reg({ prefixes: [] }), []);
      for (const bad of ['', '2/', '/2/x/', '/2', '/0/', "/2/' OR 1=1 --/"]) {
        await assert.rejects(s.searchEntities({ ...PAGE, kind: 'company' }, { prefixes: [bad] }), StoreBadQuery, `prefix ${JSON.stringify(bad)}`);
      }
    }));

    test('search: order by every sortable entity field, both directions, ties by id', withStore(async (s) => {
      const root = await s.createEntity(entity('organization', null, 'Root'), at(0));
      const other = await s.createEntity(entity('organization', root.id, 'Other'), at(0));
      const names = ['alpha', 'Alpha', 'beta', 'BETA', 'gamma', 'alpha', 'Delta', 'delta', 'epsilon', 'Beta', 'zeta', 'ALPHA'];
      const pick = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;
      const made: Entity[] = [];
      for (let i = 0; i < names.length; i++) {
        const e = await s.createEntity(entity('company', i % 3 === 0 ? other.id : root.id, pick(names, i), {
          address: pick(['Ring 1', null, 'ring 2', 'Allee 3'], i), city: pick(['Wien', 'graz', null, 'Linz', 'wien'], i),
          zip: pick(['1010', null, '8010', '4020'], i), countryCode: pick(['AT', 'DE', null, 'at'], i),
          invoiceEmailAddress: pick([null, 'a@x.example', 'B@x.example'], i), userComment: pick([null, 'zz', 'Aa', 'aa', ''], i),
          state: pick(['Productive', 'Test', 'Deactivated'] as const, i), badge: i % 4 === 0 ? null : `Badge-${pick(['b', 'A', 'c'], i)}${i}`,
          taxId: pick(['ATU1', 'DE2', null, 'atu1'], i), deactivateAfter: pick([null, '2026-12-31T23:59:59.000Z', '2027-12-31T23:59:59.000Z'], i),
        }), at(pick([5, 1, 3, 3, 9], i)));
        made.push(i % 5 === 0 ? (await s.updateEntity(e.id, { ...e }, at(30 + (i % 2)))) ?? e : e);
      }
      for (const field of ENTITY_SORT_FIELDS) {
        for (const descending of [false, true]) {
          const got = await s.searchEntities({ ...PAGE, kind: 'company', orderBy: field, descending }, ALL);
          const expected = referenceOrder(made, (e) => e[field], descending, (e) => e.id).map((e) => e.id);
          assert.deepEqual(ids(got), expected, `${field} ${descending ? 'descending' : 'ascending'}`);
        }
      }
      const locs: Entity[] = [];
      for (const [i, li] of ['b-2', 'B-1', 'a', 'C', 'b-1a', 'A-0'].entries()) locs.push(await s.createEntity(entity('location', made[1]!.id, `L${i}`, { locationIdentification: li }), at(40)));
      for (const descending of [false, true]) {
        const got = await s.searchEntities({ ...PAGE, kind: 'location', orderBy: 'locationIdentification', descending }, ALL);
        assert.deepEqual(ids(got), referenceOrder(locs, (e) => e.locationIdentification, descending, (e) => e.id).map((e) => e.id));
      }
      for (const bad of ['search', 'path', 'kind', 'name; DROP TABLE entities', 'registerNumber', '']) {
        await assert.rejects(s.searchEntities({ ...PAGE, kind: 'company', orderBy: bad }, ALL), StoreBadQuery, `orderBy ${bad}`);
      }
    }));

    test('non-ASCII text sorts and compares alike in both databases (Unicode lower case)', withStore(async (s) => {
      const root = await s.createEntity(entity('organization', null, 'Root'), at(0));
      const made: Entity[] = [];
      for (const name of ['Äz Co', 'äa Co', 'Ab Co', 'Øst Co', 'øb Co', 'Zed Co', 'ÉCOLE Co', 'école Co']) {
        made.push(await s.createEntity(entity('company', root.id, name, { city: name.toUpperCase() }), at(1)));
      }
      for (const descending of [false, true]) {
        for (const field of ['name', 'city'] as const) {
          const got = await s.searchEntities({ ...PAGE, kind: 'company', orderBy: field, descending }, ALL);
          assert.deepEqual(ids(got), referenceOrder(made, (e) => e[field], descending, (e) => e.id).map((e) => e.id), `${field} ${descending ? 'descending' : 'ascending'}`);
        }
      }
      // by code point after lower-casing: z before ä; ä in either case before ø
      assert.deepEqual((await s.searchEntities({ ...PAGE, kind: 'company' }, ALL)).items.map((e) => e.name), ['Ab Co', 'Zed Co', 'äa Co', 'Äz Co', 'ÉCOLE Co', 'école Co', 'øb Co', 'Øst Co']);
      const co = made[0]!;
      const loc = await s.createEntity(entity('location', co.id, 'Straße', { locationIdentification: 'STRÄSSE-1' }), at(2));
      await s.putRegister(register('U-1', co.id, { lastTL: 'strässe-1', lastTT: 'KASSE-Ö' }), at(3));
      await s.putRegister(register('U-2', co.id, { lastTL: 'STRASSE-1', lastTT: 'kasse-o' }), at(3));
      const reg = (q: Partial<RegisterSearch>) => s.searchRegisters({ ...PAGE, orderBy: 'registerNumber', ...q }, ALL).then(rns);
      assert.deepEqual(await reg({ tl: 'Strässe-1' }), ['U-1'], 'tl ignores the case of Ä');
      assert.deepEqual(await reg({ tt: 'kasse-ö' }), ['U-1'], 'tt ignores the case of Ö');
      assert.deepEqual(await reg({ parentId: loc.id }), ['U-1'], 'a location\'s registers by lastTL, Ä in any case');
      assert.deepEqual(await s.deactivateSubtree(loc.id, 'Deactivated', at(4)), { entities: [loc.id], registers: ['U-1'] });
      assert.equal((await s.getRegister('U-2'))?.state, 'Productive');
    }));

    test('paging over 600 entities: no duplicates or gaps, counts consistent, both directions', withStore(async (s) => {
      const root = await s.createEntity(entity('organization', null, 'Root'), at(0));
      const org = await s.createEntity(entity('organization', root.id, 'Org'), at(0));
      const expectedIds = new Set<number>();
      for (let i = 0; i < 600; i++) {
        // few distinct names: most of the order comes from the tie break
        const e = await s.createEntity(entity('company', org.id, `Company ${String(i % 37).padStart(2, '0')}`, { city: i % 2 ? 'Wien' : 'Graz' }), at(1));
        expectedIds.add(e.id);
      }
      await s.createEntity(entity('company', root.id, 'Outside the scope'), at(1));
      for (const descending of [false, true]) {
        const all = await s.searchEntities({ ...PAGE, kind: 'company', descending }, { prefixes: [org.path] });
        assert.equal(all.items.length, 600);
        assert.equal(all.totalCount, 600);
        for (const limit of [100, 250, 7]) {
          const seen: number[] = [];
          for (let offset = 0; offset < 600; offset += limit) {
            const page = await s.searchEntities({ ...PAGE, kind: 'company', descending, offset, limit }, { prefixes: [org.path] });
            assert.equal(page.items.length, Math.min(limit, 600 - offset), `currentCount at offset ${offset}`);
            assert.equal(page.totalCount, 600, `totalCount at offset ${offset}`);
            seen.push(...ids(page));
          }
          assert.equal(new Set(seen).size, 600, 'no duplicates');
          assert.deepEqual(new Set(seen), expectedIds, 'no gaps');
          assert.deepEqual(seen, ids(all), 'pages join into the whole order');
        }
      }
      const past = await s.searchEntities({ ...PAGE, kind: 'company', offset: 600, limit: 100 }, { prefixes: [org.path] });
      assert.deepEqual(past.items, []);
      assert.equal(past.totalCount, 600);
      const none = await s.searchEntities({ ...PAGE, kind: 'company', offset: 0, limit: 0 }, { prefixes: [org.path] });
      assert.deepEqual(none.items, []);
      assert.equal(none.totalCount, 600);
      const wien = await s.searchEntities({ ...PAGE, kind: 'company', searchText: 'wien', offset: 250, limit: 250 }, ALL);
      assert.equal(wien.items.length, 50);
      assert.equal(wien.totalCount, 300);
      await assert.rejects(s.searchEntities({ ...PAGE, kind: 'company', offset: -1, limit: 10 }, ALL), StoreBadQuery);
      await assert.rejects(s.searchEntities({ ...PAGE, kind: 'company', offset: 0, limit: 1.5 }, ALL), StoreBadQuery);
    }));

    test('registers: every field round-trips; a put replaces but keeps createdAt; state and scheduled discharge', withStore(async (s) => {
      const root = await s.createEntity(entity('organization', null, 'Root'), at(0));
      const co = await s.createEntity(entity('company', root.id, 'Co'), at(0));
      const co2 = await s.createEntity(entity('company', root.id, 'Co2'), at(0));
      const input = register('ATU12345678$1_1', co.id, {
        countryCode: 'AT', lastTL: 'SHOP-1', lastTT: 'T1', userComment: 'Kassa 1', firstTransaction: 1_700_000_000, lastTransaction: 4_102_444_800,
        versionNumber: '3.0.1', state: 'Test', isCloudEFR: true, dischargeAfter: '2026-12-31T23:59:59+00:00',
      });
      const r = await s.putRegister(input, at(1));
      assert.deepEqual(r, { ...input, dischargeAfter: '2026-12-31T23:59:59.000Z', createdAt: iso(1), updatedAt: iso(1) });
      assert.deepEqual(await s.getRegister(input.registerNumber), r);
      const bare = register('bare', co.id);
      assert.deepEqual(await s.putRegister(bare, at(2)), { ...bare, createdAt: iso(2), updatedAt: iso(2) });
      const replaced = await s.putRegister({ ...bare, companyId: co2.id, lastTL: 'X', isCloudEFR: true, state: 'Deactivated' }, at(3));
      assert.deepEqual(replaced, { ...bare, companyId: co2.id, lastTL: 'X', isCloudEFR: true, state: 'Deactivated', createdAt: iso(2), updatedAt: iso(3) });
      assert.equal(await s.getRegister('nope'), undefined);
      await rejectsWith(s.putRegister(register('orphan', 9999), at(1)), StoreReferenceMissing, 'companyId');
      const discharged = await s.setRegisterState(input.registerNumber, 'Discharged', null, at(4));
      assert.deepEqual(discharged, { ...r, state: 'Discharged', dischargeAfter: null, updatedAt: iso(4) });
      assert.equal(await s.setRegisterState('nope', 'Discharged', null, at(4)), undefined);
      // the search text follows a replace
      assert.deepEqual(await s.searchRegisters({ ...PAGE, orderBy: 'registerNumber', searchText: 'x' }, ALL).then(rns), ['bare']);
    }));

    test('registers: each search filter alone and combined', withStore(async (s) => {
      const t = await tree(s);
      await registers(s, t);
      const reg = (q: Partial<RegisterSearch>) => s.searchRegisters({ ...PAGE, orderBy: 'registerNumber', ...q }, ALL).then(rns);
      assert.deepEqual(await reg({}), ['ATU1-R1', 'ATU1-R2', 'ATU1-R3', 'ATU2-R1', 'DE3-R1']);
      assert.deepEqual(await reg({ parentId: t.C1.id }), ['ATU1-R1', 'ATU1-R2', 'ATU1-R3'], 'a company');
      assert.deepEqual(await reg({ parentId: t.A.id }), ['ATU1-R1', 'ATU1-R2', 'ATU1-R3', 'ATU2-R1'], 'an organization');
      assert.deepEqual(await reg({ parentId: t.R.id }), ['ATU1-R1', 'ATU1-R2', 'ATU1-R3', 'ATU2-R1', 'DE3-R1']);
      assert.deepEqual(await reg({ parentId: t.L1.id }), ['ATU1-R1', 'ATU1-R2'], 'a location: lastTL case-insensitively');
      assert.deepEqual(await reg({ parentId: t.L2.id }), ['ATU1-R3']);
      assert.deepEqual(await reg({ parentId: 9999 }), []);
      assert.deepEqual(await reg({ createdAfter: iso(12) }), ['ATU2-R1', 'DE3-R1']);
      assert.deepEqual(await reg({ hasUserComment: true }), ['ATU1-R1']);
      assert.deepEqual(await reg({ hasUserComment: false }), ['ATU1-R2', 'ATU1-R3', 'ATU2-R1', 'DE3-R1']);
      assert.deepEqual(await reg({ hasDeactivateAfter: true }), ['ATU2-R1']);
      assert.deepEqual(await reg({ hasDeactivateAfter: false }), ['ATU1-R1', 'ATU1-R2', 'ATU1-R3', 'DE3-R1']);
      assert.deepEqual(await reg({ searchText: 'FRONT' }), ['ATU1-R1'], 'userComment');
      assert.deepEqual(await reg({ searchText: 'atu1-' }), ['ATU1-R1', 'ATU1-R2', 'ATU1-R3'], 'registerNumber');
      assert.deepEqual(await reg({ searchText: 'mitte' }), ['ATU1-R3'], 'lastTL');
      assert.deepEqual(await reg({ searchText: 't-9' }), ['ATU2-R1'], 'lastTT');
      assert.deepEqual(await reg({ searchText: '2.2' }), ['ATU1-R2'], 'versionNumber');
      assert.deepEqual(await reg({ searchText: '%' }), []);
      assert.deepEqual(await reg({ state: 'Test' }), ['ATU1-R3']);
      assert.deepEqual(await reg({ state: 'Discharged' }), ['ATU2-R1']);
      assert.deepEqual(await reg({ state: 'Productive' }), ['ATU1-R1', 'ATU1-R2', 'DE3-R1']);
      assert.deepEqual(await reg({ countryCode: 'AT' }), ['ATU1-R1', 'ATU1-R2', 'ATU1-R3', 'ATU2-R1']);
      assert.deepEqual(await reg({ countryCode: 'de' }), ['DE3-R1']);
      assert.deepEqual(await reg({ tl: 'graben-1' }), ['ATU1-R1', 'ATU1-R2']);
      assert.deepEqual(await reg({ tl: 'GRABEN' }), [], 'tl is equality, not a substring');
      assert.deepEqual(await reg({ tt: 't-9' }), ['ATU2-R1']);
      assert.deepEqual(await reg({ tt: '1' }), ['ATU1-R1', 'ATU1-R3']);
      assert.deepEqual(await reg({ firstTransactionAfter: 1000 }), ['ATU1-R2', 'DE3-R1'], 'exclusive; nulls never match');
      assert.deepEqual(await reg({ firstTransactionBefore: 3000 }), ['ATU1-R1', 'ATU1-R2']);
      assert.deepEqual(await reg({ lastTransactionAfter: 5000 }), ['ATU1-R2']);
      assert.deepEqual(await reg({ lastTransactionBefore: 5000 }), ['DE3-R1']);
      assert.deepEqual(await reg({ firstTransactionAfter: 1000, firstTransactionBefore: 3000 }), ['ATU1-R2']);
      assert.deepEqual(await reg({ parentId: t.A.id, tl: 'GRABEN-1', state: 'Productive', countryCode: 'at', searchText: 'atu1' }), ['ATU1-R1', 'ATU1-R2']);
      assert.deepEqual(await reg({ parentId: t.C1.id, lastTransactionAfter: 4000, hasUserComment: true }), ['ATU1-R1']);
      const page = await s.searchRegisters({ ...PAGE, orderBy: 'registerNumber', offset: 1, limit: 2 }, ALL);
      assert.deepEqual(rns(page), ['ATU1-R2', 'ATU1-R3']);
      assert.equal(page.totalCount, 5);
      for (const bad of ['name', 'search', 'register_number', 'companyId desc']) {
        await assert.rejects(s.searchRegisters({ ...PAGE, orderBy: bad }, ALL), StoreBadQuery, `orderBy ${bad}`);
      }
    }));

    test('registers: order by every sortable field, both directions, ties by registerNumber', withStore(async (s) => {
      const root = await s.createEntity(entity('organization', null, 'Root'), at(0));
      const cos = [await s.createEntity(entity('company', root.id, 'A'), at(0)), await s.createEntity(entity('company', root.id, 'B'), at(0))];
      const pick = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;
      const made: Register[] = [];
      for (let i = 0; i < 12; i++) {
        made.push(await s.putRegister(register(pick(['r-1', 'R-2', 'r-3', 'R-1', 'a', 'B', 'b', 'Z', 'z-9', 'A-0', 'm', 'M'], i), pick(cos, i).id, {
          countryCode: pick(['AT', null, 'de', 'DE'], i), lastTL: pick(['x', 'X', null, 'a'], i), lastTT: pick([null, '2', '10', '1'], i),
          userComment: pick(['b', null, 'A', ''], i), firstTransaction: pick([null, 5, 1, 5, 3], i), lastTransaction: pick([9, null, 7, 7], i),
          versionNumber: pick(['1.10', '1.9', null], i), state: pick(['Productive', 'Test', 'Deactivated', 'Discharged'] as const, i),
          isCloudEFR: i % 3 === 0, dischargeAfter: pick([null, '2026-12-31T23:59:59.000Z', '2026-06-30T00:00:00.000Z'], i),
        }), at(pick([3, 1, 2], i))));
      }
      for (let i = 0; i < 12; i += 4) made[i] = (await s.setRegisterState(made[i]!.registerNumber, made[i]!.state, made[i]!.dischargeAfter, at(20 + i)))!;
      for (const field of REGISTER_SORT_FIELDS) {
        for (const descending of [false, true]) {
          const got = await s.searchRegisters({ ...PAGE, orderBy: field, descending }, ALL);
          const expected = referenceOrder(made, (r) => r[field], descending, (r) => r.registerNumber).map((r) => r.registerNumber);
          assert.deepEqual(rns(got), expected, `${field} ${descending ? 'descending' : 'ascending'}`);
        }
      }
    }));

    test('deactivateSubtree: a location (registers by lastTL), then an organization; Discharged stays; nothing twice', withStore(async (s) => {
      const t = await tree(s);
      await registers(s, t);
      const first = await s.deactivateSubtree(t.L1.id, 'Deactivated', at(30));
      assert.deepEqual(first, { entities: [t.L1.id], registers: ['ATU1-R1', 'ATU1-R2'] });
      assert.equal((await s.getRegister('ATU1-R3'))?.state, 'Test', 'another location\'s register is untouched');
      const second = await s.deactivateSubtree(t.A.id, 'Discharged', at(31));
      assert.deepEqual(second, { entities: [t.A.id, t.C1.id, t.C2.id, t.L2.id].sort((a, b) => a - b), registers: ['ATU1-R1', 'ATU1-R2', 'ATU1-R3'] });
      for (const e of [t.A, t.C1, t.C2, t.L1, t.L2]) assert.equal((await s.getEntity(e.id))?.state, 'Deactivated', e.name);
      assert.equal((await s.getEntity(t.C2.id))?.updatedAt, iso(31));
      assert.equal((await s.getEntity(t.L1.id))?.updatedAt, iso(30), 'already deactivated: not touched again');
      for (const rn of ['ATU1-R1', 'ATU1-R2', 'ATU1-R3', 'ATU2-R1']) assert.equal((await s.getRegister(rn))?.state, 'Discharged', rn);
      assert.equal((await s.getRegister('ATU2-R1'))?.updatedAt, iso(13), 'already Discharged: not touched');
      assert.equal((await s.getEntity(t.C4.id))?.state, 'Productive', 'a sibling subtree is untouched');
      assert.equal((await s.getEntity(t.R.id))?.state, 'Productive', 'the parent is untouched');
      assert.equal((await s.getRegister('DE3-R1'))?.state, 'Productive');
      assert.deepEqual(await s.deactivateSubtree(t.A.id, 'Discharged', at(32)), { entities: [], registers: [] });
      assert.deepEqual(await s.deactivateSubtree(9999, 'Discharged', at(32)), { entities: [], registers: [] });
      const company = await s.deactivateSubtree(t.C3.id, 'Deactivated', at(33));
      assert.deepEqual(company, { entities: [], registers: ['DE3-R1'] }, 'an already deactivated company still takes its registers');
    }));

    test('due deactivations and discharges', withStore(async (s) => {
      const t = await tree(s);
      const r = await registers(s, t);
      const end = '2026-12-31T23:59:59.000Z';
      assert.deepEqual(await s.dueDeactivations(new Date('2026-12-31T23:59:58.999Z')), []);
      assert.deepEqual(await s.dueDeactivations(new Date(end)), [t.C1.id], 'at the time itself');
      await s.setDeactivateAfter(t.C2.id, '2026-06-30T23:59:59+02:00', at(40));
      assert.equal((await s.getEntity(t.C2.id))?.deactivateAfter, '2026-06-30T21:59:59.000Z');
      assert.equal((await s.getEntity(t.C2.id))?.updatedAt, iso(40));
      assert.deepEqual(await s.dueDeactivations(new Date('2027-01-01T00:00:00Z')), [t.C2.id, t.C1.id], 'earliest first');
      await s.setDeactivateAfter(t.C2.id, null, at(41));
      assert.deepEqual(await s.dueDeactivations(new Date('2027-01-01T00:00:00Z')), [t.C1.id]);
      await s.deactivateSubtree(t.C1.id, 'Deactivated', at(42));
      assert.deepEqual(await s.dueDeactivations(new Date('2027-01-01T00:00:00Z')), [], 'deactivated ones are no longer due');
      const hasSchedule = await s.searchEntities({ ...PAGE, kind: 'company', hasDeactivateAfter: true }, ALL);
      assert.deepEqual(ids(hasSchedule), [t.C1.id], 'the schedule stays recorded');

      assert.deepEqual(await s.dueDischarges(new Date('2030-01-01T00:00:00Z')), [], 'ATU2-R1 is Discharged already');
      await s.setRegisterState(r.R5.registerNumber, 'Productive', '2026-09-30T23:59:59.000Z', at(43));
      await s.setRegisterState(r.R3.registerNumber, 'Test', '2026-08-31T23:59:59.000Z', at(43));
      assert.deepEqual(await s.dueDischarges(new Date('2026-08-31T23:59:58Z')), []);
      assert.deepEqual(await s.dueDischarges(new Date('2026-10-01T00:00:00Z')), ['ATU1-R3', 'DE3-R1']);
      await s.setRegisterState(r.R3.registerNumber, 'Discharged', '2026-08-31T23:59:59.000Z', at(44));
      assert.deepEqual(await s.dueDischarges(new Date('2026-10-01T00:00:00Z')), ['DE3-R1']);
    }));

    test('contacts: created with ids from 2, listed per company in creation order', withStore(async (s) => {
      const t = await tree(s);
      const input = { companyId: t.C1.id, contactName: 'Anna Huber', emailAddress: 'anna@huber.example', contactType: 'InvoiceContact' as const, languageCode: 'de', emailAddressVerification: 'Created' };
      const c1 = await s.createContact(input, at(1));
      assert.ok(c1.id >= 2);
      assert.deepEqual(c1, { ...input, id: c1.id, createdAt: iso(1) });
      const c2 = await s.createContact({ ...input, contactName: 'Tech', contactType: 'ElsterContact', languageCode: null }, at(2));
      await s.createContact({ ...input, companyId: t.C2.id, contactType: 'Unknown' }, at(3));
      assert.deepEqual(await s.listContacts(t.C1.id), [c1, c2]);
      assert.equal((await s.listContacts(t.C2.id))[0]?.contactType, 'Unknown');
      assert.deepEqual(await s.listContacts(t.C3.id), []);
      await rejectsWith(s.createContact({ ...input, companyId: 9999 }, at(1)), StoreReferenceMissing, 'companyId');
    }));

    test('notifications: newest first, only of the given companies, texts round-trip', withStore(async (s) => {
      const t = await tree(s);
      const texts = { en: { short: 'TSE activated', long: 'CurrentLevel 1, CompanyType A' }, de: { short: 'TSE aktiviert', long: 'Stufe 1' } };
      const n1 = await s.addNotification({ registerNumber: 'ATU1-R1', companyId: t.C1.id, eventCode: 'TSE_ACTIVATED', level: 1, texts, initialTimestamp: iso(5) });
      assert.ok(n1.id >= 2);
      assert.deepEqual(n1, { registerNumber: 'ATU1-R1', companyId: t.C1.id, eventCode: 'TSE_ACTIVATED', level: 1, texts, initialTimestamp: iso(5), raisedAt: iso(5), closedAt: null, id: n1.id });
      const n2 = await s.addNotification({ registerNumber: 'ATU2-R1', companyId: t.C2.id, eventCode: 'NO_CONNECTION', level: 3, texts: { en: { short: 's', long: 'l' } }, initialTimestamp: iso(9) });
      const n3 = await s.addNotification({ registerNumber: 'DE3-R1', companyId: t.C3.id, eventCode: 'X', level: 2, texts: {}, initialTimestamp: iso(7) });
      const n4 = await s.addNotification({ registerNumber: 'ATU1-R2', companyId: t.C1.id, eventCode: 'Y', level: 2, texts: {}, initialTimestamp: '2026-03-01T11:05:00+01:00' });
      assert.equal(n4.initialTimestamp, iso(5));
      assert.deepEqual(await s.listNotifications([t.C1.id, t.C2.id]), [n2, n4, n1], 'newest first; same time: later first');
      assert.deepEqual(await s.listNotifications([t.C3.id]), [n3]);
      assert.deepEqual(await s.listNotifications([]), []);
      assert.deepEqual(await s.listNotifications([t.C4.id]), []);
      await rejectsWith(s.addNotification({ ...n3, eventCode: 'Z', companyId: 9999 }), StoreReferenceMissing, 'companyId');
    }));

    test('notifications: one open per register and event code, escalated, closed, then raised anew', withStore(async (s) => {
      const t = await tree(s);
      const texts = { en: { short: 'silent', long: 'CurrentLevel: 1' } };
      const n = await s.addNotification({ registerNumber: 'ATU1-R1', companyId: t.C1.id, eventCode: 'REGISTER_SILENT', level: 1, texts, initialTimestamp: iso(1) });
      assert.equal(n.closedAt, null);
      assert.equal(n.raisedAt, iso(1));
      await rejectsWith(s.addNotification({ registerNumber: 'ATU1-R1', companyId: t.C1.id, eventCode: 'REGISTER_SILENT', level: 1, texts, initialTimestamp: iso(2) }), StoreConflict, 'eventCode');
      const other = await s.addNotification({ registerNumber: 'ATU1-R1', companyId: t.C1.id, eventCode: 'TSE_FAILURE', level: 2, texts, initialTimestamp: iso(3) });
      const closedAtOnce = await s.addNotification({ registerNumber: 'ATU1-R1', companyId: t.C1.id, eventCode: 'TSE_ACTIVATED', level: 1, texts, initialTimestamp: iso(4), closedAt: iso(4) });
      assert.equal(closedAtOnce.closedAt, iso(4));
      await s.addNotification({ registerNumber: 'ATU1-R1', companyId: t.C1.id, eventCode: 'TSE_ACTIVATED', level: 1, texts, initialTimestamp: iso(5), closedAt: '2026-03-01T11:05:00+01:00' });
      assert.deepEqual(await s.openNotification('ATU1-R1', 'REGISTER_SILENT'), n);
      assert.equal(await s.openNotification('ATU1-R1', 'TSE_ACTIVATED'), undefined, 'closed ones are not open');
      assert.equal(await s.openNotification('ATU1-R2', 'REGISTER_SILENT'), undefined);
      assert.deepEqual((await s.openNotifications()).map((x) => x.id), [n.id, other.id], 'oldest raise first');
      const texts2 = { en: { short: 'silent', long: 'CurrentLevel: 2' }, de: { short: 'still', long: 'CurrentLevel: 2' } };
      const up = await s.escalateNotification(n.id, { from: { level: 1, raisedAt: iso(1) }, level: 2, texts: texts2, raisedAt: iso(30) });
      assert.deepEqual(up, { ...n, level: 2, texts: texts2, raisedAt: iso(30) }, 'initialTimestamp kept');
      assert.equal(await s.escalateNotification(n.id, { from: { level: 1, raisedAt: iso(1) }, level: 2, texts: texts2, raisedAt: iso(31) }), undefined,
        'escalated from what was read only: another process escalated it first');
      assert.deepEqual((await s.openNotifications()).map((x) => x.id), [other.id, n.id]);
      const closed = await s.closeNotification('ATU1-R1', 'REGISTER_SILENT', iso(40));
      assert.deepEqual(closed, { ...n, level: 2, texts: texts2, raisedAt: iso(30), closedAt: iso(40) });
      assert.equal(await s.closeNotification('ATU1-R1', 'REGISTER_SILENT', iso(41)), undefined, 'nothing open to close');
      assert.equal(await s.escalateNotification(n.id, { from: { level: 2, raisedAt: iso(30) }, level: 3, texts, raisedAt: iso(42) }), undefined, 'a closed one is not escalated');
      const again = await s.addNotification({ registerNumber: 'ATU1-R1', companyId: t.C1.id, eventCode: 'REGISTER_SILENT', level: 1, texts, initialTimestamp: iso(50) });
      assert.notEqual(again.id, n.id);
      const listed = await s.listNotifications([t.C1.id]);
      assert.equal(listed.length, 5, 'closed ones stay listed');
      assert.deepEqual(listed.find((x) => x.id === n.id)?.closedAt, iso(40));
    }));

    test('notifications: escalations at the same time from one reading change it once', withStore(async (s) => {
      const t = await tree(s);
      const texts = { en: { short: 'tse', long: 'CurrentLevel: 2' } };
      const ns = await Promise.all(['R1', 'R2', 'R3', 'R4'].map((r) => s.addNotification({ registerNumber: r, companyId: t.C1.id, eventCode: 'TSE_FAILURE', level: 2, texts, initialTimestamp: iso(1) })));
      for (const n of ns) {
        // two portal processes read the same open notification and escalate it at once
        const change = { from: { level: n.level, raisedAt: n.raisedAt }, level: 3, texts: { en: { short: 'tse', long: 'CurrentLevel: 3' } } };
        const results = await Promise.all([s.escalateNotification(n.id, { ...change, raisedAt: iso(20) }), s.escalateNotification(n.id, { ...change, raisedAt: iso(21) })]);
        assert.equal(results.filter((r) => r !== undefined).length, 1, `one of two escalations of ${n.registerNumber} changes it`);
        const now = await s.openNotification(n.registerNumber, 'TSE_FAILURE');
        assert.equal(now?.level, 3);
        assert.equal(now?.raisedAt, results.find((r) => r !== undefined)?.raisedAt);
      }
    }));

    test('notifications: reopened when closed since a time (the newest), not when one is open or it closed before', withStore(async (s) => {
      const t = await tree(s);
      const texts = { en: { short: 'tse', long: 'CurrentLevel: 2' } };
      const old = await s.addNotification({ registerNumber: 'R1', companyId: t.C1.id, eventCode: 'TSE_FAILURE', level: 2, texts, initialTimestamp: iso(1) });
      await s.closeNotification('R1', 'TSE_FAILURE', iso(2));
      const n = await s.addNotification({ registerNumber: 'R1', companyId: t.C1.id, eventCode: 'TSE_FAILURE', level: 2, texts, initialTimestamp: iso(5), raisedAt: iso(6) });
      await s.escalateNotification(n.id, { from: { level: 2, raisedAt: iso(6) }, level: 3, texts, raisedAt: iso(8) });
      await s.closeNotification('R1', 'TSE_FAILURE', iso(10));
      await s.addNotification({ registerNumber: 'R1', companyId: t.C1.id, eventCode: 'TSE_ACTIVATED', level: 1, texts, initialTimestamp: iso(10), closedAt: iso(10) });
      assert.equal(await s.reopenNotification('R1', 'TSE_FAILURE', iso(11)), undefined, 'closed before the time');
      assert.equal(await s.reopenNotification('R2', 'TSE_FAILURE', iso(0)), undefined, 'another register');
      const reopened = await s.reopenNotification('R1', 'TSE_FAILURE', '2026-03-01T11:01:00+01:00');
      assert.deepEqual(reopened, { ...n, level: 3, raisedAt: iso(8), closedAt: null }, 'the newest closed one, level and times kept');
      assert.deepEqual(await s.openNotification('R1', 'TSE_FAILURE'), reopened);
      await rejectsWith(s.reopenNotification('R1', 'TSE_FAILURE', iso(0)), StoreConflict, 'eventCode');
      assert.equal((await s.listNotifications([t.C1.id])).find((x) => x.id === old.id)?.closedAt, iso(2), 'the older one stays closed');
    }));

    test('recorder events: an id is claimed once per register, released again, pruned by age', withStore(async (s) => {
      assert.equal(await s.claimEvent('R1', 'ev-00000001', iso(1)), true);
      assert.equal(await s.claimEvent('R1', 'ev-00000001', iso(2)), false, 'seen');
      assert.equal(await s.claimEvent('R2', 'ev-00000001', iso(2)), true, 'ids are per register');
      assert.equal(await s.claimEvent('R1', 'EV-00000001', iso(2)), true, 'ids are case-sensitive');
      const both = await Promise.all([s.claimEvent('R1', 'ev-00000002', iso(3)), s.claimEvent('R1', 'ev-00000002', iso(3))]);
      assert.deepEqual(both.sort(), [false, true], 'two processes at once: one claims it');
      await s.releaseEvent('R1', 'ev-00000002');
      assert.equal(await s.claimEvent('R1', 'ev-00000002', iso(4)), true, 'released: claimed again');
      assert.equal(await s.pruneEvents(iso(2)), 1, 'only the one seen before 2');
      assert.equal(await s.claimEvent('R1', 'ev-00000001', iso(5)), true, 'pruned: new again');
      assert.equal(await s.claimEvent('R2', 'ev-00000001', iso(5)), false, 'seen at 2: kept');
      assert.equal(await s.pruneEvents('2026-03-01T12:00:00+01:00'), 4);
    }));

    test('last contact of registers: the latest time kept; silent Productive and Test registers found', withStore(async (s) => {
      const t = await tree(s);
      const r = await registers(s, t);
      assert.deepEqual(await s.silentRegisters(iso(100)), [], 'no contact recorded: not listed');
      await s.touchRegister(r.R1.registerNumber, iso(10));
      await s.touchRegister(r.R1.registerNumber, iso(20));
      await s.touchRegister(r.R1.registerNumber, iso(15));
      await s.touchRegister(r.R3.registerNumber, '2026-03-01T11:05:00+01:00');
      await s.touchRegister(r.R4.registerNumber, iso(1));
      await s.touchRegister('unknown-register', iso(1));
      assert.deepEqual(await s.silentRegisters(iso(20)), [{ registerNumber: r.R3.registerNumber, companyId: t.C1.id, lastContactAt: iso(5) }],
        'R1 was heard from at 20 (not before 20); R4 is Discharged; an unknown register is not listed');
      assert.deepEqual(await s.silentRegisters(iso(21)), [
        { registerNumber: r.R3.registerNumber, companyId: t.C1.id, lastContactAt: iso(5) },
        { registerNumber: r.R1.registerNumber, companyId: t.C1.id, lastContactAt: iso(20) },
      ]);
    }));

    test('API clients and grants', withStore(async (s) => {
      const t = await tree(s);
      const client = { clientId: 'c-1', name: 'Admin', secretHash: 'scrypt$abc', createdAt: iso(0), revokedAt: null };
      await s.createClient(client);
      await s.createClient({ clientId: 'c-2', name: 'Old', secretHash: 'h2', createdAt: '2026-03-01T11:00:00+01:00', revokedAt: iso(3) });
      assert.deepEqual(await s.getClient('c-1'), client);
      assert.deepEqual(await s.getClient('c-2'), { clientId: 'c-2', name: 'Old', secretHash: 'h2', createdAt: iso(0), revokedAt: iso(3) });
      assert.equal(await s.getClient('C-1'), undefined, 'client ids are case-sensitive');
      await s.grant({ clientId: 'c-1', entityId: t.C1.id, permission: 'ReadRegister' });
      await s.grant({ clientId: 'c-1', entityId: t.A.id, permission: 'ReadCompany' });
      await s.grant({ clientId: 'c-1', entityId: t.A.id, permission: 'ManageCompany' });
      await s.grant({ clientId: 'c-1', entityId: t.A.id, permission: 'ReadCompany' });
      const sorted = [
        { clientId: 'c-1', entityId: t.A.id, permission: 'ManageCompany' },
        { clientId: 'c-1', entityId: t.A.id, permission: 'ReadCompany' },
        { clientId: 'c-1', entityId: t.C1.id, permission: 'ReadRegister' },
      ].sort((a, b) => a.entityId - b.entityId || (a.permission < b.permission ? -1 : 1));
      assert.deepEqual(await s.grantsOf('c-1'), sorted, 'a repeated grant is kept once');
      assert.deepEqual(await s.grantsOf('c-2'), []);
      await rejectsWith(s.grant({ clientId: 'nobody', entityId: t.A.id, permission: 'ReadCompany' }), StoreReferenceMissing, 'clientId');
      await rejectsWith(s.grant({ clientId: 'c-1', entityId: 9999, permission: 'ReadCompany' }), StoreReferenceMissing, 'entityId');
    }));

    test('recorder: instance credentials, archived records (a stored SQ is kept), first use recorded once', withStore(async (s) => {
      const t = await tree(s);
      const credential = { tokenHash: 'a'.repeat(64), registerNumber: 'ATU12345678$GRABEN-1_1', companyId: t.C1.id, badge: 'BADGE-C1/GRABEN-1/1', createdAt: iso(1) };
      await s.putInstanceCredential(credential);
      assert.deepEqual(await s.instanceCredential('a'.repeat(64)), credential);
      assert.equal(await s.instanceCredential('b'.repeat(64)), undefined);
      await assert.rejects(s.putInstanceCredential({ ...credential, tokenHash: 'c'.repeat(64), companyId: 9999 }), 'a company that does not exist');
      assert.equal(await s.instanceCredential('c'.repeat(64)), undefined);
      await assert.rejects(s.putInstanceCredential(credential), 'a token hash is stored once');
      const rn = credential.registerNumber;
      const rec = (sq: number, hash = String(sq).padStart(64, '0')) => ({ registerNumber: rn, sq, data: `{"SQ":"${sq}"}`, hash, d: sq % 2 ? '2026-03-01T10:00:00' : null });
      await s.archiveRecords([rec(1), rec(2), rec(3)]);
      await s.archiveRecords([rec(3, 'f'.repeat(64)), rec(4)]);
      await s.archiveRecords([]);
      assert.deepEqual(await s.archivedRecords(rn, 1, 10), [rec(1), rec(2), rec(3), rec(4)], 'the stored SQ 3 is kept');
      assert.deepEqual(await s.archivedRecords(rn, 2, 3), [rec(2), rec(3)]);
      assert.deepEqual(await s.archivedRecords('other', 1, 10), []);
      assert.equal(await s.lastArchivedSq(rn), 4);
      assert.equal(await s.lastArchivedSq('other'), undefined, 'none held');
      assert.equal(await s.recordFirstUse(rn, '2026-03-01'), '2026-03-01');
      assert.equal(await s.recordFirstUse(rn, '2026-03-02'), '2026-03-01', 'the first day is kept');
    }));

    test('cloud API keys: stored with the secret digest only, listed per company oldest first, revoked once and kept', withStore(async (s) => {
      const t = await tree(s);
      const k1 = { apiKey: 'ck_AAAAAAAAAAAAAAAA', companyId: t.C1.id, secretHash: 'a'.repeat(64), name: 'till', createdAt: iso(2), revokedAt: null };
      const k2 = { apiKey: 'ck_BBBBBBBBBBBBBBBB', companyId: t.C1.id, secretHash: 'b'.repeat(64), name: null, createdAt: '2026-03-01T11:01:00+01:00', revokedAt: null };
      const k3 = { apiKey: 'ck_CCCCCCCCCCCCCCCC', companyId: t.C2.id, secretHash: 'c'.repeat(64), name: 'other', createdAt: iso(3), revokedAt: null };
      await s.createCompanyApiKey(k1);
      await s.createCompanyApiKey(k2);
      await s.createCompanyApiKey(k3);
      assert.deepEqual(await s.getCompanyApiKey(k1.apiKey), k1);
      assert.deepEqual(await s.getCompanyApiKey(k2.apiKey), { ...k2, createdAt: iso(1) }, 'times normalized to UTC');
      assert.equal(await s.getCompanyApiKey('ck_aaaaaaaaaaaaaaaa'), undefined, 'key ids are case-sensitive');
      assert.deepEqual((await s.listCompanyApiKeys(t.C1.id)).map((k) => k.apiKey), [k2.apiKey, k1.apiKey], 'oldest first, only the company\'s');
      assert.deepEqual(await s.listCompanyApiKeys(t.C4.id), []);
      await rejectsWith(s.createCompanyApiKey({ ...k1, companyId: t.C2.id }), StoreConflict, 'apiKey');
      await rejectsWith(s.createCompanyApiKey({ ...k1, apiKey: 'ck_DDDDDDDDDDDDDDDD', companyId: 9999 }), StoreReferenceMissing, 'companyId');
      assert.deepEqual(await s.revokeCompanyApiKey(k1.apiKey, iso(5)), { ...k1, revokedAt: iso(5) });
      assert.deepEqual(await s.revokeCompanyApiKey(k1.apiKey, iso(9)), { ...k1, revokedAt: iso(5) }, 'the first revocation time is kept');
      assert.equal(await s.revokeCompanyApiKey('ck_EEEEEEEEEEEEEEEE', iso(5)), undefined);
      assert.deepEqual(await s.listCompanyApiKeys(t.C1.id), [{ ...k2, createdAt: iso(1) }, { ...k1, revokedAt: iso(5) }], 'a revoked key stays listed');
      assert.deepEqual(await s.getCompanyApiKey(k3.apiKey), k3, 'another company\'s key untouched');
    }));

    test('digital receipts: register handles bound once, archived receipts found by (register, th)', withStore(async (s) => {
      const rn = 'ATU12345678$GRABEN-1_1';
      const other = 'ATU12345678$GRABEN-1_2';
      assert.equal(await s.registerOfHandle('ABCDEFGHIJKLMNOP'), undefined);
      assert.equal(await s.putRegisterHandle({ handle: 'ABCDEFGHIJKLMNOP', registerNumber: rn, createdAt: iso(1) }), rn);
      assert.equal(await s.putRegisterHandle({ handle: 'ABCDEFGHIJKLMNOP', registerNumber: rn, createdAt: iso(2) }), rn, 'the same binding again');
      assert.equal(await s.putRegisterHandle({ handle: 'ABCDEFGHIJKLMNOP', registerNumber: other, createdAt: iso(3) }), rn, 'a bound handle keeps its register');
      assert.equal(await s.putRegisterHandle({ handle: 'QRSTUVWXYZ234567', registerNumber: rn, createdAt: iso(4) }), rn, 'a register may have several handles');
      assert.equal(await s.registerOfHandle('ABCDEFGHIJKLMNOP'), rn);
      assert.equal(await s.registerOfHandle('QRSTUVWXYZ234567'), rn);
      assert.equal(await s.registerOfHandle('abcdefghijklmnop'), undefined, 'handles are case-sensitive');
      const rec = (registerNumber: string, sq: number, th?: string, sig?: string) =>
        ({ registerNumber, sq, data: `{"SQ":"${sq}"}`, hash: String(sq).padStart(64, '0'), d: null, ...(th !== undefined ? { th } : {}), ...(sig !== undefined ? { sig } : {}) });
      await s.archiveRecords([rec(rn, 1), rec(rn, 2, 'AAAAA', 'c2lnMg=='), rec(rn, 3, 'BBBBB'), rec(rn, 4, 'AAAAA', 'c2lnNA=='), rec(other, 1, 'AAAAA')]);
      assert.deepEqual(await s.archivedRecordsByTh(rn, 'AAAAA'), [rec(rn, 2, 'AAAAA', 'c2lnMg=='), rec(rn, 4, 'AAAAA', 'c2lnNA==')], 'both receipts sharing a th, in SQ order');
      assert.deepEqual(await s.archivedRecordsByTh(rn, 'BBBBB'), [rec(rn, 3, 'BBBBB')]);
      assert.deepEqual(await s.archivedRecordsByTh(rn, 'bbbbb'), [], 'transaction handles are case-sensitive');
      assert.deepEqual(await s.archivedRecordsByTh(rn, 'CCCCC'), []);
      assert.deepEqual(await s.archivedRecordsByTh(other, 'AAAAA'), [rec(other, 1, 'AAAAA')]);
      assert.deepEqual(await s.archivedRecords(rn, 1, 2), [rec(rn, 1), rec(rn, 2, 'AAAAA', 'c2lnMg==')], 'th and sig also come with the SQ range');
      const cfg = (sq: number, name: string) => ({ registerNumber: rn, sq, data: `{"_":"Cfg","SQ":"${sq}","Cfg":{"Cmp":{"Nam":"${name}"}}}`, hash: String(sq).padStart(64, '0'), d: null });
      await s.archiveRecords([cfg(5, 'First'), rec(rn, 6, 'DDDDD'), cfg(7, 'Second'), rec(rn, 8, 'EEEEE'), rec(other, 9, 'EEEEE')]);
      assert.equal(await s.archivedCfgBefore(rn, 5), undefined, 'none before the first Cfg');
      assert.deepEqual(await s.archivedCfgBefore(rn, 6), cfg(5, 'First'));
      assert.deepEqual(await s.archivedCfgBefore(rn, 7), cfg(5, 'First'), 'before, not at');
      assert.deepEqual(await s.archivedCfgBefore(rn, 8), cfg(7, 'Second'));
      assert.deepEqual(await s.archivedCfgBefore(rn, 1_000_000), cfg(7, 'Second'));
      assert.equal(await s.archivedCfgBefore(other, 1_000_000), undefined, 'only of the register asked for');
    }));
  });
}
