/**
 * When the journal cannot be written the POS gets RC NO (406, retry), the register's head is read back
 * from the store, and the next registration continues the chain without a gap. The failure is injected
 * into the real SQLite store of a real service.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post, sale, startTestService } from './helpers.js';
import { verifyJournal } from './verify-journal.js';

test('a failed commit answers NO #JOURNAL; the next transaction continues SQ, FN and the chain', async () => {
  const svc = await startTestService();
  try {
    const first = await post(`${svc.url}/register`, sale());
    assert.equal(first.json.TraC.SQ, 1);
    const store = svc.ctx.store;
    const realAppend = store.append.bind(store);
    store.append = async () => {
      throw new Error('disk full (injected)');
    };
    const failed = await Promise.all([post(`${svc.url}/register`, sale()), post(`${svc.url}/register`, sale({ TT: '2' }))]);
    for (const f of failed) {
      assert.equal(f.status, 406);
      assert.equal(f.json.TraC.Result.RC, 'NO');
      assert.equal(f.json.TraC.Result.ErrorCode, '#JOURNAL');
    }
    store.append = realAppend;
    const next = await post(`${svc.url}/register`, sale());
    assert.equal(next.json.TraC.Result.RC, 'OK', next.text);
    assert.equal(next.json.TraC.SQ, 2, 'no gap in SQ');
    assert.equal(next.json.TraC.ESR.FN, '2', 'no gap in FN');
    assert.equal(next.json.TraC.ESR.TN, '2', 'no gap in TN');
    const report = await verifyJournal(svc.dataDir);
    assert.ok(report.ok, JSON.stringify(report));
    assert.equal(report.count, 2);
  } finally {
    await svc.stop();
  }
});
