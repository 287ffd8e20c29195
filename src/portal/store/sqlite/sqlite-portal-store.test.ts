import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { portalStoreContract } from '../portal-store.contract.js';
import { openPortalStore, portalSqliteFile } from '../open.js';
import { SqlitePortalStore } from './sqlite-portal-store.js';
import { SQLITE_MIGRATIONS } from './migrations.js';

portalStoreContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-portal-store-'));
  const store = await openPortalStore({ dataDir: dir });
  return {
    store,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

test('SQLite portal store: the file is <data>/portal/portal.sqlite, WAL, migrations recorded once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-portal-store-'));
  try {
    const a = await openPortalStore({ dataDir: dir });
    const b = new SqlitePortalStore(portalSqliteFile(dir));
    await Promise.all([a.migrate(), b.migrate()]);
    await a.close();
    await b.close();
    const file = join(dir, 'portal', 'portal.sqlite');
    assert.ok(existsSync(file));
    const db = new Database(file, { readonly: true });
    try {
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      const rows = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[];
      assert.deepEqual(rows.map((r) => r.version), SQLITE_MIGRATIONS.map((m) => m.version));
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite portal store: a database migrated by a newer program is refused; a bad URL too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-portal-store-'));
  try {
    await (await openPortalStore({ dataDir: dir })).close();
    const db = new Database(portalSqliteFile(dir));
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '2030-01-01T00:00:00.000Z')").run();
    db.close();
    await assert.rejects(openPortalStore({ dataDir: dir }), /schema version 999, newer than this program knows/);
    await assert.rejects(openPortalStore({ dataDir: dir, url: 'mysql://x@y/z' }), /must start with postgres:\/\//);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
