/**
 * Several register-service processes on one PostgreSQL journal, on the real server
 * (EFR_TEST_PG, default postgres://postgres@127.0.0.1:5432/test), each test in a fresh schema, the services
 * sharing one data folder (instance key). Any process may serve any register: a transaction sealed on a
 * register state another process has moved on from is refused by the journal, the state read back and the
 * transaction run again from the start, so SQ and TN stay gapless and every chain single.
 *
 * 1. Two services in this process: automatic TNs through both, the same TL/TT/TN through both at once.
 * 2. A whole cloud deployment: a portal on PostgreSQL and two `efr serve --db` processes,
 *    Multi POS activated at the portal by the company's badge, 20 terminals, 2,000 transactions spread over both
 *    (some of a terminal through both at once, some the very same through both), the process that sends the
 *    journal archive killed -9 mid-way and its unanswered transactions sent again to the other, the portal
 *    stopped and started again during the run; then every register's export verifies, every transaction
 *    answered OK is in the journal once with its amounts, the portal's archive of every register is the journal
 *    record for record, and a terminal that stopped early is reported silent (notification and mail).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import pg from 'pg';
import { startService, type RunningService } from '../src/register/server.js';
import { verifyZip } from '../src/register/journal/export/verify-zip.js';
import { createScratchSchema } from './scratch-schema.js';
import { type RunningPortal, startPortal } from '../src/portal/server.js';
import { ManualClock } from '../src/shared/clock.js';
import { ROOT, type HttpAnswer, freePort, get, post, sale, tempDir, unzip, until } from './helpers.js';
import { type TestPortal, startTestPortal } from './portal-helpers.js';

interface JouRecord {
  SQ: number;
  _: string;
  data: string;
}

interface Exported {
  firstSQ: number;
  lastSQ: number;
  records: JouRecord[];
}

/** GET /export?type=jou of a register: verified by verifyZip, its records read from the .jou files. */
async function exportVerified(url: string, rn: string, work: string): Promise<Exported> {
  const res = await request(`${url}/export?type=jou&rn=${encodeURIComponent(rn)}`);
  const body = Buffer.from(await res.body.arrayBuffer());
  assert.equal(res.statusCode, 200, body.toString('utf8', 0, 300));
  const dir = join(work, rn.replace(/[^A-Za-z0-9]/g, '_'));
  mkdirSync(dir, { recursive: true });
  const zip = join(dir, 'export.zip');
  writeFileSync(zip, body);
  const report = await verifyZip(zip);
  assert.ok(report.ok, `${rn}: ${JSON.stringify(report)}`);
  const files = await unzip(body, dir);
  const manifest = JSON.parse(files['manifest.json'] ?? '{}') as { firstSQ: number; lastSQ: number };
  const records = Object.keys(files)
    .filter((f) => f.endsWith('.jou'))
    .sort()
    .flatMap((f) => JSON.parse(files[f] ?? '[]') as JouRecord[]);
  return { firstSQ: manifest.firstSQ, lastSQ: manifest.lastSQ, records };
}

/** The ESR of the Tra records of an export, with their SQ. */
function transactions(exp: Exported): Array<{ sq: number; esr: { TN?: string; PosA?: Array<{ Amt?: string }>; PayA?: Array<{ Amt?: string }> } }> {
  return exp.records.filter((r) => r._ === 'Tra').map((r) => ({ sq: r.SQ, esr: (JSON.parse(r.data) as { ESR: { TN?: string } }).ESR }));
}

async function heads(db: string): Promise<Map<string, number>> {
  const c = new pg.Client({ connectionString: db });
  await c.connect();
  try {
    const rows = (await c.query<{ rn: string; sq: string }>('SELECT rn, sq FROM journal_registers')).rows;
    return new Map(rows.map((r) => [r.rn, Number(r.sq)]));
  } finally {
    await c.end();
  }
}

const rcOf = (a: HttpAnswer): string => `${a.json?.TraC?.Result?.RC ?? a.status}${a.json?.TraC?.Result?.ErrorCode ? ` ${a.json.TraC.Result.ErrorCode}` : ''}`;

test('two services on one PostgreSQL journal: automatic TNs through both stay gapless, the same TN through both is registered once', async () => {
  const scratch = await createScratchSchema(undefined, 'efr_mp_');
  const db = scratch.schemaUrl;
  const dataDir = tempDir('efr-mp-');
  const work = tempDir('efr-mp-export-');
  const services: RunningService[] = [];
  try {
    const start = async (): Promise<RunningService> => {
      const svc = await startService({ port: 0, host: '127.0.0.1', dataDir, db, log: false, env: {} });
      services.push(svc);
      return svc;
    };
    const a = await start();
    const b = await start();
    // the register is created through A; B meets it when it registers (created meanwhile: RegisterExists)
    const first = await post(`${a.url}/register`, sale());
    assert.equal(rcOf(first), 'OK', first.text);
    const second = await post(`${b.url}/register`, sale());
    assert.equal(rcOf(second), 'OK', second.text);
    assert.deepEqual([second.json.TraC.SQ, second.json.TraC.ESR.TN], [2, '2']);
    // A's memory of the register is stale now: its commit is refused, the state read back, the transaction run again
    const third = await post(`${a.url}/register`, sale());
    assert.deepEqual([rcOf(third), third.json.TraC.SQ, third.json.TraC.ESR.TN], ['OK', 3, '3']);
    assert.ok(a.ctx.committer.stale.retried >= 1, JSON.stringify(a.ctx.committer.stale));

    // automatic TNs through both at once: every one OK, SQ and TN gapless over both
    const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => post(`${(i % 2 ? a : b).url}/register`, sale({}, [['A', `${i + 1}.00`]]))));
    for (const r of burst) assert.equal(rcOf(r), 'OK', r.text);
    const sqs = burst.map((r) => Number(r.json.TraC.SQ)).sort((x, y) => x - y);
    const tns = burst.map((r) => Number(r.json.TraC.ESR.TN)).sort((x, y) => x - y);
    assert.deepEqual(sqs, Array.from({ length: 60 }, (_, i) => i + 4), 'SQ gapless over both services');
    assert.deepEqual(tns, Array.from({ length: 60 }, (_, i) => i + 4), 'TN gapless over both services');
    assert.ok(a.ctx.committer.stale.retried + b.ctx.committer.stale.retried > 1);

    // the very same TL/TT/TN through both at once: one is registered, the other answers #DUPLICATE with its answer
    for (let k = 0; k < 6; k++) {
      const body = sale({ TN: String(1000 + k) }, [['B', `${k + 1}.50`]]);
      const [x, y] = await Promise.all([post(`${a.url}/register`, body), post(`${b.url}/register`, body)]);
      const codes = [rcOf(x), rcOf(y)].sort();
      assert.deepEqual(codes, ['OK', 'OK #DUPLICATE'], `${x.text} ${y.text}`);
      assert.equal(x.json.TraC.SQ, y.json.TraC.SQ);
      assert.equal(x.json.TraC.ESR.FN, y.json.TraC.ESR.FN);
      assert.deepEqual(x.json.TraC.Fis, y.json.TraC.Fis);
    }

    // nothing of a refused attempt stays in memory: each service's state of the register is the stored one,
    // once it has written last (its state is then the stored one, byte for byte), and no record is pending
    for (const svc of [a, b]) {
      const r = await post(`${svc.url}/register`, sale());
      assert.equal(rcOf(r), 'OK', r.text);
      const reg = svc.ctx.registers.get('def');
      assert.ok(reg);
      assert.equal(reg.pending.size + reg.pendingTn.size + reg.pendingRef.size + reg.pendingResume.size, 0);
      const stored = (await svc.ctx.store.loadRegisters()).find((s) => s.rn === 'def');
      assert.deepEqual(reg.state, stored);
    }

    // a third service, started now, sees everything: its export verifies and holds every TN once
    const c = await start();
    const head = (await heads(db)).get('def') ?? 0;
    // and the start of the third service, journaled as START_EFR
    assert.equal(head, 3 + 60 + 6 + 2 + 1);
    const exp = await exportVerified(c.url, 'def', work);
    assert.deepEqual([exp.firstSQ, exp.lastSQ, exp.records.length], [1, head, head]);
    const journalTns = transactions(exp).map((t) => Number(t.esr.TN)).sort((x, y) => x - y);
    // (an automatic TN follows the highest one of the terminal: 1006 and 1007 after the POS's 1000 to 1005)
    assert.deepEqual(journalTns, [...Array.from({ length: 63 }, (_, i) => i + 1), ...Array.from({ length: 8 }, (_, k) => 1000 + k)]);
  } finally {
    for (const s of services) await s.close();
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});

interface Proc {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** `efr serve --db <url>` as a real process on the shared data folder. */
async function serve(dataDir: string, db: string, env: Record<string, string> = {}): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', dataDir, '--db', db], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, EFR_DB: '', ...env },
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    assert.equal(child.exitCode, null, `the service exited: ${out}`);
    if (await get(`${url}/state`).then((r) => r.status === 200, () => false)) return { child, url, output: () => out, exited };
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      assert.fail(`the service did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const TERMINALS = 20;
const PER_TERMINAL = 100;
const TAX_ID = 'ATU13585627';
const tt = (t: number): string => `T${String(t).padStart(2, '0')}`;
const rnOf = (t: number): string => `${TAX_ID}$L1_${tt(t)}`;
/** The amounts of transaction TN n of terminal t: distinct per transaction, so that a record is matched by them. */
const amounts = (t: number, n: number): [string, string] => [`${t}.${String(n).padStart(2, '0')}`, `${n}.${String(t).padStart(2, '0')}`];

/** The portal's archive of every register equals the journal: the same SQs (1 to the head) with the same hashes. */
async function archiveOf(portal: RunningPortal, rn: string): Promise<Array<{ sq: number; hash: string }>> {
  return (await portal.store.archivedRecords(rn, 1, 1_000_000)).map((r) => ({ sq: r.sq, hash: r.hash }));
}

async function journalRows(db: string): Promise<Map<string, Array<{ sq: number; hash: string }>>> {
  const c = new pg.Client({ connectionString: db });
  await c.connect();
  try {
    const rows = (await c.query<{ rn: string; sq: string; hash: string }>("SELECT r.rn, j.sq, encode(j.hash, 'hex') AS hash FROM journal j JOIN journal_registers r USING (rid) ORDER BY r.rn, j.sq")).rows;
    const out = new Map<string, Array<{ sq: number; hash: string }>>();
    for (const r of rows) out.set(r.rn, [...(out.get(r.rn) ?? []), { sq: Number(r.sq), hash: r.hash }]);
    return out;
  } finally {
    await c.end();
  }
}

async function settingOf(db: string, key: string): Promise<string | undefined> {
  const c = new pg.Client({ connectionString: db });
  await c.connect();
  try {
    return (await c.query<{ value: string }>('SELECT value FROM journal_settings WHERE key = $1', [key])).rows[0]?.value;
  } finally {
    await c.end();
  }
}

/** The process holding the recorder's lease now ('' when it lapsed). */
async function leaseHolder(db: string): Promise<string> {
  const lease = JSON.parse((await settingOf(db, 'recorder:lease')) ?? '{"holder":"","until":0}') as { holder: string; until: number };
  return lease.until > Date.now() ? lease.holder : '';
}

const SILENT_T = TERMINALS + 1;
const SILENT_AFTER_MS = 60_000;

test('cloud deployment: a portal and two efr serve processes on PostgreSQL, activation by badge, 20 terminals, 2,000 transactions, the archive sender killed -9 and the portal restarted mid-way', { timeout: 180_000 }, async () => {
  const scratch = await createScratchSchema(undefined, 'efr_mp_');
  const db = scratch.schemaUrl;
  const dataDir = tempDir('efr-mp-');
  const work = tempDir('efr-mp-export-');
  const procs: Proc[] = [];
  // the portal's clock stands still until the test moves it past the silence limit
  const clock = new ManualClock(new Date());
  const portalOptions = { silentAfterMs: SILENT_AFTER_MS, schedulerIntervalMs: 3_600_000 };
  const portal: TestPortal = await startTestPortal({ pgUrl: scratch.url, clock, portal: portalOptions });
  let live: RunningPortal = portal;
  try {
    // the company at the portal: its badge, a location L1, a technical contact for the mails
    const c = await portal.call('POST', '/api/v1/companies', { parentEntityId: portal.rootId, name: 'Cloud Bistro GmbH', taxId: TAX_ID, address: 'Ring 1', city: 'Wien', zip: '1010', countryCode: 'AT' });
    assert.equal(c.status, 200, c.text);
    const company = c.json.company as { id: number; badge: string };
    assert.equal((await portal.call('POST', '/api/v1/locations', { parentEntityId: company.id, name: 'Filiale 1', address: 'Ring 1', city: 'Wien', zip: '1010', countryCode: 'AT', locationIdentification: 'L1' })).status, 200);
    const contact = await portal.call('POST', '/api/v1/contacts', { companyId: company.id, contactName: 'Technik Team', emailAddress: 'technik@bistro.example', contactType: 'TechnicalContact', languageCode: 'de' });
    assert.equal(contact.status, 200, contact.text);

    const env = { EFR_PORTAL_URL: portal.url, EFR_RECORDER_RETRY_MS: '50,500', EFR_RECORDER_LEASE_MS: '2000' };
    const a = await serve(dataDir, db, env);
    procs.push(a);
    // Multi POS: every TL/TT is its own register TaxId$TL_TT; the profile is in the shared journal
    const profile = await post(`${a.url}/profile`, { Badge: company.badge, TaxId: TAX_ID, RN_TT: true, Attributes: 'Recorder_init=50' });
    assert.equal(profile.status, 200, profile.text);
    await until('A activated and sending', async () => ((await get(`${a.url}/state`)).json?.Recorder === 'online' && (await leaseHolder(db)).includes(`:${a.child.pid}:`) ? true : undefined), 60_000);
    const b = await serve(dataDir, db, env);
    procs.push(b);
    assert.equal((await get(`${b.url}/state`)).json?.Recorder, 'online', 'B reads the activation from the shared journal');
    assert.equal((await post(`${b.url}/profile`, { Badge: 'OTHER-BADGE' })).status, 400, 'the badge is locked for every process');
    // a terminal used only at the start: it goes silent
    for (let n = 1; n <= 3; n++) assert.equal(rcOf(await post(`${b.url}/register`, sale({ TL: 'L1', TT: tt(SILENT_T), TN: String(n) }))), 'OK');

    let aAlive = true;
    let answered = 0;
    let killed: Promise<unknown> | undefined;
    let portalStopped: Promise<void> | undefined;
    let portalStarted: Promise<RunningPortal> | undefined;
    /** every answer per terminal and TN, and the transactions the killed process never answered */
    const answers = new Map<string, HttpAnswer[]>();
    const unanswered: Array<{ t: number; n: number }> = [];
    const body = (t: number, n: number): object => {
      const [x, y] = amounts(t, n);
      return sale({ TL: 'L1', TT: tt(t), TN: String(n) }, [['A', x], ['B', y]]);
    };
    const total = TERMINALS * PER_TERMINAL;
    /** requests sent to A and not answered yet: A is killed while it has some */
    let toA = 0;
    const send = async (to: Proc, t: number, n: number): Promise<void> => {
      let r: HttpAnswer;
      if (to === a) toA += 1;
      try {
        r = await post(`${to.url}/register`, body(t, n));
      } catch (e) {
        // only the killed process may leave a request unanswered
        assert.ok(to === a && !aAlive, `no answer from ${to === a ? 'A' : 'B'}: ${String(e)}`);
        unanswered.push({ t, n });
        return;
      } finally {
        if (to === a) toA -= 1;
      }
      assert.equal(r.status, 200, `${tt(t)}/${n}: ${r.text}`);
      const key = `${t}/${n}`;
      answers.set(key, [...(answers.get(key) ?? []), r]);
      answered += 1;
      // a quarter in, the portal goes away; at three quarters it is back (same port, same database)
      if (answered >= total / 4 && !portalStopped) portalStopped = portal.close();
      if (answered >= (total * 3) / 4 && portalStopped && !portalStarted) {
        portalStarted = portalStopped.then(() => startPortal({ port: portal.port, host: '127.0.0.1', dataDir: portal.dataDir, dbUrl: portal.dbUrl as string, log: false, clock, ...portalOptions }));
      }
      // mid-way, process A (the one sending the archive) dies at once, with requests in flight (not at a
      // moment when every request happens to be with B)
      if (answered >= total / 2 && aAlive && toA > 0) {
        aAlive = false;
        a.child.kill('SIGKILL');
        killed = a.exited;
      }
    };
    const pick = (n: number): Proc => (aAlive && n % 2 === 1 ? a : b);
    const terminal = async (t: number): Promise<void> => {
      for (let n = 1; n <= PER_TERMINAL; ) {
        if (t <= 4 && n < PER_TERMINAL) {
          // two transactions of one terminal at once, one through each process
          await Promise.all([send(aAlive ? a : b, t, n), send(b, t, n + 1)]);
          n += 2;
        } else if (t <= 7 && n % 10 === 0) {
          // the very same transaction through both at once (a POS that timed out and tried the other)
          await Promise.all([send(aAlive ? a : b, t, n), send(b, t, n)]);
          n += 1;
        } else {
          await send(pick(n + t), t, n);
          n += 1;
        }
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: TERMINALS }, (_, i) => terminal(i + 1)));
    assert.ok(!aAlive, 'A was killed mid-way');
    assert.equal(await killed, null, 'killed by a signal');
    // a POS that got no answer sends the same transaction again, now to the process that is left
    for (const { t, n } of unanswered) await send(b, t, n);
    const elapsed = Date.now() - started;
    assert.ok(portalStarted, 'the portal was stopped and started again during the run');
    live = await portalStarted;

    // the answers: every transaction OK (some #DUPLICATE), never a refusal
    const codes = new Map<string, number>();
    for (const list of answers.values()) for (const r of list) codes.set(rcOf(r), (codes.get(rcOf(r)) ?? 0) + 1);
    assert.deepEqual([...codes.keys()].filter((c) => c !== 'OK' && c !== 'OK #DUPLICATE'), [], JSON.stringify([...codes]));
    for (let t = 1; t <= TERMINALS; t++) for (let n = 1; n <= PER_TERMINAL; n++) assert.ok(answers.get(`${t}/${n}`)?.length, `${tt(t)}/${n} answered`);

    // A comes back (as an orchestrator restarts it) and sees every register as the journal holds it
    const a2 = await serve(dataDir, db, env);
    procs.push(a2);
    const stored = await heads(db);
    let records = 0;
    for (let t = 1; t <= TERMINALS; t++) {
      const exp = await exportVerified(a2.url, rnOf(t), work);
      const head = stored.get(rnOf(t));
      // SQ gapless from 1 to the register's head (verifyZip checks that the SQs follow each other)
      assert.deepEqual([exp.firstSQ, exp.lastSQ, exp.records.length], [1, head, head], rnOf(t));
      records += exp.records.length;
      const tras = transactions(exp);
      // TN gapless: every transaction of the terminal once
      assert.deepEqual(tras.map((x) => Number(x.esr.TN)).sort((x, y) => x - y), Array.from({ length: PER_TERMINAL }, (_, i) => i + 1), `${rnOf(t)} TNs`);
      const byTn = new Map(tras.map((x) => [x.esr.TN, x]));
      for (let n = 1; n <= PER_TERMINAL; n++) {
        const rec = byTn.get(String(n));
        assert.ok(rec);
        const [x, y] = amounts(t, n);
        assert.deepEqual(rec.esr.PosA?.map((p) => p.Amt), [x, y], `${tt(t)}/${n} amounts`);
        // every answer of it (OK or #DUPLICATE, from either process) names this one record
        for (const r of answers.get(`${t}/${n}`) ?? []) assert.equal(Number(r.json.TraC.SQ), rec.sq, `${tt(t)}/${n} answered SQ`);
      }
    }
    const silentRn = rnOf(SILENT_T);
    assert.equal(records, [...stored.entries()].filter(([rn]) => rn !== silentRn && rn !== 'def').reduce((s, [, v]) => s + v, 0));
    const duplicates = codes.get('OK #DUPLICATE') ?? 0;
    assert.ok(duplicates >= 3 * (PER_TERMINAL / 10), `the same transaction through both: #DUPLICATE ${duplicates}`);
    assert.ok(unanswered.length > 0, 'the kill left transactions unanswered');

    // the archive: B took the lease over from the killed A, and the portal holds every register's journal,
    // record for record, although it was away for half of the run
    await until('B sends the archive', async () => ((await leaseHolder(db)).includes(`:${b.child.pid}:`) || (await leaseHolder(db)).includes(`:${a2.child.pid}:`) ? true : undefined), 60_000);
    const journal = await journalRows(db);
    await until('the archive complete', async () => {
      // (def, the instance's own register, is archived under the instance's register number)
      for (const [rn, rows] of journal) if (rn !== 'def' && (await live.store.archivedRecords(rn, rows.length, rows.length)).length !== 1) return undefined;
      return true;
    }, 90_000);
    const instance = JSON.parse((await settingOf(db, 'recorder:activation')) ?? '{}') as { registerNumber?: string };
    assert.match(instance.registerNumber ?? '', /^ATU13585627\$/);
    assert.equal(journal.size, TERMINALS + 2, 'def and 21 terminals');
    for (const [rn, rows] of journal) {
      const portalRn = rn === 'def' ? (instance.registerNumber as string) : rn;
      assert.deepEqual(await archiveOf(live, portalRn), rows, `${rn}: the portal's archive is the journal`);
      const reg = await live.store.getRegister(portalRn);
      assert.ok(reg?.firstTransaction && reg.lastTransaction && reg.lastTransaction >= reg.firstTransaction, `${rn} first/last transaction`);
      assert.equal(reg?.companyId, company.id);
    }
    // every process reports the archive complete: the sender at once, the others at their next look at the shared
    // progress (once a second)
    for (const p of [b, a2]) {
      const st = await until(`${p.url} RecQueued 0`, async () => {
        const s = (await get(`${p.url}/state`)).json as Record<string, unknown>;
        return s.RecQueued === 0 ? s : undefined;
      }, 5_000);
      assert.equal(st.Recorder, 'online');
    }

    // silence: the portal's time moves past the limit; every terminal but the silent one registers again
    clock.advance(SILENT_AFTER_MS + 1000);
    for (let t = 1; t <= TERMINALS; t++) assert.equal(rcOf(await post(`${b.url}/register`, sale({ TL: 'L1', TT: tt(t), TN: String(PER_TERMINAL + 1) }))), 'OK');
    await until('the new records archived', async () => {
      for (let t = 1; t <= TERMINALS; t++) if ((await live.store.archivedRecords(rnOf(t), (stored.get(rnOf(t)) ?? 0) + 1, 1_000_000)).length === 0) return undefined;
      return true;
    }, 60_000);
    await live.scheduler.runNow();
    const notes = await portal.call('GET', `/api/v1/companies/${company.id}/notifications?languageCode=de`);
    assert.equal(notes.status, 200, notes.text);
    const list = notes.json.notifications as Array<{ registerNumber: string; eventCode: string; descriptionShort: string }>;
    const silent = list.filter((n) => n.eventCode === 'REGISTER_SILENT').map((n) => n.registerNumber);
    assert.ok(silent.includes(silentRn), `${silentRn} is reported silent: ${notes.text}`);
    for (let t = 1; t <= TERMINALS; t++) assert.ok(!silent.includes(rnOf(t)), `${rnOf(t)} was heard from`);
    const mails = readdirSync(join(portal.dataDir, 'portal', 'outbox')).map((f) => readFileSync(join(portal.dataDir, 'portal', 'outbox', f), 'utf8'));
    assert.ok(mails.some((m) => /^To: .*technik@bistro\.example/im.test(m) && m.includes(silentRn.replace('$', '$'))), `a mail to the technical contact names ${silentRn}`);
    console.log(`# portal + 2 processes, ${TERMINALS} terminals: ${total} transactions in ${elapsed} ms; ${unanswered.length} unanswered by the killed process and sent again; ${duplicates} #DUPLICATE; archive complete`);
  } finally {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
    for (const p of procs) await p.exited;
    if (live !== portal) await live.close();
    await portal.stop();
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});
