/**
 * The contract every JournalStore keeps (SQLite now, PostgreSQL later): one suite, run against each
 * implementation by its own test file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chainHash, GENESIS, signingPayload, verifyChain } from './chain.js';
import type { JournalRecord, JournalStore, RegisterState } from './types.js';
import type { Signer } from '../security/signer.js';
import { initialState } from '../registers.js';

function makeRecords(rid: number, rn: string, from: number, n: number, prev: string, signer: Signer): { records: JournalRecord[]; last: string } {
  const records: JournalRecord[] = [];
  for (let sq = from; sq < from + n; sq++) {
    const data = { _: 'Tra', SQ: String(sq), RN: rn, TS: '2026-11-21T10:00:00', ESR: { TL: '1', TT: '1', TN: String(sq), T: '1.00', D: '2026-11-21T10:00:00' }, Fis: { FN: `F${sq}` } };
    const text = JSON.stringify(data);
    const hash = chainHash(prev, text);
    const sig = signer.sign(signingPayload(data, hash.toString('hex')));
    records.push({ rid, sq, type: 'Tra', d: '2026-11-21T10:00:00', tl: '1', tt: '1', tn: String(sq), fn: `F${sq}`, t: '1.00', bc: 'sale', ch: Buffer.alloc(16, sq % 256), rh: Buffer.alloc(16, 1), ...(sq % 10 === 0 ? { ref: `TN:1/1/${sq - 1}` } : {}), data: text, hash, sig });
    prev = hash.toString('hex');
  }
  return { records, last: prev };
}

export function journalStoreContract(name: string, open: () => Promise<{ store: JournalStore; signer: Signer; close(): Promise<void> }>): void {
  describe(`JournalStore contract: ${name}`, () => {
    test('registers are created and come back with their state', async () => {
      const { store, close } = await open();
      try {
        const rid = await store.createRegister('ATU1$1_1', initialState('ATU1$1_1'));
        const all = await store.loadRegisters();
        const reg = all.find((r) => r.rid === rid);
        assert.ok(reg);
        assert.equal(reg.rn, 'ATU1$1_1');
        assert.equal(reg.sq, 0);
        assert.equal(reg.hash, GENESIS);
        await assert.rejects(store.createRegister('ATU1$1_1', initialState('ATU1$1_1')), 'a register number is unique');
      } finally {
        await close();
      }
    });

    test('append stores records and the state atomically; lookups by SQ, TN, FN, reference; paging by range', async () => {
      const { store, signer, close } = await open();
      try {
        const rid = await store.createRegister('def', initialState('def'));
        let prev = GENESIS;
        for (let from = 1; from <= 1200; from += 300) {
          const { records, last } = makeRecords(rid, 'def', from, 300, prev, signer);
          const state: RegisterState = { ...initialState('def'), rid, sq: from + 299, hash: last };
          await store.append(records, new Map([[rid, JSON.stringify(state)]]));
          prev = last;
        }
        assert.equal(await store.count(rid), 1200);
        const reg = (await store.loadRegisters()).find((r) => r.rid === rid);
        assert.equal(reg?.sq, 1200);
        assert.equal(reg?.hash, prev);
        const one = await store.get(rid, 777);
        assert.equal(one?.tn, '777');
        assert.equal(JSON.parse(one?.data ?? '{}').SQ, '777');
        assert.deepEqual((await store.byTn(rid, '1', '1', '42')).map((r) => r.sq), [42]);
        assert.deepEqual((await store.byFn(rid, 'F99')).map((r) => r.sq), [99]);
        assert.deepEqual((await store.byRef(rid, 'TN:1/1/49')).map((r) => r.sq), [50]);
        assert.equal((await store.byTn(rid, '1', '2', '42')).length, 0);
        const sqs: number[] = [];
        for await (const r of store.range(rid, 400, 1100)) sqs.push(r.sq);
        assert.equal(sqs.length, 701);
        assert.equal(sqs[0], 400);
        assert.equal(sqs[700], 1100);
        const report = await verifyChain(store.range(rid, 1), signer.publicKey);
        assert.ok(report.ok, JSON.stringify(report));
        assert.equal(report.count, 1200);
      } finally {
        await close();
      }
    });

    test('a batch that fails is not written at all, state included', async () => {
      const { store, signer, close } = await open();
      try {
        const rid = await store.createRegister('def', initialState('def'));
        const { records, last } = makeRecords(rid, 'def', 1, 5, GENESIS, signer);
        await store.append(records, new Map([[rid, JSON.stringify({ ...initialState('def'), sq: 5, hash: last })]]));
        const { records: more } = makeRecords(rid, 'def', 6, 5, last, signer);
        // SQ 6 twice: the unique key refuses the batch
        await assert.rejects(store.append([...more, { ...(more[0] as JournalRecord) }], new Map([[rid, JSON.stringify({ ...initialState('def'), sq: 99 })]])));
        assert.equal(await store.count(rid), 5);
        assert.equal((await store.loadRegisters()).find((r) => r.rid === rid)?.sq, 5);
        // the batches behind a failed one fail too, until resume()
        await assert.rejects(store.append(more, new Map()), 'refused until resume');
        assert.equal(await store.count(rid), 5);
        await store.resume();
        await store.append(more, new Map([[rid, JSON.stringify({ ...initialState('def'), sq: 10 })]]));
        assert.equal(await store.count(rid), 10);
      } finally {
        await close();
      }
    });

    test('cleaning removes a prefix of a register and keeps the hash the rest of the chain verifies from', async () => {
      const { store, signer, close } = await open();
      try {
        const rid = await store.createRegister('def', initialState('def'));
        const other = await store.createRegister('other', initialState('other'));
        // more records than one cleaning step, so that the cut moves in several transactions
        const { records, last } = makeRecords(rid, 'def', 1, 2100, GENESIS, signer);
        await store.append(records, new Map([[rid, JSON.stringify({ ...initialState('def'), sq: 2100, hash: last })]]));
        const { records: others } = makeRecords(other, 'other', 1, 5, GENESIS, signer);
        await store.append(others, new Map());
        assert.equal(await store.cutOf(rid), undefined);
        await assert.rejects(store.removeUpTo(rid, 2100, '2026-11-22T10:00:00Z'), 'the last record stays');
        await assert.rejects(store.removeUpTo(rid, 5000, '2026-11-22T10:00:00Z'), 'not past the end');
        assert.equal(await store.count(rid), 2100);

        assert.equal(await store.removeUpTo(rid, 2050, '2026-11-22T10:00:00Z'), 2050);
        const cut = await store.cutOf(rid);
        assert.deepEqual(cut, { sq: 2050, hash: (records[2049] as JournalRecord).hash.toString('hex'), d: '2026-11-21T10:00:00', at: '2026-11-22T10:00:00Z' });
        assert.equal(await store.count(rid), 50);
        assert.equal(await store.get(rid, 2050), undefined);
        assert.equal((await store.get(rid, 2051))?.sq, 2051);
        assert.deepEqual((await store.byFn(rid, 'F7')).length, 0);
        const sqs: number[] = [];
        for await (const r of store.range(rid, 1)) sqs.push(r.sq);
        assert.equal(sqs[0], 2051);
        assert.equal(sqs.length, 50);
        // the other register is untouched
        assert.equal(await store.count(other), 5);
        assert.equal(await store.cutOf(other), undefined);

        // a cut never moves back; the chain goes on and verifies from the cut's hash
        assert.equal(await store.removeUpTo(rid, 100, '2026-11-23T10:00:00Z'), 0);
        assert.equal((await store.cutOf(rid))?.sq, 2050);
        const { records: more } = makeRecords(rid, 'def', 2101, 10, last, signer);
        await store.append(more, new Map());
        await store.compact();
        const report = await verifyChain(store.range(rid, 1), signer.publicKey, (cut?.sq ?? 0) + 1, cut?.hash);
        assert.ok(report.ok, JSON.stringify(report));
        assert.equal(report.count, 60);
        assert.equal(report.lastSq, 2110);
        assert.equal((await verifyChain(store.range(rid, 1), signer.publicKey)).ok, false, 'without the cut the rest does not verify from SQ 1');
        // removing more later moves the cut on
        assert.equal(await store.removeUpTo(rid, 2060, '2026-11-24T10:00:00Z'), 10);
        assert.equal((await store.cutOf(rid))?.hash, (records[2059] as JournalRecord).hash.toString('hex'));
      } finally {
        await close();
      }
    });

    test('settings are kept', async () => {
      const { store, close } = await open();
      try {
        assert.equal(await store.getSetting('profile:def'), undefined);
        await store.putSetting('profile:def', '{"Badge":"x"}');
        await store.putSetting('profile:def', '{"Badge":"y"}');
        assert.equal(await store.getSetting('profile:def'), '{"Badge":"y"}');
      } finally {
        await close();
      }
    });
  });
}
