/**
 * `efr portal init` and `efr portal` as real processes: the root organization and its admin
 * client are made once, the credentials printed once (the secret only stored hashed), a second init is refused;
 * the portal serves its OpenAPI 3.1 document and the reference page, and stops on SIGTERM.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, freePort, get, http, tempDir } from './helpers.js';
import { PG_URL, STORE_NAME } from './portal-helpers.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function efr(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe(`efr portal init and efr portal (${STORE_NAME})`, () => {
  const dataDir = tempDir('efr-portal-cli-');
  let schema: string | undefined;
  let db: string[] = [];
  let clientId = '';
  let clientSecret = '';
  let rootId = 0;

  before(async () => {
    if (PG_URL) {
      schema = `portal_cli_${randomBytes(6).toString('hex')}`;
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`CREATE SCHEMA ${schema}`);
      await c.end();
      db = ['--db', `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema},public`)}`];
    }
  });
  after(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (schema && PG_URL) {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    }
  });

  test('init creates the root organization and the admin client once', async () => {
    const r = await efr(['portal', 'init', '--data', dataDir, '--name', 'Acme Holding', ...db]);
    assert.equal(r.code, 0, r.stderr);
    clientId = /clientId:\s+(\S+)/.exec(r.stdout)?.[1] ?? '';
    clientSecret = /clientSecret:\s+(\S+)/.exec(r.stdout)?.[1] ?? '';
    rootId = Number(/root organization (\d+)/.exec(r.stdout)?.[1]);
    assert.match(clientId, /^pc_[0-9a-f]{16}$/);
    assert.match(clientSecret, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(rootId >= 2, r.stdout);
    assert.match(r.stdout, /Acme Holding/);
    assert.match(r.stdout, /ReadCompany, ManageCompany, ReadRegister, ManageRegister/);
    if (!PG_URL) {
      // the secret is nowhere in the data folder, only its hash
      const dir = join(dataDir, 'portal');
      const bytes = readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile()).map((f) => readFileSync(join(dir, f)).toString('latin1')).join('');
      assert.ok(bytes.includes(clientId));
      assert.ok(!bytes.includes(clientSecret));
    }
    const again = await efr(['portal', 'init', '--data', dataDir, ...db]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already initialised/);
    assert.doesNotMatch(again.stdout, /clientSecret/);
  });

  test('the portal starts, issues a token for the printed credentials, serves OpenAPI and /docs, stops on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'portal', '--port', String(port), '--host', '127.0.0.1', '--data', dataDir, ...db], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${port}`;
    try {
      const deadline = Date.now() + 20_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`portal exited: ${output}`);
        const up = await get(`${url}/openapi.json`).catch(() => undefined);
        if (up?.status === 200) break;
        if (Date.now() > deadline) throw new Error(`portal did not start: ${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(output, new RegExp(`listening on ${url}`));
      const token = await http('POST', `${url}/api/v1/auth/token`, { clientId, clientSecret });
      assert.equal(token.status, 200, token.text);
      const root = await get(`${url}/api/v1/organizations/${rootId}`, { authorization: `Bearer ${token.json.access_token}` });
      assert.equal(root.status, 200, root.text);
      assert.equal(root.json.organization.name, 'Acme Holding');
      assert.equal(root.json.organization.parentEntityId, null);
      const key = statSync(join(dataDir, 'portal', 'keys', 'token.key'));
      assert.equal(key.size, 32);
      assert.equal(key.mode & 0o777, 0o600);

      const doc = (await get(`${url}/openapi.json`)).json;
      assert.equal(doc.openapi, '3.1.0');
      const ops = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, m]) => Object.entries(m).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`));
      for (const expected of [
        'POST /api/v1/organizations create_organization',
        'PUT /api/v1/organizations/{organizationId} update_organization',
        'GET /api/v1/organizations/{organizationId} get_organization',
        'POST /api/v1/organizations/search search_organizations',
        'POST /api/v1/companies create_company',
        'PUT /api/v1/companies/{companyId} update_company',
        'GET /api/v1/companies/{companyId} get_company',
        'POST /api/v1/companies/{companyId}/deactivate deactivate_company',
        'POST /api/v1/companies/search search_companies',
        'GET /api/v1/companies/{companyId}/notifications list_notifications',
        'POST /api/v1/contacts create_contact',
        'GET /api/v1/companies/{companyId}/contacts list_contacts',
        'POST /api/v1/locations create_location',
        'PUT /api/v1/locations/{locationId} update_location',
        'GET /api/v1/locations/{locationId} get_location',
        'POST /api/v1/locations/{locationId}/deactivate deactivate_location',
        'POST /api/v1/locations/search search_locations',
        'GET /api/v1/registers/{registerNumber} get_register',
        'POST /api/v1/registers/search search_registers',
        'POST /api/v1/registers/{registerNumber}/deactivate deactivate_register',
        'POST /api/v1/auth/token get_token',
      ]) assert.ok(ops.includes(expected), `${expected} in ${ops.join('\n')}`);
      const create = doc.paths['/api/v1/companies'].post.requestBody.content['application/json'].schema;
      assert.equal(create.properties.taxId.minLength, 4);
      assert.equal(create.properties.taxId.maxLength, 40);
      assert.ok(create.required.includes('countryCode'));

      const docs = await get(`${url}/docs`);
      assert.equal(docs.status, 200);
      assert.match(docs.contentType, /text\/html/);
      assert.match(docs.text, /<code>\/api\/v1\/companies\/\{companyId\}\/deactivate<\/code>/);
      assert.match(docs.text, /deactivateAfterYear/);
      assert.doesNotMatch(docs.text, /<script|https?:\/\/(?!127\.0\.0\.1)[a-z]/i);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    }
    assert.match(output, /SIGTERM, closing/);
  });
});
