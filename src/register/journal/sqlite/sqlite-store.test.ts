import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { journalStoreContract } from '../journal-store.contract.js';
import { loadOrCreateSigner, verifySignature } from '../../security/signer.js';
import { SqliteJournalStore } from './sqlite-store.js';
import { VACUUM_STEP } from './maintain.js';
import { initialState } from '../../registers.js';
import { GENESIS, chainHash, signingPayload, verifyChain } from '../chain.js';
import type { JournalRecord } from '../types.js';

// the writer thread's path alone, and as the service runs it: a quiet batch committed on the main thread
for (const [name, options] of [['inline', { writerThread: false }], ['writer thread', { writerThread: true, quietHere: false }], ['writer thread, quiet batches here', { writerThread: true }]] as const) {
  journalStoreContract(`SQLite (${name})`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'efr-store-'));
    const store = new SqliteJournalStore(join(dir, 'journal.sqlite'), options);
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

test('SQLite: records are deleted only up to the register\'s cut, and a cut never moves back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-store-'));
  const file = join(dir, 'journal.sqlite');
  const store = new SqliteJournalStore(file);
  try {
    const rid = await store.createRegister('def', initialState('def'));
    let prev = GENESIS;
    for (let sq = 1; sq <= 5; sq++) {
      const data = `{"SQ":"${sq}"}`;
      const hash = chainHash(prev, data);
      await store.append([{ rid, sq, type: 'log', d: '2026-11-21T10:00:00', data, hash, sig: Buffer.alloc(64) }], new Map());
      prev = hash.toString('hex');
    }
    assert.equal(await store.removeUpTo(rid, 2, '2026-11-22T00:00:00Z'), 2);
    const db = new Database(file);
    try {
      assert.equal(db.pragma('auto_vacuum', { simple: true }), 2, 'a new journal gives pages back incrementally');
      assert.throws(() => db.prepare('DELETE FROM journal WHERE sq = 3').run(), /cannot be deleted/);
      assert.throws(() => db.prepare('UPDATE journal_cut SET sq = 1').run(), /cannot move back/);
      assert.throws(() => db.prepare('DELETE FROM journal_cut').run(), /cannot be removed/);
      assert.equal((db.prepare('SELECT count(*) AS n FROM journal').get() as { n: number }).n, 3);
    } finally {
      db.close();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Appends `n` records of about 2 KB each (random, so that they do not compress) after `prev`; the last hash. */
async function fill(store: SqliteJournalStore, rid: number, from: number, n: number, prev: string): Promise<string> {
  for (let sq = from; sq < from + n; sq++) {
    const data = `{"SQ":"${sq}","pad":"${randomBytes(1500).toString('base64')}"}`;
    const hash = chainHash(prev, data);
    await store.append([{ rid, sq, type: 'log', d: '2026-11-21T10:00:00', data, hash, sig: Buffer.alloc(64) }], new Map());
    prev = hash.toString('hex');
  }
  return prev;
}

const pragma = (file: string, name: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma(name, { simple: true }) as number;
  } finally {
    db.close();
  }
};

test('SQLite: a journal made before cleaning existed gets the new delete rule; compacting never rewrites it, later records reuse the space', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-store-'));
  const file = join(dir, 'journal.sqlite');
  try {
    // the schema as it was: no auto_vacuum, a trigger that refuses every DELETE
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.exec(`CREATE TABLE journal (rid INTEGER NOT NULL, sq INTEGER NOT NULL, type TEXT NOT NULL, d TEXT NOT NULL, tl TEXT, tt TEXT, tn TEXT, fn TEXT, t TEXT, nfs TEXT, bc TEXT,
      ch BLOB, rh BLOB, ref TEXT, resume TEXT, data BLOB NOT NULL, hash BLOB NOT NULL, sig BLOB NOT NULL, UNIQUE (rid, sq));
      CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal BEGIN SELECT RAISE(ABORT, 'journal records cannot be deleted'); END;`);
    old.close();
    const store = new SqliteJournalStore(file, { writerThread: true });
    try {
      const rid = await store.createRegister('def', initialState('def'));
      let prev = await fill(store, rid, 1, 300, GENESIS);
      await store.compact();
      const pages = pragma(file, 'page_count');
      assert.equal(await store.removeUpTo(rid, 290, '2026-11-22T00:00:00Z'), 290);
      await store.compact();
      assert.equal(await store.count(rid), 10);
      assert.equal(pragma(file, 'auto_vacuum'), 0, 'not rewritten by VACUUM');
      const free = pragma(file, 'freelist_count');
      assert.ok(free > 100, `the freed pages stay in the file for reuse: ${free}`);
      assert.equal(pragma(file, 'page_count'), pages);
      // the next records take the free pages: the file does not grow
      prev = await fill(store, rid, 301, 150, prev);
      assert.ok(pragma(file, 'freelist_count') < free - 50, `${pragma(file, 'freelist_count')} < ${free - 50}`);
      assert.equal(pragma(file, 'page_count'), pages);
      assert.equal(await store.count(rid), 160);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite: compacting gives the pages back in small steps, appends posted meanwhile are committed between them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-store-'));
  const file = join(dir, 'journal.sqlite');
  const store = new SqliteJournalStore(file, { writerThread: true });
  try {
    const rid = await store.createRegister('def', initialState('def'));
    const prev = await fill(store, rid, 1, 2000, GENESIS);
    const before = pragma(file, 'page_count');
    assert.equal(await store.removeUpTo(rid, 1990, '2026-11-22T00:00:00Z'), 1990);
    const free = pragma(file, 'freelist_count');
    assert.ok(free > VACUUM_STEP * 3, `several steps of pages to give back: ${free}`);
    let compacted = false;
    const compacting = store.compact().then(() => {
      compacted = true;
    });
    // posted after the compaction started: committed before it ends, not after the whole file
    const data = '{"SQ":"2001"}';
    await store.append([{ rid, sq: 2001, type: 'log', d: '2026-11-22T10:00:00', data, hash: chainHash(prev, data), sig: Buffer.alloc(64) }], new Map());
    assert.equal(compacted, false, 'the append did not wait for the whole compaction');
    await compacting;
    assert.equal(pragma(file, 'freelist_count'), 0);
    assert.ok(pragma(file, 'page_count') < before / 10, `the file shrinks: ${pragma(file, 'page_count')} of ${before} pages`);
    assert.ok(statSync(file).size < (before * 4096) / 10);
    assert.equal(await store.count(rid), 11);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const writerThread of [false, true]) {
  test(`SQLite (${writerThread ? 'writer thread' : 'inline'}): records handed over unsigned are signed with the key given, where they are written`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'efr-store-'));
    const store = new SqliteJournalStore(join(dir, 'journal.sqlite'), { writerThread });
    const signer = loadOrCreateSigner(dir);
    try {
      assert.equal(store.signsRecords, true);
      assert.ok(signer.privateKey, 'a software signer gives its key to the writer');
      const rid = await store.createRegister('def', initialState('def'));
      const data = '{"_":"log","SQ":"1","RN":"def"}';
      const hash = chainHash(GENESIS, data);
      const payload = signingPayload(JSON.parse(data) as Record<string, unknown>, hash.toString('hex'));
      const unsigned = { rid, sq: 1, type: 'log' as const, d: '2026-11-28T10:00:00', data, hash, sig: Buffer.alloc(0), payload };
      // a record signed already keeps its signature
      const data2 = '{"_":"log","SQ":"2","RN":"def"}';
      const hash2 = chainHash(hash.toString('hex'), data2);
      const own = signer.sign(signingPayload(JSON.parse(data2) as Record<string, unknown>, hash2.toString('hex')));
      const signed = { rid, sq: 2, type: 'log' as const, d: '2026-11-28T10:00:01', data: data2, hash: hash2, sig: own };
      await store.append([unsigned, signed], new Map(), signer.privateKey);
      assert.equal(unsigned.sig.length, 64);
      assert.ok(verifySignature(signer.publicKey, payload, unsigned.sig), 'the signature set on the record verifies with the public key');
      const stored = await store.get(rid, 1);
      assert.deepEqual(stored?.sig, unsigned.sig);
      assert.deepEqual((await store.get(rid, 2))?.sig, own);
      const report = await verifyChain(store.range(rid, 1), signer.publicKey);
      assert.equal(report.ok, true, report.broken?.reason);
      assert.equal(report.count, 2);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('SQLite (writer thread): a small batch after the event loop waited for work is committed on the main thread, one that follows without a wait or a large one goes to the writer; the chain is one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-store-'));
  const file = join(dir, 'journal.sqlite');
  const store = new SqliteJournalStore(file, { writerThread: true });
  const signer = loadOrCreateSigner(dir);
  try {
    const rid = await store.createRegister('def', initialState('def'));
    let prev = GENESIS;
    const next = (sq: number): JournalRecord => {
      const data = `{"_":"log","SQ":"${sq}","RN":"def"}`;
      const hash = chainHash(prev, data);
      prev = hash.toString('hex');
      return { rid, sq, type: 'log', d: '2026-12-02T10:00:00', data, hash, sig: Buffer.alloc(0), payload: signingPayload(JSON.parse(data) as Record<string, unknown>, prev) };
    };
    const idle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));
    const records: JournalRecord[] = [];
    const append = async (r: JournalRecord): Promise<void> => {
      records.push(r);
      await store.append([r], new Map([[rid, JSON.stringify({ ...initialState('def'), sq: r.sq, hash: r.hash.toString('hex') })]]), signer.privateKey);
    };
    await idle();
    await append(next(1));
    assert.deepEqual(store.commits, { here: 1, writer: 0 }, 'after a wait for work: committed here');
    // the next ones follow at once, as requests under load do: the writer thread commits them
    await append(next(2));
    await append(next(3));
    assert.deepEqual(store.commits, { here: 1, writer: 2 });
    await idle();
    await append(next(4));
    assert.deepEqual(store.commits, { here: 2, writer: 2 });
    // a large batch after a wait (a restore appends a whole journal in one) goes to the writer all the same
    await idle();
    const large = Array.from({ length: 20 }, (_, i) => next(5 + i));
    records.push(...large);
    await store.append(large, new Map(), signer.privateKey);
    assert.deepEqual(store.commits, { here: 2, writer: 3 });
    for (const r of records) assert.ok(verifySignature(signer.publicKey, r.payload ?? '', r.sig), `record ${r.sq} signed with the instance key`);
    const report = await verifyChain(store.range(rid, 1), signer.publicKey);
    assert.equal(report.ok, true, report.broken?.reason);
    assert.equal(report.count, 24);
    assert.equal((await store.loadRegisters())[0]?.sq, 4, 'the register state of the last batch that wrote one');
  } finally {
    await store.close();
  }
  // on disk for another connection, in order, after the store closed
  const db = new Database(file, { readonly: true });
  try {
    assert.deepEqual((db.prepare('SELECT sq FROM journal ORDER BY rowid').all() as { sq: number }[]).map((r) => r.sq), Array.from({ length: 24 }, (_, i) => i + 1));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite (writer thread): after a failed commit on the main thread nothing is written on either thread until resume()', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-store-'));
  const store = new SqliteJournalStore(join(dir, 'journal.sqlite'), { writerThread: true });
  try {
    const rid = await store.createRegister('def', initialState('def'));
    const record = (sq: number): JournalRecord => {
      const data = `{"_":"log","SQ":"${sq}","RN":"def"}`;
      return { rid, sq, type: 'log', d: '2026-12-02T10:00:00', data, hash: chainHash(GENESIS, data), sig: Buffer.alloc(64, 1) };
    };
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.append([record(1)], new Map());
    await new Promise((resolve) => setTimeout(resolve, 5));
    // the same SQ again: refused by the journal's key, on the main thread (the loop waited)
    await assert.rejects(store.append([record(1)], new Map()), /UNIQUE/);
    assert.equal(store.commits.here, 1);
    // at once after it (the writer's path) and after a wait (this thread's): both refused until resume()
    await assert.rejects(store.append([record(2)], new Map()), /UNIQUE/);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await assert.rejects(store.append([record(2)], new Map()), /UNIQUE/);
    assert.deepEqual(store.commits, { here: 1, writer: 0 });
    await store.resume();
    await store.append([record(2)], new Map());
    assert.deepEqual((await store.get(rid, 2))?.sq, 2);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
