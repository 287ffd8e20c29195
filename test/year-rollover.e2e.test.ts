/** TN restarts at 1 in a new year (injected clock); D is validated against that clock. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../src/shared/clock.js';
import { post, sale, startTestService } from './helpers.js';

test('automatic TN counts up and restarts at 1 on change of year, per TL/TT', async () => {
  const clock = new ManualClock(new Date(2026, 11, 31, 23, 59, 50));
  const svc = await startTestService({ clock });
  try {
    const tns: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await post(`${svc.url}/register`, sale());
      assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
      tns.push(r.json.TraC.ESR.TN);
    }
    assert.deepEqual(tns, ['1', '2', '3']);
    const other = await post(`${svc.url}/register`, sale({ TT: '2' }));
    assert.equal(other.json.TraC.ESR.TN, '1');
    clock.advance(15_000); // 2027-01-01T00:00:05
    const next = await post(`${svc.url}/register`, sale());
    assert.equal(next.json.TraC.ESR.D, '2027-01-01T00:00:05');
    assert.equal(next.json.TraC.ESR.TN, '1');
    const after = await post(`${svc.url}/register`, sale());
    assert.equal(after.json.TraC.ESR.TN, '2');
    assert.equal(after.json.TraC.SQ, 6, 'SQ does not restart');
    assert.equal(after.json.TraC.ESR.FN, '6', 'FN does not restart');
    // a late receipt dated in the old year continues the old year's numbers
    const late = await post(`${svc.url}/register`, sale({ TT: '2', D: '2026-12-31T23:59:58' }));
    assert.equal(late.json.TraC.ESR.TN, '2');
    // the same TN is allowed again in the new year, but not twice in one year
    const reused = await post(`${svc.url}/register`, sale({ TN: '3' }));
    assert.equal(reused.json.TraC.Result.RC, 'OK', reused.text);
    const again = await post(`${svc.url}/register`, sale({ TN: '3' }, [['A', '5.00']]));
    assert.equal(again.json.TraC.Result.ErrorCode, '#TN_USED');
    // Normalize_D is measured from the injected clock
    const tooOld = await post(`${svc.url}/register`, sale({ D: '2026-12-24T12:00:00' }));
    assert.equal(tooOld.json.TraC.Result.ErrorCode, '#DATE_RANGE');
    const inRange = await post(`${svc.url}/register`, sale({ D: '2026-12-25T12:00:00' }));
    assert.equal(inRange.json.TraC.Result.RC, 'OK', inRange.text);
  } finally {
    await svc.stop();
  }
});
