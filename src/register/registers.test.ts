/**
 * The registers of two processes on one PostgreSQL journal (EFR_TEST_PG, a fresh schema): created by both at
 * once, each goes on with the one register; read back, nothing of what was in memory stays.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createScratchSchema } from '../../test/scratch-schema.js';
import { PostgresJournalStore } from './journal/postgres/postgres-journal-store.js';
import { Registers } from './registers.js';

test('registers on a shared journal: created by two processes at once, both use the one register; readBack replaces what memory held', async () => {
  const scratch = await createScratchSchema(undefined, 'efr_j_');
  const a = new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: 2 });
  const b = new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: 2 });
  try {
    await a.migrate();
    const ra = new Registers(a);
    const rb = new Registers(b);
    await ra.load();
    await rb.load();
    for (let i = 0; i < 5; i++) {
      const rn = `TAX$L1_T${i}`;
      const [x, y] = await Promise.all([ra.getOrCreate(rn), rb.getOrCreate(rn)]);
      assert.equal(x.state.rid, y.state.rid, rn);
      assert.equal(x.state.sq, 0);
      assert.equal(y.state.sq, 0);
      assert.equal(rb.byId(y.state.rid), y);
    }
    assert.equal((await a.loadRegisters()).length, 5);

    // what a failed attempt left in memory: a head ahead of the journal, a cached answer, pending records
    const reg = await ra.getOrCreate('TAX$L1_T0');
    reg.state.sq = 7;
    reg.state.tn['L1/T0'] = { y: 2026, n: 7 };
    reg.state.country.x = 'y';
    reg.last.set('any', { root: 'TraC', body: {} });
    reg.pending.set(7, Promise.resolve());
    reg.pendingTn.set('L1/T0/7', 7);
    reg.pendingRef.set('FN:1', 7);
    reg.pendingResume.set('2', 7);
    const install = await ra.readBack(new Set([reg.state.rid]));
    assert.equal(reg.state.sq, 7, 'nothing changes before the install');
    const before = reg.state;
    install();
    assert.notEqual(reg.state, before);
    assert.deepEqual([reg.state.sq, reg.state.tn, reg.state.country], [0, {}, {}]);
    assert.deepEqual([reg.last.size, reg.pending.size, reg.pendingTn.size, reg.pendingRef.size, reg.pendingResume.size], [0, 0, 0, 0, 0]);
  } finally {
    await a.close();
    await b.close();
    await scratch.drop();
  }
});
