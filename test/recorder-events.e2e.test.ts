/**
 * The register service's event reporter against a real portal: a German register activated by
 * badge reports its TSE put into service; while the portal is away a TSE failure and a nearly full disk are
 * queued durably (they survive a restart of the service) and are delivered once the portal is up again; the
 * TSE answering again and the disk freed close the portal's notifications. The portal restarts on its data
 * folder, so this runs on SQLite only.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser } from 'mailparser';
import { tseDir } from '../src/register/fiscal/de/tse.js';
import { EVENTS_KEY, EventReporter } from '../src/register/recorder/events.js';
import { fiscalStateEvents } from '../src/register/recorder/fiscal-state-events.js';
import { type RunningPortal, startPortal } from '../src/portal/server.js';
import type { Notification } from '../src/portal/store/types.js';
import { get, post, startTestService, tempDir, until } from './helpers.js';
import { STORE_NAME, startTestPortal } from './portal-helpers.js';

const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

const receipt = (): object => ({
  Tra: { ESR: { TL: 'Shop-1', TT: 'POS-1', PosA: [{ _: 'Pos', Dsc: 'Brot', TaxG: 'B', Amt: '1.50' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '1.50' }] } },
});

test('fiscalStateEvents: initialization, failure and recovery of the German TSE; nothing else', () => {
  assert.deepEqual(fiscalStateEvents({}, { 'de|initialized': '1' }).map((e) => e.code), ['TSE_ACTIVATED']);
  assert.deepEqual(fiscalStateEvents({ 'de|initialized': '1' }, { 'de|initialized': '1', 'de|failedSince': '100' }).map((e) => e.code), ['TSE_FAILURE']);
  assert.deepEqual(fiscalStateEvents({ 'de|initialized': '1', 'de|failedSince': '100', 'de|failedCount': '2' }, { 'de|initialized': '1' }).map((e) => e.code), ['TSE_RECOVERED']);
  assert.match(fiscalStateEvents({ 'de|failedSince': '100', 'de|failedCount': '2' }, {})[0]?.detail ?? '', /2 operation/);
  assert.deepEqual(fiscalStateEvents({ 'de|initialized': '1', 'de|failedSince': '100' }, { 'de|initialized': '1', 'de|failedSince': '100', 'de|failedCount': '3' }), [], 'still failing: nothing new');
  assert.deepEqual(fiscalStateEvents({ 'de|sigCnt': '4' }, { 'de|sigCnt': '5' }), []);
  assert.deepEqual(fiscalStateEvents({}, {}), []);
});

test(`events reach the portal, also after an outage and a restart of the service (${STORE_NAME})`, { skip: STORE_NAME === 'PostgreSQL' ? 'the portal restarts on its data folder' : false }, async () => {
  let portal: RunningPortal & { dataDir?: string } = await startTestPortal();
  const first = portal as Awaited<ReturnType<typeof startTestPortal>>;
  cleanup.push(() => first.stop());
  const c = await first.call('POST', '/api/v1/companies', { parentEntityId: first.rootId, name: 'Bäckerei Berlin GmbH', taxId: 'DE136695976', address: 'Unter den Linden 1', city: 'Berlin', zip: '10115', countryCode: 'DE' });
  assert.equal(c.status, 200, c.text);
  const company = c.json.company as { id: number; badge: string; taxId: string };
  assert.equal((await first.call('POST', '/api/v1/contacts', { companyId: company.id, contactName: 'IT', emailAddress: 'it@baeckerei.example', contactType: 'TechnicalContact', languageCode: 'de' })).status, 200);

  const dataDir = tempDir();
  // the disk is checked by the test only (EFR_DISK_CHECK_MS=0), with the readings it gives
  const env = { EFR_PORTAL_URL: portal.url, EFR_RECORDER_RETRY_MS: '50,400', EFR_DISK_CHECK_MS: '0' };
  let service = await startTestService({ dataDir, env });
  cleanup.push(() => service.stop());
  // the service's own reporter, as the server made it
  const withReporter = (): EventReporter => {
    const r = service.ctx.events;
    assert.ok(r instanceof EventReporter, 'the service reports events');
    return r;
  };
  let reporter = withReporter();

  assert.equal((await post(`${service.url}/profile`, { Badge: `${company.badge}/Shop-1/POS-1`, Attributes: 'Recorder_init=50' })).status, 200);
  await until('Recorder online', async () => ((await get(`${service.url}/state`)).json?.Recorder === 'online' ? true : undefined));
  const rn = `${company.taxId}$Shop-1_POS-1`;
  const notes = async (store = portal.store): Promise<Notification[]> => (await store.listNotifications([company.id])).filter((n) => n.registerNumber === rn);

  // the first German receipt initializes the TSE: TSE_ACTIVATED
  const one = await post(`${service.url}/register`, receipt());
  assert.equal(one.json.TraC?.Result?.RC, 'OK', one.text);
  assert.ok(one.json.TraC.Fis.Code, 'a German receipt (the central Cfg made the register DE)');
  const activated = await until('TSE_ACTIVATED at the portal', async () => (await notes()).find((n) => n.eventCode === 'TSE_ACTIVATED'));
  assert.equal(activated.level, 1);
  assert.match(activated.texts.de?.long ?? '', /software TSE initialized/);
  assert.equal((await post(`${service.url}/register`, receipt())).status, 200);
  await reporter.settled();
  assert.equal((await notes()).filter((n) => n.eventCode === 'TSE_ACTIVATED').length, 1, 'once: later receipts do not initialize again');

  // the portal goes away; the TSE fails and the disk fills meanwhile
  const port = portal.port;
  await portal.close();
  const key = join(tseDir(dataDir, 'def'), 'tse.key.pem');
  renameSync(key, `${key}.gone`);
  // registration goes on without the portal
  const failed = await post(`${service.url}/register`, receipt());
  assert.equal(failed.json.TraC?.Result?.RC, 'OK', failed.text);
  assert.match(failed.text, /TSE ausgefallen/);
  assert.equal((await post(`${service.url}/register`, receipt())).status, 200, 'still failing: no new event');
  await reporter.checkDisk({ quotaUsed: 0.95, free: 0.5 });
  await reporter.checkDisk({ quotaUsed: 0.97, free: 0.5 });
  await reporter.settled();
  assert.deepEqual((await reporter.queued()).map((e) => [e.rn, e.eventCode]), [['def', 'TSE_FAILURE'], ['def', 'DISK_NEARLY_FULL']], 'queued once each');
  await sleep(300); // attempts fail meanwhile
  assert.deepEqual((await reporter.queued()).map((e) => e.eventCode), ['TSE_FAILURE', 'DISK_NEARLY_FULL'], 'kept while the portal is away');

  // the service restarts meanwhile: the queue is in the journal store's settings
  await reporter.close();
  await service.close();
  service = await startTestService({ dataDir, env });
  assert.match((await service.ctx.store.getSetting(EVENTS_KEY)) ?? '', /TSE_FAILURE.*DISK_NEARLY_FULL/);
  reporter = withReporter();
  await sleep(200);
  assert.equal((await reporter.queued()).length, 2);

  // the portal is back on the same data folder and port: the events are delivered, in order
  portal = await startPortal({ port, host: '127.0.0.1', dataDir: first.dataDir, log: false });
  const again = portal;
  cleanup.push(() => again.close());
  await until('the queue delivered', async () => ((await reporter.queued()).length === 0 ? true : undefined));
  const open = (await notes()).filter((n) => n.closedAt === null);
  assert.deepEqual(open.map((n) => n.eventCode).sort(), ['DISK_NEARLY_FULL', 'TSE_FAILURE']);
  assert.match(open.find((n) => n.eventCode === 'DISK_NEARLY_FULL')?.texts.en?.long ?? '', /95 % of DiskQuota used/);
  assert.equal(reporter.sent, 2);

  // the TSE answers again, the disk is freed: both closed at the portal
  renameSync(`${key}.gone`, key);
  assert.equal((await post(`${service.url}/register`, receipt())).json.TraC?.Result?.RC, 'OK');
  await until('TSE_FAILURE closed', async () => ((await notes()).find((n) => n.eventCode === 'TSE_FAILURE')?.closedAt ? true : undefined));
  await reporter.checkDisk({ quotaUsed: 0.88, free: 0.5 });
  await reporter.settled();
  assert.equal((await reporter.queued()).length, 0);
  assert.equal((await notes()).find((n) => n.eventCode === 'DISK_NEARLY_FULL')?.closedAt, null, 'between the thresholds: still nearly full');
  await reporter.checkDisk({ quotaUsed: 0.5, free: 0.5 });
  await until('both closed', async () => ((await notes()).every((n) => n.closedAt !== null) ? true : undefined));
  assert.deepEqual((await notes()).map((n) => n.eventCode).sort(), ['DISK_NEARLY_FULL', 'TSE_ACTIVATED', 'TSE_FAILURE']);

  // mail of the failure went to the technical contact (outbox of the restarted portal), in German
  await portal.context.notifier?.idle();
  const dir = join(first.dataDir, 'portal', 'outbox');
  const mails = await Promise.all(readdirSync(dir).map((n) => simpleParser(readFileSync(join(dir, n)))));
  assert.ok(mails.some((m) => m.subject === `[efr] TSE-Ausfall bei Kasse ${rn}`), mails.map((m) => m.subject).join(' | '));
  await reporter.close();
});
