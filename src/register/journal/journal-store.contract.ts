/**
 * The contract every JournalStore keeps (SQLite and PostgreSQL): one suite, run against each
 * implementation by its own test file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chainHash, GENESIS, signingPayload, verifyChain } from './chain.js';
import type { FindQuery, JournalRecord, JournalStore, RegisterState } from './types.js';
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
        assert.deepEqual((await store.heads()).filter((h) => h.rid === rid), [{ rid, rn: 'def', sq: 1200 }]);
        assert.deepEqual(await store.heads('def'), [{ rid, rn: 'def', sq: 1200 }]);
        assert.deepEqual(await store.heads('none'), []);
        assert.deepEqual((await store.loadRegisters([rid])).map((r) => [r.rid, r.sq]), [[rid, 1200]]);
        assert.deepEqual(await store.loadRegisters([]), []);
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

    test('a record comes back byte for byte: its text (any Unicode), every optional field, or none', async () => {
      const { store, signer, close } = await open();
      try {
        const rid = await store.createRegister('bytes', initialState('bytes'));
        const d1 = { _: 'Tra', SQ: '1', RN: 'bytes', ESR: { TL: 'Kassa 1', TT: 'Café ✓', TN: '1', D: '2026-11-21T10:00:00', Dsc: 'Grüße 😀 \u0001 "quoted" \\ ;%' } };
        const t1 = JSON.stringify(d1);
        const h1 = chainHash(GENESIS, t1);
        const full: JournalRecord = {
          rid, sq: 1, type: 'Tra', d: '2026-11-21T10:00:00', tl: 'Kassa 1', tt: 'Café ✓', tn: '1', fn: 'FN 1', t: '-0.50', nfs: 'X', bc: 'sale',
          ch: Buffer.from([0, 1, 255, 92]), rh: Buffer.alloc(32, 7), ref: 'FN:0', resume: 'P9', data: t1, hash: h1, sig: signer.sign(signingPayload(d1, h1.toString('hex'))),
        };
        const t2 = '{"_":"log","SQ":"2"}';
        const h2 = chainHash(h1.toString('hex'), t2);
        const bare: JournalRecord = { rid, sq: 2, type: 'log', d: '2026-11-21T10:00:01', data: t2, hash: h2, sig: Buffer.alloc(64, 3) };
        await store.append([full, bare], new Map());
        assert.deepEqual(await store.get(rid, 1), full);
        assert.deepEqual(await store.get(rid, 2), bare);
        assert.equal(await store.get(rid, 3), undefined);
        assert.equal(await store.get(rid + 1000, 1), undefined);
        assert.deepEqual((await store.byResume(rid, 'P9')).map((r) => r.sq), [1]);
        assert.deepEqual((await store.byTn(rid, 'Kassa 1', 'Café ✓', '1')).map((r) => r.data), [t1]);
      } finally {
        await close();
      }
    });

    test('find: every indexed criterion, D prefixes and bounds, both orders, pages continued after the last SQ', async () => {
      const { store, signer, close } = await open();
      try {
        const rid = await store.createRegister('find', initialState('find'));
        const other = await store.createRegister('find2', initialState('find2'));
        const days = ['2026-11-20', '2026-11-21', '2026-11-22'];
        const records: JournalRecord[] = [];
        let prev = GENESIS;
        for (let sq = 1; sq <= 60; sq++) {
          const day = days[Math.floor((sq - 1) / 20)] as string;
          const d = `${day}T${String(8 + (sq % 10)).padStart(2, '0')}:00:00`;
          const type = sq % 15 === 0 ? 'Rep' : 'Tra';
          const data = JSON.stringify({ _: type, SQ: String(sq), RN: 'find', ESR: { D: d } });
          const hash = chainHash(prev, data);
          records.push({
            rid, sq, type, d, tl: '1', tt: String(sq % 3), tn: String(sq), fn: `F${sq % 7}`, t: sq % 2 ? '1.00' : '2.00', ...(sq % 5 === 0 ? { nfs: 'NF' } : {}),
            bc: sq % 4 === 0 ? 'return' : 'sale', ...(sq % 9 === 0 ? { ref: 'FN:F1' } : {}), data, hash, sig: signer.sign(signingPayload(JSON.parse(data) as Record<string, unknown>, hash.toString('hex'))),
          });
          prev = hash.toString('hex');
        }
        // in two appends, with a record of another register in between
        await store.append(records.slice(0, 30), new Map());
        const o = { rid: other, sq: 1, type: 'Tra' as const, d: '2026-11-21T09:00:00', tl: '1', tt: '1', tn: '1', fn: 'F1', data: '{"SQ":"1"}', hash: chainHash(GENESIS, '{"SQ":"1"}'), sig: Buffer.alloc(64) };
        await store.append([o, ...records.slice(30)], new Map());
        assert.equal(await store.count(), 61);
        const all = async (q: FindQuery, pageSize?: number): Promise<number[]> => {
          const sqs: number[] = [];
          for await (const r of store.find(rid, q, pageSize)) {
            assert.equal(r.rid, rid);
            sqs.push(r.sq);
          }
          return sqs;
        };
        const expect = (f: (r: JournalRecord) => boolean, desc = false): number[] => {
          const sqs = records.filter(f).map((r) => r.sq);
          return desc ? sqs.reverse() : sqs;
        };
        assert.deepEqual(await all({ sort: 'asc', fn: 'F1' }), expect((r) => r.fn === 'F1'));
        assert.deepEqual(await all({ sort: 'desc', fn: 'F1' }, 2), expect((r) => r.fn === 'F1', true));
        assert.deepEqual(await all({ sort: 'asc', tl: '1', tt: '2', tn: '11' }), [11]);
        assert.deepEqual(await all({ sort: 'asc', type: 'Rep' }), [15, 30, 45, 60]);
        assert.deepEqual(await all({ sort: 'asc', t: '2.00', bc: 'return' }, 3), expect((r) => r.t === '2.00' && r.bc === 'return'));
        assert.deepEqual(await all({ sort: 'asc', nfs: 'NF' }), expect((r) => r.nfs === 'NF'));
        assert.deepEqual(await all({ sort: 'asc', ref: 'FN:F1' }), [9, 18, 27, 36, 45, 54]);
        assert.deepEqual(await all({ sort: 'asc', sq: 33 }), [33]);
        // D: a day (prefix), a date-time, bounds (from inclusive, before exclusive)
        assert.deepEqual(await all({ sort: 'asc', d: '2026-11-21' }, 7), expect((r) => r.d.startsWith('2026-11-21')));
        assert.deepEqual(await all({ sort: 'desc', d: '2026-11-21T09' }), expect((r) => r.d.startsWith('2026-11-21T09'), true));
        assert.deepEqual(await all({ sort: 'asc', from: '2026-11-21', before: '2026-11-22' }), expect((r) => r.d >= '2026-11-21' && r.d < '2026-11-22'));
        assert.deepEqual(await all({ sort: 'asc', from: '2026-11-22T15:00:00' }), expect((r) => r.d >= '2026-11-22T15:00:00'));
        assert.deepEqual(await all({ sort: 'asc', before: '2026-11-20~' }), expect((r) => r.d < '2026-11-20~'));
        // the continuation: after (asc) or before (desc) an SQ; endSq bounds the search
        assert.deepEqual(await all({ sort: 'asc', afterSq: 50 }, 4), expect((r) => r.sq > 50));
        assert.deepEqual(await all({ sort: 'desc', afterSq: 5 }), [4, 3, 2, 1]);
        assert.deepEqual(await all({ sort: 'desc', endSq: 12, bc: 'sale' }, 2), expect((r) => r.sq <= 12 && r.bc === 'sale', true));
        assert.deepEqual(await all({ sort: 'asc', fn: 'nothing' }), []);
        // the first page of 1 in each order: the edges of a period
        const edge: number[] = [];
        for await (const r of store.find(rid, { sort: 'desc', d: '2026-11-20' }, 1)) {
          edge.push(r.sq);
          break;
        }
        assert.deepEqual(edge, [20]);
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

    test('a setting is swapped only from the value expected', async () => {
      const { store, close } = await open();
      try {
        assert.equal(await store.swapSetting('lease', undefined, 'a'), true);
        assert.equal(await store.swapSetting('lease', undefined, 'b'), false, 'present: not created again');
        assert.equal(await store.swapSetting('lease', 'b', 'c'), false, 'not the value expected');
        assert.equal(await store.getSetting('lease'), 'a');
        assert.equal(await store.swapSetting('lease', 'a', 'c'), true);
        assert.equal(await store.getSetting('lease'), 'c');
        const both = await Promise.all([store.swapSetting('lease', 'c', 'x'), store.swapSetting('lease', 'c', 'y')]);
        assert.deepEqual(both.filter(Boolean).length, 1, 'one of two concurrent swaps wins');
      } finally {
        await close();
      }
    });
  });
}
