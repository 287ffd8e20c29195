/**
 * Permissions of the portal over real HTTP: API clients with grants on one entity can act on it
 * and below, nowhere else; what no grant covers is answered 404 like an unknown id, 403 is for what the caller
 * sees but may not do; searches return only what the caller may read; bearer tokens are required everywhere.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { http } from './helpers.js';
import { STORE_NAME, type TestPortal, company, location, org, startTestPortal } from './portal-helpers.js';

describe(`portal permissions (${STORE_NAME})`, () => {
  let p: TestPortal;
  let orgA: number;
  let orgB: number;
  let compA1: number;
  let compA2: number;
  let compB1: number;
  let locA1: number;
  let locA2: number;
  /** ManageCompany and ManageRegister on company A1 */
  let manager: { clientId: string; token: string };
  /** ReadCompany on organization A */
  let reader: { clientId: string; token: string };
  /** ReadRegister on company A1 */
  let registerReader: { clientId: string; token: string };

  const id = async (path: string, body: Record<string, unknown>, key: string): Promise<number> => {
    const r = await p.call('POST', path, body);
    assert.equal(r.status, 200, r.text);
    return r.json[key].id as number;
  };
  const status = async (method: 'GET' | 'POST' | 'PUT', path: string, token: string, body?: object): Promise<number> => (await p.call(method, path, body, token)).status;

  before(async () => {
    p = await startTestPortal();
    orgA = await id('/api/v1/organizations', org(p.rootId, { name: 'Org A' }), 'organization');
    orgB = await id('/api/v1/organizations', org(p.rootId, { name: 'Org B' }), 'organization');
    compA1 = await id('/api/v1/companies', company(orgA, { name: 'Company A1' }), 'company');
    compA2 = await id('/api/v1/companies', company(orgA, { name: 'Company A2' }), 'company');
    compB1 = await id('/api/v1/companies', company(orgB, { name: 'Company B1' }), 'company');
    locA1 = await id('/api/v1/locations', location(compA1, { name: 'Loc A1', locationIdentification: 'A1' }), 'location');
    locA2 = await id('/api/v1/locations', location(compA2, { name: 'Loc A2', locationIdentification: 'A2' }), 'location');
    const now = new Date();
    for (const [rn, c] of [['RN-A1', compA1], ['RN-A2', compA2], ['RN-B1', compB1]] as const) {
      await p.store.putRegister({ registerNumber: rn, companyId: c, countryCode: 'AT', lastTL: null, lastTT: null, userComment: null, firstTransaction: null, lastTransaction: null, versionNumber: null, state: 'Productive', isCloudEFR: true, dischargeAfter: null }, now);
    }
    manager = await p.client([{ entityId: compA1, permission: 'ManageCompany' }, { entityId: compA1, permission: 'ManageRegister' }]);
    reader = await p.client([{ entityId: orgA, permission: 'ReadCompany' }]);
    registerReader = await p.client([{ entityId: compA1, permission: 'ReadRegister' }]);
  });
  after(() => p.stop());

  test('a client with rights on one company reads and changes it and what is under it', async () => {
    const t = manager.token;
    assert.equal(await status('GET', `/api/v1/companies/${compA1}`, t), 200);
    assert.equal(await status('GET', `/api/v1/locations/${locA1}`, t), 200);
    assert.equal(await status('PUT', `/api/v1/companies/${compA1}`, t, company(orgA, { name: 'Company A1 renamed', taxId: undefined })), 200);
    assert.equal(await status('POST', '/api/v1/locations', t, location(compA1, { locationIdentification: 'A1-2' })), 200);
    assert.equal(await status('PUT', `/api/v1/locations/${locA1}`, t, location(compA1, { name: 'Loc A1 renamed', locationIdentification: 'A1' })), 200);
    assert.equal(await status('POST', '/api/v1/contacts', t, { companyId: compA1, contactName: 'Eva', emailAddress: 'eva@a1.at', contactType: 'InvoiceContact' }), 200);
    assert.equal(await status('GET', `/api/v1/companies/${compA1}/contacts`, t), 200);
    assert.equal(await status('GET', `/api/v1/companies/${compA1}/notifications`, t), 200);
    assert.equal(await status('GET', '/api/v1/registers/RN-A1', t), 200);
  });

  test('... but cannot read or change another company, nor its parent organization: they are not found for it', async () => {
    const t = manager.token;
    const hidden = async (method: 'GET' | 'POST' | 'PUT', path: string, body?: object): Promise<void> => {
      const r = await p.call(method, path, body, t);
      assert.equal(r.status, 404, `${method} ${path}: ${r.text}`);
      assert.equal(r.json.success, false);
      assert.equal(r.json.errorCode, 'NOT_FOUND');
      assert.match(r.json.errorMessage, /not found/);
    };
    const denied = async (method: 'POST', path: string, body?: object): Promise<void> => {
      const r = await p.call(method, path, body, t);
      assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
      assert.equal(r.json.errorCode, 'FORBIDDEN');
      assert.match(r.json.errorMessage, /permission ManageCompany on entity \d+/);
    };
    // sibling company and its location
    await hidden('GET', `/api/v1/companies/${compA2}`);
    await hidden('PUT', `/api/v1/companies/${compA2}`, company(orgA, { name: 'Taken over', taxId: undefined }));
    await hidden('GET', `/api/v1/locations/${locA2}`);
    await hidden('PUT', `/api/v1/locations/${locA2}`, location(compA2, { locationIdentification: 'A2' }));
    await hidden('POST', `/api/v1/companies/${compA2}/deactivate`);
    await hidden('POST', `/api/v1/locations/${locA2}/deactivate`);
    await hidden('POST', '/api/v1/contacts', { companyId: compA2, contactName: 'Eve', emailAddress: 'eve@a2.at', contactType: 'InvoiceContact' });
    await hidden('GET', `/api/v1/companies/${compA2}/contacts`);
    await hidden('GET', `/api/v1/companies/${compA2}/notifications`);
    // the parent organization, the root, another organization's company
    await hidden('GET', `/api/v1/organizations/${orgA}`);
    await hidden('PUT', `/api/v1/organizations/${orgA}`, { name: 'Org A' });
    await hidden('GET', `/api/v1/organizations/${p.rootId}`);
    await hidden('GET', `/api/v1/companies/${compB1}`);
    // registers of other companies
    await hidden('GET', '/api/v1/registers/RN-A2');
    await hidden('POST', '/api/v1/registers/RN-A2/deactivate');
    // a parent in the body: refused as an unknown parent is (403 naming the entity), not as the organization it is
    await denied('POST', '/api/v1/locations', location(compA2, { locationIdentification: 'X' }));
    await denied('POST', '/api/v1/companies', company(orgA, { name: 'New under A' }));
    await denied('POST', '/api/v1/organizations', org(orgA));
    // nothing changed
    assert.equal((await p.call('GET', `/api/v1/companies/${compA2}`)).json.company.name, 'Company A2');
    assert.equal((await p.call('GET', `/api/v1/companies/${compA2}`)).json.company.state, 'Productive');
  });

  test('read permissions do not allow changes; company rights are not register rights and the other way round', async () => {
    assert.equal(await status('GET', `/api/v1/organizations/${orgA}`, reader.token), 200);
    assert.equal(await status('GET', `/api/v1/companies/${compA2}`, reader.token), 200);
    assert.equal(await status('GET', `/api/v1/locations/${locA2}`, reader.token), 200);
    assert.equal(await status('GET', `/api/v1/companies/${compA2}/contacts`, reader.token), 200);
    assert.equal(await status('PUT', `/api/v1/companies/${compA2}`, reader.token, company(orgA, { name: 'XY', taxId: undefined })), 403);
    assert.equal(await status('POST', `/api/v1/companies/${compA2}/deactivate`, reader.token), 403);
    assert.equal(await status('POST', '/api/v1/contacts', reader.token, { companyId: compA2, contactName: 'Eve', emailAddress: 'eve@a2.at', contactType: 'InvoiceContact' }), 403);
    // outside the grant: not found
    assert.equal(await status('GET', `/api/v1/organizations/${orgB}`, reader.token), 404);
    assert.equal(await status('GET', `/api/v1/organizations/${p.rootId}`, reader.token), 404);
    // ReadCompany is no ReadRegister: the register of a company it reads is seen (its notifications name it), but not readable
    assert.equal(await status('GET', '/api/v1/registers/RN-A1', reader.token), 403);
    assert.equal(await status('GET', '/api/v1/registers/RN-B1', reader.token), 404);
    // ReadRegister reads the register, but not the company, and cannot discharge
    assert.equal(await status('GET', '/api/v1/registers/RN-A1', registerReader.token), 200);
    assert.equal(await status('GET', '/api/v1/registers/RN-A2', registerReader.token), 404);
    assert.equal(await status('POST', '/api/v1/registers/RN-A1/deactivate', registerReader.token), 403);
    assert.equal(await status('GET', `/api/v1/companies/${compA1}`, registerReader.token), 403);
    assert.equal(await status('GET', `/api/v1/companies/${compA2}`, registerReader.token), 404);
  });

  test('searches return only readable entities', async () => {
    const names = async (kind: string, token: string, body: object = {}): Promise<string[]> => {
      const r = await p.call('POST', `/api/v1/${kind}/search`, body, token);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.currentCount, r.json.foundItems.length);
      return r.json.foundItems.map((x: { name?: string; registerNumber?: string }) => x.name ?? x.registerNumber).sort();
    };
    assert.deepEqual(await names('companies', manager.token), ['Company A1 renamed']);
    assert.deepEqual(await names('organizations', manager.token), []);
    assert.deepEqual((await names('locations', manager.token)).length, 2);
    assert.deepEqual(await names('companies', reader.token), ['Company A1 renamed', 'Company A2']);
    assert.deepEqual(await names('organizations', reader.token), ['Org A']);
    assert.deepEqual(await names('companies', registerReader.token), []);
    assert.deepEqual(await names('registers', manager.token), ['RN-A1']);
    assert.deepEqual(await names('registers', registerReader.token), ['RN-A1']);
    assert.deepEqual(await names('registers', reader.token), []);
    assert.deepEqual(await names('registers', p.admin.token), ['RN-A1', 'RN-A2', 'RN-B1']);
    // a filter on a parent the caller cannot read finds nothing
    assert.deepEqual(await names('companies', manager.token, { parentEntityId: orgB }), []);
    const total = await p.call('POST', '/api/v1/companies/search', { parentEntityId: orgA }, manager.token);
    assert.equal(total.json.totalCount, 1);
  });

  test('clients grant only what they hold with ManageCompany', async () => {
    const ok = await p.call('POST', '/api/v1/clients', { name: 'till', grants: [{ entityId: locA1, permission: 'ReadCompany' }, { entityId: compA1, permission: 'ReadRegister' }] }, manager.token);
    assert.equal(ok.status, 200, ok.text);
    assert.match(ok.json.clientId, /^pc_[0-9a-f]{16}$/);
    const t = await p.tokenOf(ok.json.clientId, ok.json.clientSecret);
    assert.equal(await status('GET', `/api/v1/locations/${locA1}`, t), 200);
    assert.equal(await status('GET', `/api/v1/companies/${compA1}`, t), 403);
    const foreign = await p.call('POST', '/api/v1/clients', { name: 'thief', grants: [{ entityId: compA2, permission: 'ReadCompany' }] }, manager.token);
    assert.equal(foreign.status, 403, foreign.text);
    assert.ok(foreign.json.validationErrors['grants.0.permission']);
    const byReader = await p.call('POST', '/api/v1/clients', { name: 'copy', grants: [{ entityId: orgA, permission: 'ReadCompany' }] }, reader.token);
    assert.equal(byReader.status, 403);
    const bad = await p.call('POST', '/api/v1/clients', { name: 'x', grants: [] }, manager.token);
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.json.validationErrors).sort(), ['grants', 'name']);
  });

  test('tokens: credentials are checked, every API route needs a valid token', async () => {
    const wrong = await http('POST', `${p.url}/api/v1/auth/token`, { clientId: p.admin.clientId, clientSecret: `${p.admin.clientSecret}x` });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json.errorCode, 'UNAUTHORIZED');
    assert.equal(wrong.json.access_token, undefined);
    assert.equal((await http('POST', `${p.url}/api/v1/auth/token`, { clientId: 'pc_0000000000000000', clientSecret: p.admin.clientSecret })).status, 401);
    assert.equal((await http('POST', `${p.url}/api/v1/auth/token`, {})).status, 401);
    // OAuth 2.0 form and HTTP Basic work too
    const form = await http('POST', `${p.url}/api/v1/auth/token`, `grant_type=client_credentials&client_id=${p.admin.clientId}&client_secret=${p.admin.clientSecret}`, { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(form.status, 200, form.text);
    assert.equal(form.json.token_type, 'Bearer');
    assert.equal(form.json.expires_in, 3600);
    const basic = await http('POST', `${p.url}/api/v1/auth/token`, undefined, { authorization: `Basic ${Buffer.from(`${p.admin.clientId}:${p.admin.clientSecret}`).toString('base64')}` });
    assert.equal(basic.status, 200, basic.text);
    assert.equal(await status('GET', `/api/v1/organizations/${p.rootId}`, basic.json.access_token), 200);
    // a token signed with another key
    const [h, b] = (form.json.access_token as string).split('.');
    assert.equal(await status('GET', `/api/v1/organizations/${p.rootId}`, `${h}.${b}.${Buffer.alloc(32, 1).toString('base64url')}`), 401);
    // every documented API operation refuses a call without a token
    const doc = (await http('GET', `${p.url}/openapi.json`)).json;
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      // the token exchange, and the recorder's routes (a badge or an instance credential, not an API client's token)
      if (path === '/api/v1/auth/token' || path.startsWith('/api/v1/recorder/')) continue;
      for (const method of Object.keys(methods)) {
        const url = path.replace(/\{registerNumber\}/, 'RN-A1').replace(/\{\w+\}/, String(compA1));
        const r = await http(method.toUpperCase() as 'GET', `${p.url}${url}`, method === 'get' ? undefined : {});
        assert.equal(r.status, 401, `${method} ${url}: ${r.text}`);
        assert.equal(r.json.success, false);
        checked++;
      }
    }
    assert.ok(checked >= 20, `${checked} operations`);
  });
});
