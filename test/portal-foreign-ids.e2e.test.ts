/**
 * Ids of other organizations cannot be probed at the portal: for every route that takes an id (in the path, and
 * the parent or company named in a body), an existing id outside the caller's grants gets the very answer a
 * never-used id gets, status, headers and body, the message naming the id asked for the same way. 403 stays for
 * what the caller sees but may not do. Over real HTTP, on the store the harness runs (SQLite, or PostgreSQL).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STORE_NAME, type TestPortal, company, location, org, startTestPortal } from './portal-helpers.js';

interface Raw {
  status: number;
  headers: Record<string, string>;
  text: string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One route asked with the foreign id and with a never-used one. */
interface Probe {
  method: Method;
  /** the path and body for an id (number or register number or key) */
  path: (id: string) => string;
  body?: (id: string) => object;
  foreign: string;
  unknown: string;
  /** the answer both get */
  status: number;
}

/** Headers that differ between any two answers (the time, and the length of the id's digits). */
const VARYING = new Set(['date', 'content-length']);

describe(`portal: foreign ids are answered like unknown ones (${STORE_NAME})`, () => {
  let p: TestPortal;
  let orgX: number;
  let compX: number;
  let locX: number;
  let orgY: number;
  let compY: number;
  let locY: number;
  let keyY: string;
  /** ManageCompany and ManageRegister on organization X */
  let managerX: { clientId: string; token: string };
  /** ReadCompany on organization X */
  let readerX: { clientId: string; token: string };

  const create = async (path: string, body: object, key: string): Promise<number> => {
    const r = await p.call('POST', path, body);
    assert.equal(r.status, 200, r.text);
    return r.json[key].id as number;
  };

  const raw = async (method: Method, path: string, body: object | undefined, token: string, lang?: string): Promise<Raw> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (lang) headers['accept-language'] = lang;
    const r = await fetch(`${p.url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await r.text();
    const out: Record<string, string> = {};
    r.headers.forEach((v, k) => {
      out[k] = v;
    });
    assert.equal(Number(out['content-length']), Buffer.byteLength(text), `${method} ${path}: content-length is the body's`);
    return { status: r.status, headers: out, text };
  };

  /** The answer with the id asked for written as ID (only where it stands as a whole word). */
  const normalized = (a: Raw, id: string): { status: number; headers: Record<string, string>; text: string } => {
    const headers = Object.fromEntries(Object.entries(a.headers).filter(([k]) => !VARYING.has(k)));
    const word = new RegExp(`(?<![\\w-])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'g');
    return { status: a.status, headers, text: a.text.replace(word, 'ID') };
  };

  const compare = async (probe: Probe, token: string, lang?: string): Promise<void> => {
    const what = `${probe.method} ${probe.path('{id}')}${lang ? ` (${lang})` : ''}`;
    const foreign = await raw(probe.method, probe.path(probe.foreign), probe.body?.(probe.foreign), token, lang);
    const unknown = await raw(probe.method, probe.path(probe.unknown), probe.body?.(probe.unknown), token, lang);
    assert.equal(foreign.status, probe.status, `${what}, foreign ${probe.foreign}: ${foreign.text}`);
    assert.deepEqual(normalized(foreign, probe.foreign), normalized(unknown, probe.unknown), `${what}: foreign ${probe.foreign} and unknown ${probe.unknown} answer alike`);
    assert.ok(foreign.text.includes(probe.foreign), `${what}: the message names the id asked for`);
    assert.ok(unknown.text.includes(probe.unknown), `${what}: the message names the id asked for`);
  };

  before(async () => {
    p = await startTestPortal();
    orgX = await create('/api/v1/organizations', org(p.rootId, { name: 'Org X' }), 'organization');
    compX = await create('/api/v1/companies', company(orgX, { name: 'Company X' }), 'company');
    locX = await create('/api/v1/locations', location(compX, { name: 'Loc X', locationIdentification: 'X1' }), 'location');
    orgY = await create('/api/v1/organizations', org(p.rootId, { name: 'Org Y' }), 'organization');
    compY = await create('/api/v1/companies', company(orgY, { name: 'Company Y', taxId: 'ATU10223006' }), 'company');
    locY = await create('/api/v1/locations', location(compY, { name: 'Loc Y', locationIdentification: 'Y1' }), 'location');
    const now = new Date();
    for (const [rn, c] of [['RN-X1', compX], ['RN-Y1', compY]] as const) {
      await p.store.putRegister({ registerNumber: rn, companyId: c, countryCode: 'AT', lastTL: null, lastTT: null, userComment: null, firstTransaction: null, lastTransaction: null, versionNumber: null, state: 'Productive', isCloudEFR: true, dischargeAfter: null }, now);
    }
    const contact = await p.call('POST', '/api/v1/contacts', { companyId: compY, contactName: 'Yves', emailAddress: 'yves@y.at', contactType: 'InvoiceContact' });
    assert.equal(contact.status, 200, contact.text);
    const key = await p.call('POST', `/api/v1/companies/${compY}/apiKeys`, { name: 'Y cloud' });
    assert.equal(key.status, 200, key.text);
    keyY = key.json.companyApiKey.apiKey as string;
    managerX = await p.client([{ entityId: orgX, permission: 'ManageCompany' }, { entityId: orgX, permission: 'ManageRegister' }]);
    readerX = await p.client([{ entityId: orgX, permission: 'ReadCompany' }]);
  });
  after(() => p.stop());

  /** An id no entity has had (ids only grow). */
  const unused = async (): Promise<string> => {
    const made = await create('/api/v1/organizations', org(p.rootId, { name: 'Probe' }), 'organization');
    return String(made + 1000);
  };

  test('every route with an entity id in its path: 404, the same answer as for an id never used', async () => {
    const never = await unused();
    const entities: Array<{ plural: string; foreign: number; body: object; deactivate: boolean }> = [
      { plural: 'organizations', foreign: orgY, body: { name: 'Org Y' }, deactivate: false },
      { plural: 'companies', foreign: compY, body: company(orgX, { name: 'Company Y', taxId: undefined }), deactivate: true },
      { plural: 'locations', foreign: locY, body: location(compX, { name: 'Loc Y', locationIdentification: 'Y1' }), deactivate: true },
    ];
    const probes: Probe[] = [];
    for (const e of entities) {
      const ids = { foreign: String(e.foreign), unknown: never, status: 404 };
      probes.push({ method: 'GET', path: (id) => `/api/v1/${e.plural}/${id}`, ...ids });
      probes.push({ method: 'PUT', path: (id) => `/api/v1/${e.plural}/${id}`, body: () => e.body, ...ids });
      probes.push({ method: 'PUT', path: (id) => `/api/v1/${e.plural}/${id}`, body: () => ({ ...e.body, state: 'Deactivated' }), ...ids });
      if (e.deactivate) {
        probes.push({ method: 'POST', path: (id) => `/api/v1/${e.plural}/${id}/deactivate`, ...ids });
        probes.push({ method: 'POST', path: (id) => `/api/v1/${e.plural}/${id}/deactivate?deactivateAfterYear=2099&forceSubDeactivation=true`, ...ids });
      }
    }
    // the caller's own parent's parent (the root) is outside its grant too
    probes.push({ method: 'GET', path: (id) => `/api/v1/organizations/${id}`, foreign: String(p.rootId), unknown: never, status: 404 });
    // an id of another kind is not found either, outside the grant or not
    probes.push({ method: 'GET', path: (id) => `/api/v1/companies/${id}`, foreign: String(locY), unknown: never, status: 404 });
    const ofCompany = { foreign: String(compY), unknown: never, status: 404 };
    probes.push({ method: 'GET', path: (id) => `/api/v1/companies/${id}/contacts`, ...ofCompany });
    probes.push({ method: 'GET', path: (id) => `/api/v1/companies/${id}/notifications`, ...ofCompany });
    probes.push({ method: 'GET', path: (id) => `/api/v1/companies/${id}/notifications?languageCode=de-AT`, ...ofCompany });
    probes.push({ method: 'GET', path: (id) => `/api/v1/companies/${id}/apiKeys`, ...ofCompany });
    probes.push({ method: 'POST', path: (id) => `/api/v1/companies/${id}/apiKeys`, body: () => ({ name: 'probe' }), ...ofCompany });
    probes.push({ method: 'DELETE', path: (id) => `/api/v1/companies/${id}/apiKeys/${keyY}`, ...ofCompany });
    // a company named in the body
    probes.push({ method: 'POST', path: () => '/api/v1/contacts', body: (id) => ({ companyId: Number(id), contactName: 'Eve', emailAddress: 'eve@x.at', contactType: 'InvoiceContact' }), ...ofCompany });
    for (const probe of probes) await compare(probe, managerX.token);
    // German too: errorMessageTranslated names the id the same way
    for (const probe of probes.slice(0, 3)) await compare(probe, managerX.token, 'de');
    // nothing happened to the foreign entities
    assert.equal((await p.call('GET', `/api/v1/companies/${compY}`)).json.company.state, 'Productive');
    assert.equal((await p.call('GET', `/api/v1/locations/${locY}`)).json.location.deactivateAfterTimestamp, null);
    assert.equal((await p.call('GET', `/api/v1/companies/${compY}/apiKeys`)).json.companyApiKeys.length, 1);
    assert.equal((await p.call('GET', `/api/v1/companies/${compY}/apiKeys`)).json.companyApiKeys[0].revoked, false);
    assert.equal((await p.call('GET', `/api/v1/companies/${compY}/contacts`)).json.contacts.length, 1);
  });

  test('registers and API keys: a foreign one is answered like a register number or key never used', async () => {
    const probes: Probe[] = [
      // same length, so the answers are byte for byte the same
      { method: 'GET', path: (rn) => `/api/v1/registers/${rn}`, foreign: 'RN-Y1', unknown: 'RN-Q9', status: 404 },
      { method: 'POST', path: (rn) => `/api/v1/registers/${rn}/deactivate`, foreign: 'RN-Y1', unknown: 'RN-Q9', status: 404 },
      { method: 'POST', path: (rn) => `/api/v1/registers/${rn}/deactivate?dischargeAfter=2099-01-01T00:00:00Z`, foreign: 'RN-Y1', unknown: 'RN-Q9', status: 404 },
      // a key of another company, revoked through the caller's own company
      { method: 'DELETE', path: (key) => `/api/v1/companies/${compX}/apiKeys/${key}`, foreign: keyY, unknown: 'ck_AAAAAAAAAAAAAAAA', status: 404 },
    ];
    for (const probe of probes) await compare(probe, managerX.token);
    for (const probe of probes.slice(0, 2)) {
      const a = await raw(probe.method, probe.path(probe.foreign), undefined, managerX.token);
      const b = await raw(probe.method, probe.path(probe.unknown), undefined, managerX.token);
      assert.equal(a.text.replaceAll(probe.foreign, probe.unknown), b.text, 'byte for byte');
    }
    const rn = await p.call('GET', '/api/v1/registers/RN-Y1');
    assert.equal(rn.json.register.state, 'Productive');
    assert.equal(rn.json.register.dischargeAfterTimestamp, null);
  });

  test('a parent or grant named in a body: the foreign one is refused as an unknown one is', async () => {
    const never = await unused();
    const probes: Probe[] = [
      { method: 'POST', path: () => '/api/v1/organizations', body: (id) => org(Number(id), { name: 'Under Y' }), foreign: String(orgY), unknown: never, status: 403 },
      { method: 'POST', path: () => '/api/v1/companies', body: (id) => company(Number(id), { name: 'Under Y' }), foreign: String(orgY), unknown: never, status: 403 },
      { method: 'POST', path: () => '/api/v1/locations', body: (id) => location(Number(id), { locationIdentification: 'Z9' }), foreign: String(compY), unknown: never, status: 403 },
      { method: 'POST', path: () => '/api/v1/clients', body: (id) => ({ name: 'thief', grants: [{ entityId: Number(id), permission: 'ReadCompany' }] }), foreign: String(compY), unknown: never, status: 403 },
    ];
    for (const probe of probes) await compare(probe, managerX.token);
    assert.deepEqual((await p.call('POST', '/api/v1/companies/search', { parentEntityId: orgY })).json.foundItems.map((c: { name: string }) => c.name), ['Company Y'], 'nothing made under Y');
  });

  test('403 stays for what the caller sees but may not do', async () => {
    const forbidden = async (method: Method, path: string, body: object | undefined, permission: string): Promise<void> => {
      const r = await p.call(method, path, body, readerX.token);
      assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
      assert.equal(r.json.errorCode, 'FORBIDDEN');
      assert.match(r.json.errorMessage, new RegExp(`permission ${permission} on`));
    };
    // readable, not manageable
    assert.equal((await p.call('GET', `/api/v1/companies/${compX}`, undefined, readerX.token)).status, 200);
    await forbidden('PUT', `/api/v1/companies/${compX}`, company(orgX, { name: 'Company X', taxId: undefined }), 'ManageCompany');
    await forbidden('POST', `/api/v1/locations/${locX}/deactivate`, undefined, 'ManageCompany');
    await forbidden('POST', `/api/v1/companies/${compX}/apiKeys`, {}, 'ManageCompany');
    await forbidden('POST', '/api/v1/contacts', { companyId: compX, contactName: 'Eve', emailAddress: 'eve@x.at', contactType: 'InvoiceContact' }, 'ManageCompany');
    await forbidden('POST', '/api/v1/locations', location(compX, { locationIdentification: 'X2' }), 'ManageCompany');
    // a register of a company it reads: seen (the company's notifications name it), not readable
    await forbidden('GET', '/api/v1/registers/RN-X1', undefined, 'ReadRegister');
    await forbidden('POST', '/api/v1/registers/RN-X1/deactivate', undefined, 'ManageRegister');
    // and the same caller gets 404 for the other organization, as for an id never used
    const never = await unused();
    await compare({ method: 'PUT', path: (id) => `/api/v1/companies/${id}`, body: () => company(orgX, { name: 'Company Y', taxId: undefined }), foreign: String(compY), unknown: never, status: 404 }, readerX.token);
    await compare({ method: 'GET', path: (rn) => `/api/v1/registers/${rn}`, foreign: 'RN-Y1', unknown: 'RN-Q9', status: 404 }, readerX.token);
  });
});
