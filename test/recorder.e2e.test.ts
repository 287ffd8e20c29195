/**
 * The recorder between a real portal (SQLite; one case on PostgreSQL with EFR_TEST_PG)
 * and a real register service: activation by a company badge with TL/TT, the central Cfg replicated, the badge
 * locked, the journal archived in order, the portal stopped and started again mid-way, the service restarted.
 */
import { markArchived } from '../src/register/maintenance/archive-marks.js';
import { journalCutPlan } from '../src/register/maintenance/clean-journal.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, test } from 'node:test';
import { startPortal } from '../src/portal/server.js';
import { get, post, sale, startTestService, tempDir, until } from './helpers.js';
import { STORE_NAME, startTestPortal, companyWithLocation } from './portal-helpers.js';

const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

const state = async (url: string): Promise<Record<string, unknown>> => (await get(`${url}/state`)).json as Record<string, unknown>;

test(`activation by badge and the journal archive (${STORE_NAME})`, async () => {
  const portal = await startTestPortal();
  cleanup.push(() => portal.stop());
  const company = await companyWithLocation(portal);
  const dataDir = tempDir();
  const env = { EFR_PORTAL_URL: portal.url, EFR_RECORDER_RETRY_MS: '50,400' };
  let service = await startTestService({ dataDir, env });
  cleanup.push(() => service.stop());

  // activation: company badge with location and terminal appended
  const badge = `${company.badge}/Shop-1/POS-1`;
  const p = await post(`${service.url}/profile`, { Badge: badge, Attributes: 'Recorder_init=50' });
  assert.equal(p.status, 200, p.text);
  await until('Recorder online', async () => ((await state(service.url)).Recorder === 'online' ? true : undefined));
  const st = await state(service.url);
  assert.equal(st.Online, true);
  const rn = `${company.taxId}$Shop-1_POS-1`;
  const reg = await portal.store.getRegister(rn);
  assert.ok(reg, 'the portal has the register');
  assert.equal(reg.companyId, company.id);
  assert.equal(reg.lastTL, 'Shop-1');
  assert.equal(reg.lastTT, 'POS-1');
  assert.equal(reg.state, 'Productive');
  assert.equal(reg.versionNumber, service.ctx.version);
  // the central Cfg replicated
  const cfg = await get(`${service.url}/cfg`);
  const cfgDoc = (cfg.json.Cfg ?? cfg.json) as Record<string, Record<string, string>>;
  assert.equal(cfgDoc.Cmp?.Nam, 'Café Central GmbH', cfg.text);
  assert.equal(cfgDoc.Loc?.Nam, 'Shop Herrengasse');
  // the badge cannot be changed any more
  const change = await post(`${service.url}/profile`, { Badge: 'AAAA-BBBB-CCCC' });
  assert.equal(change.status, 400);
  assert.match(change.text, /Badge cannot be changed/);
  assert.equal((await post(`${service.url}/profile`, { Badge: badge })).status, 200, 'the same badge again is fine');

  // 200 registrations, all archived in order
  for (let i = 0; i < 200; i++) assert.equal((await post(`${service.url}/register`, sale())).status, 200);
  const head = () => service.ctx.registers.get('def')?.state.sq ?? 0;
  await until('archive complete', async () => ((await state(service.url)).RecQueued === 0 ? true : undefined));
  let rows = await portal.store.archivedRecords(rn, 1, 1_000_000);
  assert.equal(rows.length, head());
  rows.forEach((r, i) => assert.equal(r.sq, i + 1));
  const withTimes = await portal.store.getRegister(rn);
  assert.ok(withTimes?.firstTransaction && withTimes.lastTransaction && withTimes.lastTransaction >= withTimes.firstTransaction);
  assert.equal((await state(service.url)).RecSent, head());

  // the portal stops: registration goes on, the queue grows, retries are pending (the restart reopens the data
  // folder, so this part runs on SQLite; on PostgreSQL the schema URL is the harness's own)
  if (STORE_NAME === 'PostgreSQL') {
    await service.close();
    return;
  }
  const port = portal.port;
  await portal.close();
  for (let i = 0; i < 30; i++) assert.equal((await post(`${service.url}/register`, sale())).status, 200, 'registration does not need the portal');
  await until('a retry pending', async () => {
    const s = await state(service.url);
    return (s.RetryQueued as number) > 0 && (s.RecQueued as number) >= 30 ? true : undefined;
  });
  // a backup now archives everything, but cleaning still keeps what the portal has not confirmed
  const defReg = service.ctx.registers.get('def');
  assert.ok(defReg);
  await markArchived(service.ctx.store, 'def', { sq: head(), at: new Date().toISOString(), kind: 'backup' });
  // (as if a Z had closed everything and no record were needed any more: only the archive limits apply)
  const plan = await journalCutPlan(service.ctx, { ...defReg, state: { ...defReg.state, zSq: head() + 1, last: {}, lastTT: {} } }, '9999-12-31');
  assert.deepEqual([plan.upTo, plan.limit], [Number(await service.ctx.store.getSetting('recorder:sq:def')), 'portal']);
  assert.ok(plan.upTo <= head() - 30);
  // the portal starts again on the same data folder (and port): the archive completes
  const again = await startPortal({ port, host: '127.0.0.1', dataDir: portal.dataDir, log: false });
  cleanup.push(() => again.close());
  await until('archive complete after the outage', async () => ((await state(service.url)).RecQueued === 0 ? true : undefined));
  rows = await again.store.archivedRecords(rn, 1, 1_000_000);
  assert.equal(rows.length, head());
  rows.forEach((r, i) => assert.equal(r.sq, i + 1));

  // the service restarts: it resumes from the confirmed SQ (nothing sent again)
  await service.close();
  service = await startTestService({ dataDir, env });
  // the start's own log record may be queued for a moment; what was confirmed before is not (RecSent below)
  const url = service.url;
  await until('online after the restart, nothing queued', async () => {
    const s = await state(url);
    return s.Recorder === 'online' && s.RecQueued === 0 ? true : undefined;
  });
  for (let i = 0; i < 10; i++) assert.equal((await post(`${service.url}/register`, sale())).status, 200);
  await until('archive after restart', async () => ((await state(service.url)).RecQueued === 0 ? true : undefined));
  // at least the 10 sales went out, nothing before the confirmed SQ
  assert.equal((await state(service.url)).RecSent, head() - rows.length);
  const finalRows = await again.store.archivedRecords(rn, 1, 1_000_000);
  assert.equal(finalRows.length, head());
  finalRows.forEach((r, i) => assert.equal(r.sq, i + 1));
  // a different record for a stored SQ is refused
  const stored = finalRows[0];
  assert.ok(stored);
  const activation = JSON.parse((await service.ctx.store.getSetting('recorder:activation')) as string) as { token: string };
  const other = `${stored.data} `;
  const otherHash = createHash('sha256').update('0'.repeat(64)).update('\n').update(other).digest('hex');
  const conflict = await post(`${again.url}/api/v1/recorder/archive`, { records: [{ sq: 1, data: other, hash: otherHash }] }, { authorization: `Bearer ${activation.token}` });
  assert.equal(conflict.status, 409, conflict.text);
  const resend = await post(`${again.url}/api/v1/recorder/archive`, { records: [{ sq: 1, data: stored.data, hash: stored.hash }] }, { authorization: `Bearer ${activation.token}` });
  assert.equal(resend.status, 200, 'the same record again is accepted');
  await service.close();
});

test('an unknown badge leaves the Recorder inactive with a warning', async () => {
  const portal = await startTestPortal();
  cleanup.push(() => portal.stop());
  const service = await startTestService({ env: { EFR_PORTAL_URL: portal.url } });
  cleanup.push(() => service.stop());
  assert.equal((await post(`${service.url}/profile`, { Badge: 'ZZZZ-ZZZZ-ZZZZ', Attributes: 'Recorder_init=20' })).status, 200);
  const warning = await until('a warning', async () => (await state(service.url)).RecorderWarning as string | undefined);
  assert.match(warning, /refused the activation \(404\)/);
  const st = await state(service.url);
  assert.equal(st.Recorder, 'inactive');
  assert.equal(st.Online, false);
  // not locked: another badge can be saved
  assert.equal((await post(`${service.url}/profile`, { Badge: 'YYYY-YYYY-YYYY' })).status, 200);
});

test('Multi POS: every register is archived under its own register number; one the portal refuses does not hold up the others', async () => {
  const portal = await startTestPortal();
  cleanup.push(() => portal.stop());
  const company = await companyWithLocation(portal);
  const service = await startTestService({ env: { EFR_PORTAL_URL: portal.url, EFR_RECORDER_RETRY_MS: '50,400' } });
  cleanup.push(() => service.stop());
  const rn = (tt: string): string => `${company.taxId}$Shop-1_${tt}`;
  // the portal already holds another record as SQ 1 of POS-1 (as if another instance had archived its journal there)
  await portal.store.putRegister({ registerNumber: rn('POS-1'), companyId: company.id, countryCode: 'AT', lastTL: 'Shop-1', lastTT: 'POS-1', userComment: null, firstTransaction: null, lastTransaction: null, versionNumber: null, state: 'Productive', isCloudEFR: false, dischargeAfter: null }, new Date());
  const foreign = '{"foreign":true}';
  await portal.store.archiveRecords([{ registerNumber: rn('POS-1'), sq: 1, data: foreign, hash: createHash('sha256').update('0'.repeat(64)).update('\n').update(foreign).digest('hex'), d: null }]);

  assert.equal((await post(`${service.url}/profile`, { Badge: company.badge, TaxId: company.taxId, RN_TT: true, Attributes: 'Recorder_init=20' })).status, 200);
  await until('Recorder online', async () => ((await state(service.url)).Recorder === 'online' ? true : undefined));
  for (const tt of ['POS-1', 'POS-2', 'POS-3']) {
    for (let i = 0; i < 3; i++) assert.equal((await post(`${service.url}/register`, sale({ TL: 'Shop-1', TT: tt }))).json.TraC.Result.RC, 'OK');
  }
  const head = (tt: string): number => service.ctx.registers.get(rn(tt))?.state.sq ?? 0;
  // POS-2 and POS-3 are archived completely under their own numbers, though POS-1 is refused
  for (const tt of ['POS-2', 'POS-3']) {
    await until(`${tt} archived`, async () => ((await portal.store.archivedRecords(rn(tt), 1, 1000)).length === head(tt) ? true : undefined));
    const reg = await portal.store.getRegister(rn(tt));
    assert.equal(reg?.companyId, company.id);
    assert.equal(reg?.lastTT, tt);
  }
  const st = await until('the refusal named', async () => {
    const s = await state(service.url);
    return String(s.RecorderWarning ?? '').includes(rn('POS-1')) ? s : undefined;
  });
  assert.match(String(st.RecorderWarning), /refuses the archive of register .*POS-1 \(409\)/);
  assert.ok(Number(st.RetryQueued) > 0);
  assert.equal(st.Online, false, 'not online while a register cannot be archived');
  assert.equal(Number(st.RecQueued), head('POS-1'), 'only POS-1 is left');
  assert.deepEqual((await portal.store.archivedRecords(rn('POS-1'), 1, 1000)).map((r) => r.data), [foreign], 'the portal keeps what it held');
});
