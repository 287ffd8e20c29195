import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../shared/clock.js';
import { type PortalCall, PortalKeySource } from './portal-api-keys.js';

/** A portal that knows one key and secret, counting its calls. */
function fakePortal(): { call: PortalCall; calls: () => number; down: (v: boolean) => void } {
  let n = 0;
  let away = false;
  const call: PortalCall = async (_url, body) => {
    n += 1;
    if (away) throw new Error('connect ECONNREFUSED');
    const b = body as { apiKey: string; apiSecret?: string };
    const valid = b.apiKey === 'ck_AAAAAAAAAAAAAAAA' && (b.apiSecret === undefined || b.apiSecret === 'right');
    return { status: 200, body: { success: true, valid, ...(valid ? { taxId: 'ATU13585627' } : {}) } };
  };
  return { call, calls: () => n, down: (v) => (away = v) };
}

test('portal keys: answers are cached, refusals too (for a short time), simultaneous checks share one call', async () => {
  const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
  const portal = fakePortal();
  const keys = new PortalKeySource(async () => ({ portalUrl: 'http://portal', token: 't' }), portal.call, clock, { cacheMs: 60_000, staleMs: 3_600_000 });
  // simultaneous logins: one call
  const both = await Promise.all([keys.verify('ck_AAAAAAAAAAAAAAAA', 'right'), keys.verify('ck_AAAAAAAAAAAAAAAA', 'right')]);
  assert.deepEqual(both.map((k) => k?.taxId), ['ATU13585627', 'ATU13585627']);
  assert.equal(portal.calls(), 1);
  // a wrong secret: refused, and refused again without asking while the refusal is fresh
  assert.equal(await keys.verify('ck_AAAAAAAAAAAAAAAA', 'wrong'), undefined);
  assert.equal(await keys.verify('ck_AAAAAAAAAAAAAAAA', 'wrong'), undefined);
  assert.equal(await keys.verify('ck_BBBBBBBBBBBBBBBB', 'x'), undefined);
  assert.equal(await keys.verify('ck_BBBBBBBBBBBBBBBB', 'x'), undefined);
  assert.equal(portal.calls(), 3, 'one call per refused key and secret');
  // after 10 s a refusal is asked again
  clock.advance(10_001);
  assert.equal(await keys.verify('ck_BBBBBBBBBBBBBBBB', 'x'), undefined);
  assert.equal(portal.calls(), 4);
  // the portal away: the known key still logs in (cached), an unknown one is told to try again
  clock.advance(60_000);
  portal.down(true);
  assert.equal((await keys.verify('ck_AAAAAAAAAAAAAAAA', 'right'))?.taxId, 'ATU13585627');
  await assert.rejects(keys.verify('ck_CCCCCCCCCCCCCCCC', 'x'), (e: Error) => /temporarily|try again/i.test(e.message));
  // not a portal key: never asked
  const before = portal.calls();
  assert.equal(await keys.verify('ak_local', 'x'), undefined);
  assert.equal(portal.calls(), before);
});
