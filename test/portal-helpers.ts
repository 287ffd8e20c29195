/**
 * Test harness of the management portal: a real portal on a free port with a temporary data folder and its store:
 * SQLite by default, PostgreSQL (a fresh schema, dropped afterwards) when EFR_TEST_PG is set (a postgres:// URL,
 * or any other value for postgres://postgres@127.0.0.1:5432/postgres). The root organization and its admin client
 * are made by the same code as `efr portal init`.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import type { Clock } from '../src/shared/clock.js';
import { systemClock } from '../src/shared/clock.js';
import { initPortal } from '../src/portal/init.js';
import { type PortalOptions, type RunningPortal, startPortal } from '../src/portal/server.js';
import { type HttpAnswer, http, tempDir } from './helpers.js';

export const PG_URL = process.env.EFR_TEST_PG ? (/^postgres(ql)?:\/\//.test(process.env.EFR_TEST_PG) ? process.env.EFR_TEST_PG : 'postgres://postgres@127.0.0.1:5432/postgres') : undefined;
export const STORE_NAME = PG_URL ? 'PostgreSQL' : 'SQLite';

export interface TestPortal extends RunningPortal {
  dataDir: string;
  /** the PostgreSQL URL of its schema (to start it again on the same database) */
  dbUrl?: string;
  rootId: number;
  admin: { clientId: string; clientSecret: string; token: string };
  /** a request with a bearer token (the admin's unless another is given; null: none) */
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: object | string, token?: string | null, headers?: Record<string, string>): Promise<HttpAnswer>;
  tokenOf(clientId: string, clientSecret: string): Promise<string>;
  /** a new API client with these grants (made by the admin over HTTP) and its token */
  client(grants: Array<{ entityId: number; permission: string }>): Promise<{ clientId: string; token: string }>;
  /** a fresh admin token (after a test moved the clock) */
  renewAdmin(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestPortal(options: { clock?: Clock; /** PostgreSQL even without EFR_TEST_PG */ pgUrl?: string; portal?: Pick<PortalOptions, 'silentAfterMs' | 'escalateAfterMs' | 'reopenWithinMs' | 'trustProxy' | 'smtpUrl' | 'mailFrom' | 'schedulerIntervalMs'> } = {}): Promise<TestPortal> {
  const dataDir = tempDir('efr-portal-');
  let schema: string | undefined;
  let dbUrl: string | undefined;
  const pgUrl = options.pgUrl ?? PG_URL;
  if (pgUrl) {
    schema = `portal_test_${randomBytes(6).toString('hex')}`;
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`CREATE SCHEMA ${schema}`);
    await c.end();
    dbUrl = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema},public`)}`;
  }
  const clock = options.clock ?? systemClock;
  const portal = await startPortal({ port: 0, host: '127.0.0.1', dataDir, log: false, clock, ...options.portal, ...(dbUrl ? { dbUrl } : {}) });
  const init = await initPortal(portal.store, clock);
  const call: TestPortal['call'] = (method, path, body, token, headers = {}) => {
    const auth: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token ?? admin.token}` };
    return http(method, `${portal.url}${path}`, body, { ...auth, ...headers });
  };
  const tokenOf = async (clientId: string, clientSecret: string): Promise<string> => {
    const r = await http('POST', `${portal.url}/api/v1/auth/token`, { clientId, clientSecret });
    if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`);
    return r.json.access_token as string;
  };
  const admin = { clientId: init.clientId, clientSecret: init.clientSecret, token: '' };
  admin.token = await tokenOf(init.clientId, init.clientSecret);
  return {
    ...portal,
    dataDir,
    ...(dbUrl ? { dbUrl } : {}),
    rootId: init.organization.id,
    admin,
    call,
    tokenOf,
    async client(grants) {
      const r = await call('POST', '/api/v1/clients', { name: 'test client', grants });
      if (r.status !== 200) throw new Error(`client: ${r.status} ${r.text}`);
      return { clientId: r.json.clientId as string, token: await tokenOf(r.json.clientId as string, r.json.clientSecret as string) };
    },
    async renewAdmin() {
      admin.token = await tokenOf(admin.clientId, admin.clientSecret);
    },
    async stop() {
      await portal.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (schema && pgUrl) {
        const c = new pg.Client({ connectionString: pgUrl });
        await c.connect();
        await c.query(`DROP SCHEMA ${schema} CASCADE`);
        await c.end();
      }
    },
  };
}

/** Bodies that pass validation, to be varied by the tests. */
export const org = (parentEntityId: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ parentEntityId, name: 'Retail Group', ...extra });
export const company = (parentEntityId: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  parentEntityId,
  name: 'Café Central GmbH',
  taxId: 'ATU13585627',
  address: 'Herrengasse 14',
  city: 'Wien',
  zip: '1010',
  countryCode: 'AT',
  ...extra,
});
export const location = (parentEntityId: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  parentEntityId,
  name: 'Shop Herrengasse',
  address: 'Herrengasse 14',
  city: 'Wien',
  zip: '1010',
  countryCode: 'AT',
  locationIdentification: 'Shop-1',
  ...extra,
});

/** A company (Café Central GmbH, ATU13585627) with the location Shop-1, made over the API; its id, badge and TaxId. */
export async function companyWithLocation(portal: TestPortal): Promise<{ id: number; badge: string; taxId: string }> {
  const c = await portal.call('POST', '/api/v1/companies', { parentEntityId: portal.rootId, name: 'Café Central GmbH', taxId: 'ATU13585627', address: 'Herrengasse 14', city: 'Wien', zip: '1010', countryCode: 'AT' });
  if (c.status !== 200) throw new Error(`company: ${c.status} ${c.text}`);
  const company = c.json.company as { id: number; badge: string; taxId: string };
  const l = await portal.call('POST', '/api/v1/locations', { parentEntityId: company.id, name: 'Shop Herrengasse', address: 'Herrengasse 14', city: 'Wien', zip: '1010', countryCode: 'AT', locationIdentification: 'Shop-1' });
  if (l.status !== 200) throw new Error(`location: ${l.status} ${l.text}`);
  return company;
}
