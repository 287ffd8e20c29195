/**
 * The portal's organizations, companies, locations, contacts and notifications over real HTTP: every
 * operation's success, each bound of the spec refused in the envelope with the field named,
 * tax ids by country, test organizations, badges, and the envelope on every answer.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STORE_NAME, type TestPortal, company, location, org, startTestPortal } from './portal-helpers.js';
import type { HttpAnswer } from './helpers.js';

const ENVELOPE_KEYS = ['success', 'errorCode', 'errorMessage', 'errorMessageTranslated', 'validationErrors'];

function assertOk(r: HttpAnswer): void {
  assert.equal(r.status, 200, r.text);
  for (const k of ENVELOPE_KEYS) assert.ok(k in r.json, `${k} in ${r.text}`);
  assert.equal(r.json.success, true);
  assert.equal(r.json.errorCode, null);
  assert.deepEqual(r.json.validationErrors, {});
}

/** A 400 naming exactly these fields. */
function assertInvalid(r: HttpAnswer, ...fields: string[]): void {
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.success, false);
  assert.equal(r.json.errorCode, 'VALIDATION_FAILED');
  assert.ok(r.json.errorMessage);
  assert.deepEqual(Object.keys(r.json.validationErrors).sort(), [...fields].sort(), r.text);
  for (const f of fields) assert.ok(r.json.validationErrors[f].length > 0);
}

describe(`portal entities (${STORE_NAME})`, () => {
  let p: TestPortal;
  let orgId: number;
  let companyId: number;
  before(async () => {
    p = await startTestPortal();
  });
  after(() => p.stop());

  test('an organization is created, read, updated in full', async () => {
    const c = await p.call('POST', '/api/v1/organizations', org(p.rootId, { city: 'Wien', countryCode: 'AT', invoiceEmailAddress: 'billing@example.at', userComment: 'main' }));
    assertOk(c);
    const o = c.json.organization;
    orgId = o.id;
    assert.ok(o.id >= 2);
    assert.equal(o.parentEntityId, p.rootId);
    assert.equal(o.name, 'Retail Group');
    assert.equal(o.state, 'Productive');
    assert.match(o.badge, /^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/);
    const g = await p.call('GET', `/api/v1/organizations/${orgId}`);
    assertOk(g);
    assert.deepEqual(g.json.organization, o);
    const u = await p.call('PUT', `/api/v1/organizations/${orgId}`, { name: 'Retail Group AG', city: 'Graz', countryProperties: { dE_WIdNr: 'DE123456789-00001' } });
    assertOk(u);
    assert.equal(u.json.organization.name, 'Retail Group AG');
    assert.equal(u.json.organization.city, 'Graz');
    // full update: what was not sent is cleared; the badge and the parent stay
    assert.equal(u.json.organization.userComment, null);
    assert.equal(u.json.organization.invoiceEmailAddress, null);
    assert.equal(u.json.organization.badge, o.badge);
    assert.deepEqual(u.json.organization.countryProperties, { dE_WIdNr: 'DE123456789-00001' });
    assert.equal((await p.call('GET', `/api/v1/organizations/${orgId}`)).json.organization.name, 'Retail Group AG');
  });

  test('organization bounds: ids >= 2, name 2-1000, lengths, e-mail, ISO country, state', async () => {
    assertInvalid(await p.call('POST', '/api/v1/organizations', { name: 'x' }), 'parentEntityId', 'name');
    assertInvalid(await p.call('POST', '/api/v1/organizations', org(1)), 'parentEntityId');
    assertInvalid(await p.call('POST', '/api/v1/organizations', org(p.rootId, { name: 'a'.repeat(1001) })), 'name');
    assertInvalid(
      await p.call('POST', '/api/v1/organizations', org(p.rootId, { address: 'a'.repeat(1001), city: 'c'.repeat(1001), zip: 'z'.repeat(51), countryCode: 'AUT', invoiceEmailAddress: 'not-an-address', userComment: 'u'.repeat(2001) })),
      'address', 'city', 'zip', 'countryCode', 'invoiceEmailAddress', 'userComment',
    );
    assertInvalid(await p.call('POST', '/api/v1/organizations', org(p.rootId, { invoiceEmailAddress: `${'a'.repeat(96)}@x.at` })), 'invoiceEmailAddress');
    assertInvalid(await p.call('POST', '/api/v1/organizations', org(p.rootId, { countryCode: 'XX' })), 'countryCode');
    assertInvalid(await p.call('POST', '/api/v1/organizations', org(p.rootId, { state: 'Deactivated' })), 'state');
    assertInvalid(await p.call('POST', '/api/v1/organizations', org(p.rootId, { parentEntityId: 'abc' })), 'parentEntityId');
    // the largest values allowed pass
    assertOk(await p.call('POST', '/api/v1/organizations', org(p.rootId, { name: 'n'.repeat(1000), address: 'a'.repeat(1000), zip: 'z'.repeat(50), userComment: 'u'.repeat(2000), invoiceEmailAddress: `${'a'.repeat(95)}@x.at` })));
    // the path id
    assertInvalid(await p.call('GET', '/api/v1/organizations/1'), 'organizationId');
    assertInvalid(await p.call('GET', '/api/v1/organizations/abc'), 'organizationId');
    const missing = await p.call('GET', '/api/v1/organizations/999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.errorCode, 'NOT_FOUND');
    // a parent that is no organization, one that does not exist
    assertInvalid(await p.call('POST', '/api/v1/organizations', org(999999)), 'parentEntityId');
    // the body is no JSON, or none
    assertInvalid(await p.call('POST', '/api/v1/organizations', '{"name":', undefined, { 'content-type': 'application/json' }), 'body');
    assertInvalid(await p.call('POST', '/api/v1/organizations', undefined), 'body');
    // entities are not moved
    assertInvalid(await p.call('PUT', `/api/v1/organizations/${orgId}`, { name: 'Moved', parentEntityId: orgId + 1000 }), 'parentEntityId');
  });

  test('messages are translated with Accept-Language', async () => {
    const r = await p.call('POST', '/api/v1/organizations', org(p.rootId, { name: 'x' }), undefined, { 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' });
    assertInvalid(r, 'name');
    assert.match(r.json.errorMessage, /not valid/);
    assert.match(r.json.errorMessageTranslated, /ungültig/);
    assert.match(r.json.validationErrors.name[0], /mindestens 2 Zeichen/);
  });

  test('a company is created with its tax id checked by country, read, updated', async () => {
    const c = await p.call('POST', '/api/v1/companies', company(orgId, { countryProperties: { dE_WIdNr: 'DE999999999-00001' }, userComment: 'flagship' }));
    assertOk(c);
    companyId = c.json.company.id;
    assert.equal(c.json.company.taxId, 'ATU13585627');
    assert.equal(c.json.company.ignoreTaxId, false);
    assert.match(c.json.company.badge, /^\w{4}-\w{4}-\w{4}$/);
    assert.deepEqual(c.json.companyCountryProperties, { dE_WIdNr: 'DE999999999-00001' });
    const g = await p.call('GET', `/api/v1/companies/${companyId}`);
    assertOk(g);
    assert.deepEqual(g.json.company, c.json.company);
    assert.deepEqual(g.json.companyCountryProperties, { dE_WIdNr: 'DE999999999-00001' });
    // German numbers: the check digit
    assertOk(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'DE136695976', countryCode: 'DE', city: 'Berlin', zip: '10115' })));
    assertOk(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: '136695976', countryCode: 'DE', city: 'Berlin', zip: '10115' })));
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'DE136695977', countryCode: 'DE' })), 'taxId');
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'ATU13585628' })), 'taxId');
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'ATU1358562' })), 'taxId');
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'DE136695976' })), 'taxId');
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'NL12345678B01', countryCode: 'NL' })), 'taxId');
    assertOk(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'NL123456789B01', countryCode: 'NL' })));
    // outside the EU only the length counts; ignoreTaxId skips the check but keeps the value
    assertOk(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'CHE-123', countryCode: 'CH' })));
    const ignored = await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'ATU00000000X', ignoreTaxId: true }));
    assertOk(ignored);
    assert.equal(ignored.json.company.taxId, 'ATU00000000X');
    assert.equal(ignored.json.company.ignoreTaxId, true);
    // bounds
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'ABC' })), 'taxId');
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { taxId: 'A'.repeat(41), ignoreTaxId: true })), 'taxId');
    assertInvalid(await p.call('POST', '/api/v1/companies', { parentEntityId: orgId, name: 'Bare' }), 'taxId', 'address', 'city', 'zip', 'countryCode');
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { countryCode: 'at' })), 'countryCode');
    assertInvalid(await p.call('POST', '/api/v1/companies', company(orgId, { zip: 'z'.repeat(51) })), 'zip');
    // a company's parent is an organization
    assertInvalid(await p.call('POST', '/api/v1/companies', company(companyId)), 'parentEntityId');

    // full update; the tax id cannot be changed unless the company ignores tax id validation
    const u = await p.call('PUT', `/api/v1/companies/${companyId}`, { ...company(orgId, { name: 'Café Central KG', taxId: undefined }), countryProperties: { dE_WIdNr: 'DE1' } });
    assertOk(u);
    assert.equal(u.json.company.name, 'Café Central KG');
    assert.equal(u.json.company.taxId, 'ATU13585627');
    assert.equal(u.json.company.userComment, null);
    assert.deepEqual(u.json.companyCountryProperties, { dE_WIdNr: 'DE1' });
    assertInvalid(await p.call('PUT', `/api/v1/companies/${companyId}`, company(orgId, { taxId: 'ATU10223006' })), 'taxId');
    assertInvalid(await p.call('PUT', `/api/v1/companies/${companyId}`, { name: 'Café' }), 'address', 'city', 'zip', 'countryCode');
    const changed = await p.call('PUT', `/api/v1/companies/${ignored.json.company.id}`, company(orgId, { taxId: 'anything-goes' }));
    assertOk(changed);
    assert.equal(changed.json.company.taxId, 'anything-goes');
  });

  test('a location is created, read, updated; its identification is checked and unique in the company', async () => {
    const c = await p.call('POST', '/api/v1/locations', location(companyId, { locationIdentification: 'Shop-1+<A>#.,=' }));
    assertOk(c);
    const loc = c.json.location;
    assert.equal(loc.locationIdentification, 'Shop-1+<A>#.,=');
    assert.equal(loc.parentEntityId, companyId);
    assert.equal('badge' in loc, false);
    assertOk(await p.call('GET', `/api/v1/locations/${loc.id}`));
    const dup = await p.call('POST', '/api/v1/locations', location(companyId, { locationIdentification: 'Shop-1+<A>#.,=', name: 'Other' }));
    assert.equal(dup.status, 409, dup.text);
    assert.equal(dup.json.errorCode, 'CONFLICT');
    assert.ok(dup.json.validationErrors.locationIdentification);
    // unique regardless of case (the TL of transactions is matched case-insensitively)
    const upper = await p.call('POST', '/api/v1/locations', location(companyId, { locationIdentification: 'SHOP-1+<a>#.,=', name: 'Other' }));
    assert.equal(upper.status, 409, upper.text);
    assertInvalid(await p.call('POST', '/api/v1/locations', location(companyId, { locationIdentification: 'Shop 1' })), 'locationIdentification');
    assertInvalid(await p.call('POST', '/api/v1/locations', location(companyId, { locationIdentification: 'Shop_1' })), 'locationIdentification');
    assertInvalid(await p.call('POST', '/api/v1/locations', location(companyId, { locationIdentification: '' })), 'locationIdentification');
    assertInvalid(await p.call('POST', '/api/v1/locations', location(companyId, { locationIdentification: 'L'.repeat(1001) })), 'locationIdentification');
    assertOk(await p.call('POST', '/api/v1/locations', location(companyId, { locationIdentification: 'L'.repeat(1000) })));
    assertInvalid(await p.call('POST', '/api/v1/locations', { parentEntityId: companyId, name: 'Bare' }), 'address', 'city', 'zip', 'countryCode', 'locationIdentification');
    // a location's parent is a company
    assertInvalid(await p.call('POST', '/api/v1/locations', location(orgId, { locationIdentification: 'X1' })), 'parentEntityId');
    // the same identification in another company is fine
    const other = await p.call('POST', '/api/v1/companies', company(orgId, { name: 'Other company' }));
    assertOk(await p.call('POST', '/api/v1/locations', location(other.json.company.id, { locationIdentification: 'Shop-1+<A>#.,=' })));

    const u = await p.call('PUT', `/api/v1/locations/${loc.id}`, location(companyId, { name: 'Shop Kohlmarkt', locationIdentification: 'Shop-2' }));
    assertOk(u);
    assert.equal(u.json.location.name, 'Shop Kohlmarkt');
    assert.equal(u.json.location.locationIdentification, 'Shop-2');
    // update: parentEntityId is required and cannot change; the identification stays unique
    assertInvalid(await p.call('PUT', `/api/v1/locations/${loc.id}`, { ...location(companyId), parentEntityId: undefined }), 'parentEntityId');
    assertInvalid(await p.call('PUT', `/api/v1/locations/${loc.id}`, location(other.json.company.id)), 'parentEntityId');
    await p.call('POST', '/api/v1/locations', location(companyId, { locationIdentification: 'Shop-3' }));
    const clash = await p.call('PUT', `/api/v1/locations/${loc.id}`, location(companyId, { locationIdentification: 'Shop-3' }));
    assert.equal(clash.status, 409, clash.text);
    assert.equal((await p.call('PUT', `/api/v1/locations/${loc.id}`, location(companyId, { locationIdentification: 'shop-3' }))).status, 409);
    // its own identification in another case is no clash
    assertOk(await p.call('PUT', `/api/v1/locations/${loc.id}`, location(companyId, { name: 'Shop Kohlmarkt', locationIdentification: 'SHOP-2' })));
    assert.equal((await p.call('GET', `/api/v1/locations/${loc.id}`)).json.location.locationIdentification, 'SHOP-2');
    // a location id is not a company id
    assert.equal((await p.call('GET', `/api/v1/companies/${loc.id}`)).status, 404);
  });

  test('states: Test cannot be undone; a test organization\'s new company gets two test locations', async () => {
    const t = await p.call('POST', '/api/v1/organizations', org(p.rootId, { name: 'Sandbox', state: 'Test' }));
    assertOk(t);
    assert.equal(t.json.organization.state, 'Test');
    assert.equal(t.json.organization.isTest, true);
    const undo = await p.call('PUT', `/api/v1/organizations/${t.json.organization.id}`, { name: 'Sandbox', state: 'Productive' });
    assertInvalid(undo, 'state');
    const c = await p.call('POST', '/api/v1/companies', company(t.json.organization.id, { name: 'Sandbox Co' }));
    assertOk(c);
    assert.equal(c.json.company.state, 'Test');
    const locs = await p.call('POST', '/api/v1/locations/search', { parentEntityId: c.json.company.id });
    assertOk(locs);
    assert.equal(locs.json.totalCount, 2);
    assert.deepEqual(locs.json.foundItems.map((l: { locationIdentification: string }) => l.locationIdentification).sort(), ['TEST-1', 'TEST-2']);
    for (const l of locs.json.foundItems) {
      assert.equal(l.state, 'Test');
      assert.equal(l.countryCode, 'AT');
    }
    // a company in a productive organization gets none
    const plain = await p.call('POST', '/api/v1/companies', company(orgId, { name: 'No test' }));
    assert.equal((await p.call('POST', '/api/v1/locations/search', { parentEntityId: plain.json.company.id })).json.totalCount, 0);
    // Productive -> Test by update, then no way back
    const o = await p.call('POST', '/api/v1/organizations', org(p.rootId, { name: 'Goes test' }));
    const toTest = await p.call('PUT', `/api/v1/organizations/${o.json.organization.id}`, { name: 'Goes test', state: 'Test' });
    assertOk(toTest);
    assert.equal(toTest.json.organization.state, 'Test');
    assertInvalid(await p.call('PUT', `/api/v1/organizations/${o.json.organization.id}`, { name: 'Goes test', state: 'Productive' }), 'state');
    // badges are unique
    const badges = new Set<string>();
    for (let i = 0; i < 20; i++) badges.add((await p.call('POST', '/api/v1/organizations', org(p.rootId, { name: `Badge ${i}` }))).json.organization.badge);
    assert.equal(badges.size, 20);
  });

  test('contacts are created and listed', async () => {
    const c = await p.call('POST', '/api/v1/contacts', { companyId, contactName: 'Anna Huber', emailAddress: 'anna@example.at', contactType: 'ElsterContact', languageCode: 'de' });
    assertOk(c);
    assert.equal(c.json.companyContact.contactName, 'Anna Huber');
    assert.equal(c.json.companyContact.emailAddressVerification, 'Created');
    assert.equal(c.json.companyContact.contactType, 'ElsterContact');
    assertOk(await p.call('POST', '/api/v1/contacts', { companyId, contactName: 'IT', emailAddress: 'it@example.at', contactType: 'TechnicalContact' }));
    const list = await p.call('GET', `/api/v1/companies/${companyId}/contacts`);
    assertOk(list);
    assert.deepEqual(list.json.contacts.map((x: { contactName: string }) => x.contactName).sort(), ['Anna Huber', 'IT']);
    assertInvalid(await p.call('POST', '/api/v1/contacts', { companyId: 1, contactName: 'A', emailAddress: 'nope', contactType: 'Boss' }), 'companyId', 'contactName', 'emailAddress', 'contactType');
    assertInvalid(await p.call('POST', '/api/v1/contacts', { companyId, contactName: 'n'.repeat(501), emailAddress: `${'a'.repeat(496)}@x.at`, contactType: 'InvoiceContact' }), 'contactName', 'emailAddress');
    assertInvalid(await p.call('POST', '/api/v1/contacts', {}), 'companyId', 'contactName', 'emailAddress', 'contactType');
    assertInvalid(await p.call('POST', '/api/v1/contacts', { companyId, contactName: 'Lang', emailAddress: 'l@x.at', contactType: 'InvoiceContact', languageCode: 'german!' }), 'languageCode');
    assert.equal((await p.call('POST', '/api/v1/contacts', { companyId: orgId, contactName: 'Org', emailAddress: 'o@x.at', contactType: 'InvoiceContact' })).status, 404);
    assert.equal((await p.call('GET', `/api/v1/companies/999999/contacts`)).status, 404);
  });

  test('notifications of a company in the language asked', async () => {
    await p.store.putRegister({ registerNumber: 'AT-0001', companyId, countryCode: 'AT', lastTL: 'Shop-2', lastTT: '1', userComment: null, firstTransaction: null, lastTransaction: null, versionNumber: '1.0', state: 'Productive', isCloudEFR: false, dischargeAfter: null }, new Date());
    await p.store.addNotification({ registerNumber: 'AT-0001', companyId, eventCode: 'TSE_ACTIVATED', level: 1, texts: { en: { short: 'TSE activated', long: 'The TSE was activated. CurrentLevel 1, CompanyType AT' }, de: { short: 'TSE aktiviert', long: 'Die TSE wurde aktiviert.' } }, initialTimestamp: '2026-11-20T10:00:00.000Z' });
    await p.store.addNotification({ registerNumber: 'AT-0001', companyId, eventCode: 'OFFLINE', level: 2, texts: { en: { short: 'Offline', long: 'The register has been offline for 48 hours.' } }, initialTimestamp: '2026-11-21T10:00:00.000Z' });
    const en = await p.call('GET', `/api/v1/companies/${companyId}/notifications`);
    assertOk(en);
    assert.deepEqual(en.json.notifications.map((n: { eventCode: string }) => n.eventCode), ['OFFLINE', 'TSE_ACTIVATED']);
    const tse = en.json.notifications[1];
    assert.equal(tse.descriptionShort, 'TSE activated');
    assert.equal(tse.companyName, 'Café Central KG');
    assert.equal(tse.registerNumber, 'AT-0001');
    assert.equal(tse.initialTimestamp, '2026-11-20T10:00:00.000Z');
    const de = await p.call('GET', `/api/v1/companies/${companyId}/notifications?languageCode=de-DE`);
    assert.equal(de.json.notifications[1].descriptionShort, 'TSE aktiviert');
    // no German text: English
    assert.equal(de.json.notifications[0].descriptionShort, 'Offline');
    assertInvalid(await p.call('GET', `/api/v1/companies/${companyId}/notifications?languageCode=xx-yyy-z`), 'languageCode');
    assertInvalid(await p.call('GET', '/api/v1/companies/0/notifications'), 'companyId');
  });

  test('hostile input gets a 4xx in the envelope, never a 5xx', async () => {
    const big = '9007199254740993';
    const cases: Array<['GET' | 'POST' | 'PUT', string, unknown]> = [
      ['GET', `/api/v1/organizations/${big}`, undefined],
      ['GET', '/api/v1/companies/9007199254740991', undefined],
      ['GET', '/api/v1/locations/1e400', undefined],
      ['GET', '/api/v1/registers/%00%ff', undefined],
      ['POST', '/api/v1/organizations', [1, 2, 3]],
      ['POST', '/api/v1/organizations', 'null'],
      ['POST', '/api/v1/organizations', { parentEntityId: 9007199254740991, name: 'Far away' }],
      ['POST', '/api/v1/companies', { ...company(orgId), countryProperties: { dE_WIdNr: { nested: true } } }],
      ['POST', '/api/v1/companies/search', { offset: 9007199254740991, limit: 250 }],
      ['POST', '/api/v1/companies/search', { offset: 1e300 }],
      ['POST', '/api/v1/locations/search', { searchText: "%_\\'\"; --", createdAfter: '9999-12-31T23:59:59Z' }],
      ['POST', '/api/v1/registers/search', { firstTransactionAfter: '0001-01-01T00:00:00Z', tl: '\u0000' }],
      ['PUT', `/api/v1/organizations/${orgId}`, { name: '\u0000\ud800 broken surrogate' }],
      ['POST', `/api/v1/companies/${companyId}/deactivate?deactivateAfterYear=99999`, undefined],
    ];
    for (const [method, path, body] of cases) {
      const r = await p.call(method, path, typeof body === 'string' ? body : (body as object | undefined), undefined, typeof body === 'string' ? { 'content-type': 'application/json' } : {});
      assert.ok(r.status < 500, `${method} ${path}: ${r.status} ${r.text}`);
      assert.equal(typeof r.json?.success, 'boolean', r.text);
    }
  });

  test('unknown routes and missing tokens answer in the envelope', async () => {
    const r = await p.call('GET', '/api/v1/nothing');
    assert.equal(r.status, 404);
    assert.equal(r.json.success, false);
    assert.equal(r.json.errorCode, 'NOT_FOUND');
    const u = await p.call('GET', `/api/v1/organizations/${orgId}`, undefined, null);
    assert.equal(u.status, 401);
    assert.equal(u.json.errorCode, 'UNAUTHORIZED');
    const bad = await p.call('GET', `/api/v1/organizations/${orgId}`, undefined, 'abc.def.ghi');
    assert.equal(bad.status, 401);
    assert.equal(bad.json.success, false);
  });
});
