import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { journalStoreContract } from '../journal-store.contract.js';
import { loadOrCreateSigner } from '../../security/signer.js';
import { SqliteJournalStore } from './sqlite-store.js';
import { initialState } from '../../registers.js';
import { GENESIS, chainHash } from '../chain.js';

for (const writerThread of [false, true]) {
  journalStoreContract(`SQLite (${writerThread ? 'writer thread' : 'inline'})`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'efr-store-'));
    const store = new SqliteJournalStore(join(dir, 'journal.sqlite'), { writerThread });
    return {
      store,
      signer: loadOrCreateSigner(dir),
      async close() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

test('SQLite: the file is in WAL mode with synchronous FULL, and records cannot be changed or deleted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-store-'));
  const file = join(dir, 'journal.sqlite');
  const store = new SqliteJournalStore(file);
  try {
    const rid = await store.createRegister('def', initialState('def'));
    await store.append([{ rid, sq: 1, type: 'log', d: '2026-11-21T10:00:00', data: '{"SQ":"1"}', hash: chainHash(GENESIS, '{"SQ":"1"}'), sig: Buffer.alloc(64) }], new Map());
    const db = new Database(file);
    try {
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      assert.throws(() => db.prepare('UPDATE journal SET d = ?').run('x'), /cannot be changed/);
      assert.throws(() => db.prepare('DELETE FROM journal').run(), /cannot be deleted/);
      const row = db.prepare('SELECT length(data) AS n FROM journal').get() as { n: number };
      assert.ok(row.n > 0);
    } finally {
      db.close();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
