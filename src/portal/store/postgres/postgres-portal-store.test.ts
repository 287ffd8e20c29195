/**
 * The contract on the real PostgreSQL server (EFR_TEST_PG, default postgres://postgres@127.0.0.1:5432/test):
 * every test works in its own schema efr_t_<random>, dropped after. An unreachable server fails the tests
 * with a message that says how to start it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { portalStoreContract } from '../portal-store.contract.js';
import { openPortalStore } from '../open.js';
import { StoreUnavailable } from '../types.js';
import { PostgresPortalStore } from './postgres-portal-store.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { createScratchSchema, testPgUrl } from '../../../../test/scratch-schema.js';

portalStoreContract('PostgreSQL', async () => {
  const scratch = await createScratchSchema();
  const store = new PostgresPortalStore({ url: scratch.url, schema: scratch.schema, poolSize: 3 });
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    await scratch.drop();
    throw err;
  }
  return {
    store,
    async close() {
      await store.close();
      await scratch.drop();
    },
  };
});

async function inSchema<T>(schema: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: testPgUrl(), options: `-c search_path=${schema}` });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

test('PostgreSQL portal store: processes migrating at the same time apply each migration once', async () => {
  const scratch = await createScratchSchema();
  const stores = [0, 1, 2].map(() => new PostgresPortalStore({ url: scratch.url, schema: scratch.schema, poolSize: 2 }));
  try {
    await Promise.all(stores.map((s) => s.migrate()));
    await stores[0]!.migrate();
    const rows = await inSchema(scratch.schema, async (c) => (await c.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows);
    assert.deepEqual(rows.map((r) => r.version), POSTGRES_MIGRATIONS.map((m) => m.version));
    // the columns are what the brief asks for: timestamptz times, a trigram index on the search column
    const cols = await inSchema(scratch.schema, async (c) => (await c.query<{ column_name: string; data_type: string }>(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'entities' AND column_name IN ('created_at', 'deactivate_after', 'id')",
      [scratch.schema],
    )).rows);
    assert.deepEqual(Object.fromEntries(cols.map((c) => [c.column_name, c.data_type])), { id: 'bigint', created_at: 'timestamp with time zone', deactivate_after: 'timestamp with time zone' });
    const idx = await inSchema(scratch.schema, async (c) => (await c.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname IN ('entities_search', 'registers_search') ORDER BY indexname", [scratch.schema],
    )).rows.map((r) => r.indexdef));
    assert.equal(idx.length, 2);
    for (const def of idx) assert.match(def, /USING gin \(search [a-z_"]+\.gin_trgm_ops\)/);
  } finally {
    await Promise.all(stores.map((s) => s.close()));
    await scratch.drop();
  }
});

test('PostgreSQL portal store: a text search uses the trigram index', async () => {
  const scratch = await createScratchSchema();
  const store = new PostgresPortalStore({ url: scratch.url, schema: scratch.schema, poolSize: 2 });
  try {
    await store.migrate();
    const plan = await inSchema(scratch.schema, async (c) => {
      // GIN answers bitmap scans only: with sequential and plain index scans off, a usable index must show
      await c.query('SET enable_seqscan = off');
      await c.query('SET enable_indexscan = off');
      const r = await c.query<{ 'QUERY PLAN': string }>("EXPLAIN SELECT id FROM entities e WHERE e.search LIKE lower($1) ESCAPE '\\'", ['%huber%']);
      return r.rows.map((x) => x['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /entities_search/);
  } finally {
    await store.close();
    await scratch.drop();
  }
});

test('PostgreSQL portal store: openPortalStore with a URL that names the schema', async () => {
  const scratch = await createScratchSchema();
  const store = await openPortalStore({ dataDir: '/nonexistent', url: scratch.schemaUrl });
  try {
    const root = await store.createEntity({
      kind: 'organization', parentId: null, name: 'Root', address: null, city: null, zip: null, countryCode: null, invoiceEmailAddress: null,
      userComment: null, state: 'Productive', test: false, badge: null, taxId: null, ignoreTaxId: false, countryProperties: null,
      locationIdentification: null, deactivateAfter: null,
    }, new Date('2026-03-01T10:00:00Z'));
    assert.equal(root.id, 2);
    const n = await inSchema(scratch.schema, async (c) => (await c.query<{ n: string }>('SELECT count(*) AS n FROM entities')).rows[0]?.n);
    assert.equal(n, '1', 'the row is in the named schema');
  } finally {
    await store.close();
    await scratch.drop();
  }
});

test('PostgreSQL portal store: an unreachable server is an error that says how to start it, and StoreUnavailable for the store', async () => {
  await assert.rejects(createScratchSchema('postgres://postgres@127.0.0.1:1/test'), (err: unknown) => {
    assert.ok(err instanceof Error);
    assert.match(err.message, /PostgreSQL is not reachable at postgres:\/\/postgres@127\.0\.0\.1:1\/test/);
    assert.match(err.message, /pg_ctlcluster 15 main start/);
    return true;
  });
  const store = new PostgresPortalStore({ url: 'postgres://postgres@127.0.0.1:1/test' });
  try {
    await assert.rejects(store.getEntity(2), StoreUnavailable);
    await assert.rejects(store.migrate(), StoreUnavailable);
  } finally {
    await store.close();
  }
});
