/**
 * What the portal receives from recorders when batches repeat, race or break the chain, on real portals (SQLite;
 * PostgreSQL with EFR_TEST_PG): an archive batch that does not join what the portal holds is refused; two portal
 * processes escalating at once mail once; a condition that comes back within the reopen period reopens its
 * notification without mail; events sent again with their ids are processed once; the receipt page's guess limit
 * tells clients apart behind a trusted proxy.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ManualClock } from '../src/shared/clock.js';
import { startPortal } from '../src/portal/server.js';
import { http } from './helpers.js';
import { STORE_NAME, type TestPortal, startTestPortal } from './portal-helpers.js';

const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

const MIN = 60_000;
const GENESIS = '0'.repeat(64);
const chain = (prev: string, data: string): string => createHash('sha256').update(prev).update('\n').update(data).digest('hex');

/** Records SQ from..to of a made-up journal whose record `from - 1` has the hash `prev`. */
function records(from: number, to: number, prev: string): Array<{ sq: number; data: string; hash: string }> {
  const out: Array<{ sq: number; data: string; hash: string }> = [];
  let h = prev;
  for (let sq = from; sq <= to; sq++) {
    const data = `{"_":"Log","SQ":${sq}}`;
    h = chain(h, data);
    out.push({ sq, data, hash: h });
  }
  return out;
}

async function activated(p: TestPortal, registerNumber: string, contacts = false): Promise<{ companyId: number; token: string }> {
  const c = await p.call('POST', '/api/v1/companies', { parentEntityId: p.rootId, name: `Firma ${registerNumber}`, taxId: 'ATU13585627', address: 'Graben 1', city: 'Wien', zip: '1010', countryCode: 'AT' });
  assert.equal(c.status, 200, c.text);
  const company = c.json.company as { id: number; badge: string };
  if (contacts) {
    const r = await p.call('POST', '/api/v1/contacts', { companyId: company.id, contactName: 'IT', emailAddress: 'it@example.at', contactType: 'TechnicalContact', languageCode: 'en' });
    assert.equal(r.status, 200, r.text);
  }
  const a = await http('POST', `${p.url}/api/v1/recorder/activate`, { badge: company.badge, registerNumber });
  assert.equal(a.status, 200, a.text);
  return { companyId: company.id, token: a.json.token as string };
}

const archive = (p: TestPortal, token: string, recs: unknown[]) => http('POST', `${p.url}/api/v1/recorder/archive`, { records: recs }, { authorization: `Bearer ${token}` });
const report = (url: string, token: string, events: unknown[]) => http('POST', `${url}/api/v1/recorder/events`, { events }, { authorization: `Bearer ${token}` });

function outboxCount(dataDir: string): number {
  try {
    return readdirSync(join(dataDir, 'portal', 'outbox')).filter((n) => n.endsWith('.eml')).length;
  } catch {
    return 0;
  }
}

test(`archive: a batch that does not join the records held is refused; a cleaned journal still starts the archive (${STORE_NAME})`, async () => {
  const p = await startTestPortal();
  cleanup.push(() => p.stop());
  // a journal cleaned before activation: the archive starts at its first record held (SQ 5)
  const cleaned = await activated(p, 'ATU1-CLEANED');
  const all = records(1, 12, GENESIS);
  const first = await archive(p, cleaned.token, all.slice(4, 7));
  assert.equal(first.status, 200, first.text);
  assert.deepEqual([first.json.confirmedSq, first.json.stored], [7, 3]);
  // the same batch again (its answer was lost): accepted, nothing new
  const again = await archive(p, cleaned.token, all.slice(4, 8));
  assert.equal(again.status, 200, again.text);
  assert.deepEqual([again.json.stored, again.json.repeated], [1, 3]);
  // a gap: SQ 10 and 11 while the archive ends at 8
  const gap = await archive(p, cleaned.token, all.slice(9, 11));
  assert.equal(gap.status, 409, gap.text);
  assert.equal(gap.json.errorCode, 'CONFLICT');
  assert.ok(gap.json.validationErrors?.['records.0.sq'], gap.text);
  assert.match(gap.text, /holds records of this register but not SQ 9/);
  assert.deepEqual((await p.store.archivedRecords('ATU1-CLEANED', 1, 100)).map((r) => r.sq), [5, 6, 7, 8], 'nothing of the refused batch stored');
  // a batch whose hashes are not of this journal at all, after a gap: refused, not stored unchecked
  const foreign = records(20, 21, 'f'.repeat(64));
  assert.equal((await archive(p, cleaned.token, foreign)).status, 409);
  // the missing record first: then it joins
  assert.equal((await archive(p, cleaned.token, all.slice(8, 11))).status, 200);
  assert.deepEqual((await p.store.archivedRecords('ATU1-CLEANED', 1, 100)).map((r) => r.sq), [5, 6, 7, 8, 9, 10, 11]);

  // a register archived from SQ 1: a batch from SQ 5 while 1..3 are held is refused
  const full = await activated(p, 'ATU1-FULL');
  const j = records(1, 6, GENESIS);
  assert.equal((await archive(p, full.token, j.slice(0, 3))).status, 200);
  const skip = await archive(p, full.token, j.slice(4, 6));
  assert.equal(skip.status, 409, skip.text);
  assert.match(skip.text, /records\.0\.sq/);
  assert.equal((await archive(p, full.token, j.slice(3, 6))).status, 200);
  assert.equal(await p.store.lastArchivedSq('ATU1-FULL'), 6);
});

test(`two portal processes escalate an open notification once and mail it once (SQLite, one data folder)`, { skip: STORE_NAME === 'PostgreSQL' ? 'two portals on one data folder' : false }, async () => {
  const clock = new ManualClock(new Date('2026-03-02T08:00:00.000Z'));
  const options = { escalateAfterMs: 60 * MIN, silentAfterMs: 1000 * 60 * MIN, schedulerIntervalMs: 3_600_000 };
  const a = await startTestPortal({ clock, portal: options });
  cleanup.push(() => a.stop());
  const b = await startPortal({ port: 0, host: '127.0.0.1', dataDir: a.dataDir, log: false, clock, ...options });
  cleanup.push(() => b.close());
  const s = await activated(a, 'ATU1-ESC', true);
  const r = await report(a.url, s.token, [{ eventCode: 'TSE_FAILURE', at: clock.now().toISOString() }]);
  assert.equal(r.json.raised, 1, r.text);
  await a.context.notifier?.idle();
  assert.equal(outboxCount(a.dataDir), 1, 'mailed when raised');
  clock.advance(61 * MIN);
  await Promise.all([a.scheduler.runNow(), b.scheduler.runNow()]);
  await Promise.all([a.context.notifier?.idle(), b.context.notifier?.idle()]);
  const n = await a.store.openNotification('ATU1-ESC', 'TSE_FAILURE');
  assert.equal(n?.level, 3, 'one level up (from 2)');
  assert.equal(outboxCount(a.dataDir), 2, 'the escalation mailed once, not by both processes');
  assert.equal((a.context.notifier?.counts.sent ?? 0) + (b.context.notifier?.counts.sent ?? 0), 2);
});

test(`flapping: a condition back within the reopen period reopens its notification, mailed nothing (${STORE_NAME})`, async () => {
  const clock = new ManualClock(new Date('2026-03-02T08:00:00.000Z'));
  const p = await startTestPortal({ clock, portal: { reopenWithinMs: 10 * MIN, schedulerIntervalMs: 3_600_000 } });
  cleanup.push(() => p.stop());
  const s = await activated(p, 'ATU1-FLAP', true);
  const at = () => clock.now().toISOString();
  assert.equal((await report(p.url, s.token, [{ eventCode: 'TSE_FAILURE', at: at() }])).json.raised, 1);
  await p.context.notifier?.idle();
  assert.equal(outboxCount(p.dataDir), 1);
  clock.advance(MIN);
  assert.equal((await report(p.url, s.token, [{ eventCode: 'TSE_RECOVERED', at: at() }])).json.closed, 1);
  clock.advance(9 * MIN);
  const back = await report(p.url, s.token, [{ eventCode: 'TSE_FAILURE', at: at() }]);
  assert.deepEqual([back.json.raised, back.json.repeated], [0, 1], back.text);
  const list = (await p.store.listNotifications([s.companyId])).filter((n) => n.eventCode === 'TSE_FAILURE');
  assert.equal(list.length, 1, 'the same notification');
  assert.equal(list[0]?.closedAt, null, 'open again');
  assert.equal(list[0]?.initialTimestamp, '2026-03-02T08:00:00.000Z', 'since the first failure');
  await p.context.notifier?.idle();
  assert.equal(outboxCount(p.dataDir), 1, 'no mail for the reopening');
  // closed again, and back after more than the period: a new notification, mailed
  assert.equal((await report(p.url, s.token, [{ eventCode: 'TSE_RECOVERED', at: at() }])).json.closed, 1);
  clock.advance(10 * MIN + 1000);
  assert.equal((await report(p.url, s.token, [{ eventCode: 'TSE_FAILURE', at: at() }])).json.raised, 1);
  assert.equal((await p.store.listNotifications([s.companyId])).filter((n) => n.eventCode === 'TSE_FAILURE').length, 2);
  await p.context.notifier?.idle();
  assert.equal(outboxCount(p.dataDir), 2);
  // a notice (TSE_ACTIVATED) is never reopened: each is its own
  assert.equal((await report(p.url, s.token, [{ eventCode: 'TSE_ACTIVATED', at: at() }])).json.raised, 1);
  assert.equal((await report(p.url, s.token, [{ eventCode: 'TSE_ACTIVATED', at: at() }])).json.raised, 1);
});

test(`events with ids: a batch sent again (also by two processes at once) raises and mails nothing twice (${STORE_NAME})`, async () => {
  const p = await startTestPortal();
  cleanup.push(() => p.stop());
  const s = await activated(p, 'ATU1-IDS', true);
  const now = new Date().toISOString();
  const batch = [
    { id: 'evt_0000000001', eventCode: 'TSE_ACTIVATED', at: now, detail: 'TSE 1' },
    { id: 'evt_0000000002', eventCode: 'TSE_FAILURE', at: now },
    { id: 'evt_0000000003', eventCode: 'TSE_RECOVERED', at: now },
  ];
  const first = await report(p.url, s.token, batch);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual([first.json.raised, first.json.repeated, first.json.closed], [2, 0, 1]);
  const again = await report(p.url, s.token, batch);
  assert.deepEqual([again.json.raised, again.json.repeated, again.json.closed], [0, 3, 0], again.text);
  const notes = await p.store.listNotifications([s.companyId]);
  assert.deepEqual(notes.map((n) => n.eventCode).sort(), ['TSE_ACTIVATED', 'TSE_FAILURE'], 'one notice, one failure');
  assert.ok(notes.every((n) => n.closedAt !== null), 'the failure stays closed (its recovery is not replayed over a reopen)');
  // two processes sending the same new batch at once
  const next = [{ id: 'evt_0000000004', eventCode: 'TSE_ACTIVATED', at: now, detail: 'TSE 2' }];
  const both = await Promise.all([report(p.url, s.token, next), report(p.url, s.token, next)]);
  assert.deepEqual(both.map((r) => r.json.raised).sort(), [0, 1]);
  await p.context.notifier?.idle();
  assert.equal(outboxCount(p.dataDir), 3, 'TSE 1, the failure, TSE 2: each mailed once');
  // without an id an event is processed each time (as before); a malformed id is 400
  assert.equal((await report(p.url, s.token, [{ eventCode: 'TSE_ACTIVATED', at: now }])).json.raised, 1);
  assert.equal((await report(p.url, s.token, [{ eventCode: 'TSE_ACTIVATED', at: now }])).json.raised, 1);
  for (const id of ['short', 'x'.repeat(65), 'evt 0000000001', 'evt/00000001']) {
    const bad = await report(p.url, s.token, [{ id, eventCode: 'TSE_ACTIVATED', at: now }]);
    assert.equal(bad.status, 400, `${id}: ${bad.text}`);
    assert.match(JSON.stringify(bad.json.validationErrors), /id/);
  }
  // ids are kept for 30 days, then pruned by the scheduler
  assert.equal(await p.store.claimEvent('ATU1-IDS', 'evt_0000000001', now), false);
});

test(`receipt page guess limit: clients behind a trusted proxy are told apart; without trust X-Forwarded-For is ignored (${STORE_NAME})`, async () => {
  const miss = (url: string, xff: string) => http('GET', `${url}/r/AAAAAAAAAAAAAAAAAAAAA`, undefined, { 'x-forwarded-for': xff });
  const trusted = await startTestPortal({ portal: { trustProxy: true } });
  cleanup.push(() => trusted.stop());
  for (let i = 0; i < 30; i++) assert.equal((await miss(trusted.url, '198.51.100.7')).status, 404);
  const blocked = await fetch(`${trusted.url}/r/AAAAAAAAAAAAAAAAAAAAA`, { headers: { 'x-forwarded-for': '198.51.100.7' } });
  assert.equal(blocked.status, 429);
  assert.ok(Number(blocked.headers.get('retry-after')) > 0);
  await blocked.arrayBuffer();
  assert.equal((await miss(trusted.url, '198.51.100.8')).status, 404, 'another client behind the proxy');
  assert.equal((await miss(trusted.url, '2001:db8:0:1::1')).status, 404);
  for (let i = 0; i < 29; i++) await miss(trusted.url, `2001:db8:0:1::${(i + 2).toString(16)}`);
  assert.equal((await miss(trusted.url, '2001:db8:0:1:ffff::1')).status, 429, 'an IPv6 client counted by its /64');
  assert.equal((await miss(trusted.url, '2001:db8:0:2::1')).status, 404, 'another /64');

  const plain = await startTestPortal();
  cleanup.push(() => plain.stop());
  for (let i = 0; i < 30; i++) assert.equal((await miss(plain.url, `198.51.100.${i}`)).status, 404);
  assert.equal((await miss(plain.url, '203.0.113.1')).status, 429, 'not trusted: all one client (the proxy)');
});
