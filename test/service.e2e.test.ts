/**
 * Service control: POST /service/restart with a real process (exit code, journal
 * intact after the next start), App_restartAt with a ManualClock (a restart waits for the transaction in
 * flight), POST /lic, HttpServer_respond102 over a raw socket, HttpServer_Disable.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ManualClock } from '../src/shared/clock.js';
import { RESTART_EXIT_CODE, type Stopped } from '../src/register/maintenance/service-control.js';
import { type RunningService, startService } from '../src/register/server.js';
import { ROOT, freePort, get, post, sale, startTestService, tempDir } from './helpers.js';
import { verifyJournal } from './verify-journal.js';

/** `efr serve` as a process with extra arguments; resolves once /state answers. */
async function serve(dataDir: string, port: number, extra: string[] = []): Promise<{ url: string; exited: Promise<number | null>; output: () => string; signal: (s: NodeJS.Signals) => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', dataDir, ...extra], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited: ${output}`);
    try {
      if ((await get(`${url}/state`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, exited, output: () => output, signal: (s) => child.kill(s) };
}

/** The lock a transaction with this TN of TL 1 / TT 1 takes: while a test holds it, such a request waits (a real slow request). */
async function holdTn(svc: RunningService, tn: string): Promise<{ release(): void }> {
  const reg = svc.ctx.registers.get('def');
  assert.ok(reg, 'register def exists');
  return svc.ctx.registers.locks.acquire([`tn|${reg.state.rid}|1/1/${tn}`]);
}

/** A raw HTTP exchange: everything the server sends until it closes the connection, and a way to watch it meanwhile. */
function rawExchange(port: number, head: string, body: string): { text: () => string; done: Promise<string> } {
  let text = '';
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (text += d));
  const done = new Promise<string>((resolve, reject) => {
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  socket.write(`${head}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  return { text: () => text, done };
}

const PROCESSING = /HTTP\/1\.1 102 Processing\r\n\r\n/g;

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('POST /service/restart answers 200 empty, the process exits with 75, and the journal is intact at the next start', async () => {
  const dataDir = tempDir();
  const port = await freePort();
  let svc: Awaited<ReturnType<typeof serve>> | undefined;
  try {
    svc = await serve(dataDir, port, ['--service']);
    const first = await post(`${svc.url}/register`, sale({ TN: '1' }));
    const second = await post(`${svc.url}/register`, sale({ TN: '2' }));
    assert.equal(second.json.TraC.SQ, 2, second.text);

    const r = await post(`${svc.url}/service/restart`);
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
    assert.equal(await svc.exited, RESTART_EXIT_CODE, svc.output());
    assert.match(svc.output(), /closed for a restart, exit code 75/);
    const log = readFileSync(join(dataDir, 'log', 'efr.log'), 'utf8');
    assert.match(log, /"type":"STOP_EFR","reason":"request"/);

    const report = await verifyJournal(dataDir);
    assert.ok(report.ok, JSON.stringify(report));
    assert.equal(report.count, 2);

    // started again (here by the test, in production by the service manager): the chain goes on
    svc = await serve(dataDir, port);
    const dup = await post(`${svc.url}/register`, sale({ TN: '1' }));
    assert.equal(dup.json.TraC.Result.ErrorCode, '#DUPLICATE');
    assert.deepEqual(dup.json.TraC.Fis, first.json.TraC.Fis);
    // SQ 3 is the journaled start of the service (START_EFR)
    const third = await post(`${svc.url}/register`, sale());
    assert.equal(third.json.TraC.SQ, 4, third.text);
    // SIGTERM is a stop, not a restart: exit code 0
    svc.signal('SIGTERM');
    assert.equal(await svc.exited, 0);
    const final = await verifyJournal(dataDir);
    assert.ok(final.ok && final.count === 4, JSON.stringify(final));
  } finally {
    svc?.signal('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('App_restartAt: as a service the daily restart comes at 03:00, after the transaction in flight is answered and committed', async () => {
  const dataDir = tempDir();
  const clock = new ManualClock(new Date(2026, 2, 10, 2, 59, 0));
  let restarted: Stopped | undefined;
  // interim 102 answers show when the transaction in flight has reached the service
  const env = { SVC_EFR_PROFILE_CFG__DOT__def__DOT__HttpServer_respond102: '100' };
  const svc = await startService({ port: 0, host: '127.0.0.1', dataDir, log: false, clock, env, service: true, onRestart: (s) => (restarted = s) });
  try {
    assert.equal((await post(`${svc.url}/register`, sale({ TN: '1' }))).json.TraC.SQ, 1);
    assert.equal(svc.control.schedule.next?.getTime(), new Date(2026, 2, 10, 3, 0, 0).getTime());
    assert.equal(svc.control.schedule.check(), false, 'not yet at 02:59');

    // a transaction in flight that cannot finish yet (its TN is locked by a concurrent one)
    const lease = await holdTn(svc, '7');
    const inFlight = rawExchange(svc.port, 'POST /register HTTP/1.1', JSON.stringify(sale({ TN: '7' })));
    await until('the transaction in flight', () => inFlight.text().includes(' 102 Processing'));
    clock.set(new Date(2026, 2, 10, 3, 0, 1));
    assert.equal(svc.control.schedule.check(), true, 'due at 03:00:01');
    assert.equal(svc.control.schedule.check(), false, 'only once');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(restarted, undefined, 'the restart waits for the request in flight');

    lease.release();
    const answer = (await inFlight.done).replace(PROCESSING, '');
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.equal(body.TraC.Result.RC, 'OK');
    assert.equal(body.TraC.SQ, 2);
    for (let i = 0; i < 100 && !restarted; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(restarted, { reason: 'schedule', ok: true, exitCode: RESTART_EXIT_CODE });
    await assert.rejects(get(`${svc.url}/state`), 'the listener is closed');
    const report = await verifyJournal(dataDir);
    assert.ok(report.ok && report.count === 2, JSON.stringify(report));
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('App_restartAt: the default only as a service, NO disables it, an explicit time applies without a service manager, a bad value is refused', async () => {
  const clock = new ManualClock(new Date(2026, 2, 10, 12, 0, 0));
  const plain = await startTestService({ clock });
  const svc = await startTestService({ clock, env: { SVC_EFR_PROFILE_CFG__DOT__def__DOT__App_restartAt: 'NO' } });
  try {
    // a plain `efr serve` (no --service): no restart planned at all
    assert.equal(plain.control.schedule.next, undefined);
    clock.set(new Date(2026, 2, 11, 3, 0, 5));
    assert.equal(plain.control.schedule.check(), false);
    // NO from the environment, even as a service
    assert.equal(svc.control.schedule.next, undefined);
    assert.equal(svc.control.schedule.check(), false);

    // an explicit time through the profile applies on its own, from the next check on
    const bad = await post(`${plain.url}/profile`, { Badge: 'B1', Attributes: 'App_restartAt=25:00' });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /#INVALID_TYPE/);
    assert.match(bad.text, /Attributes\.App_restartAt/);
    const ok = await post(`${plain.url}/profile`, { Badge: 'B1', Attributes: 'App_restartAt=04:30' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(plain.control.schedule.check(), false, '03:00:05 is before 04:30');
    // (a getter: the earlier assertion of undefined does not hold any more)
    assert.equal((plain.control.schedule.next as Date | undefined)?.getTime(), new Date(2026, 2, 11, 4, 30, 0).getTime());
    assert.equal(plain.control.stoppingNow, false);
    clock.set(new Date(2026, 2, 11, 4, 30, 0));
    assert.equal(plain.control.schedule.check(), true);
    const stopped = await plain.control.stop('SIGTERM');
    // the close under way was the restart's: a later signal joins it and keeps its exit code
    assert.deepEqual(stopped, { reason: 'schedule', ok: true, exitCode: RESTART_EXIT_CODE });
  } finally {
    await plain.stop();
    await svc.stop();
  }
});

test('POST /lic keeps the key of a register, answers it masked, and refuses a key of the wrong form', async () => {
  const dataDir = tempDir();
  let svc = await startTestService({ dataDir });
  try {
    const r = await post(`${svc.url}/lic?key=abcd-efgh-ijkl-mnop-qr`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { LicC: { Result: { RC: 'OK' }, Lic: { RN: 'def', Key: '****-****-****-**OP-QR', Replaced: 'false' } } });

    // form body, XML answer on request; a new key replaces the old one
    const form = await post(`${svc.url}/lic`, 'key=ZZZZ-YYYY-XXXX-WWWW', { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/xml' });
    assert.equal(form.status, 200, form.text);
    assert.match(form.text, /<Lic RN="def" Key="\*\*\*\*-\*\*\*\*-\*\*\*\*-WWWW" Replaced="true"\/>/);

    const short = await post(`${svc.url}/lic`, { key: 'ABC-123' });
    assert.equal(short.status, 400);
    assert.equal(short.json.LicC.Result.ErrorCode, '#INVALID_VALUE');
    assert.match(short.json.LicC.Result.UserMessage, /^key: .*16 to 64/);
    const odd = await post(`${svc.url}/lic?key=ABCD_EFGH_IJKL_MNOP`);
    assert.equal(odd.json.LicC.Result.ErrorCode, '#INVALID_VALUE');
    const wrongType = await post(`${svc.url}/lic`, { key: 1234567890123456 });
    assert.equal(wrongType.json.LicC.Result.ErrorCode, '#INVALID_TYPE');
    const none = await post(`${svc.url}/lic`);
    assert.equal(none.status, 400);
    assert.equal(none.json.LicC.Result.ErrorCode, '#MISSING_FIELD');
    const unknown = await post(`${svc.url}/lic?rn=nope&key=ABCD-EFGH-IJKL-MNOP`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.LicC.Result.ErrorCode, '#UNKNOWN_REGISTER');

    // kept across a restart, in capitals, the refused ones changed nothing
    await svc.close();
    svc = await startTestService({ dataDir });
    await svc.close();
    const db = new Database(join(dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const rows = db.prepare("SELECT key, value FROM settings WHERE key LIKE 'license:%'").all();
    db.close();
    assert.deepEqual(rows, [{ key: 'license:def', value: 'ZZZZ-YYYY-XXXX-WWWW' }]);
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('HttpServer_respond102: interim 102 answers on a slow request until the final answer; none without it, none to HTTP/1.0', async () => {
  const svc = await startTestService();
  try {
    assert.equal((await post(`${svc.url}/register`, sale({ TN: '1' }))).json.TraC.SQ, 1);

    // without the attribute the interval is 9000 ms: a request answered sooner gets no interim answer
    let lease = await holdTn(svc, '5');
    let ex = rawExchange(svc.port, 'POST /register HTTP/1.1', JSON.stringify(sale({ TN: '5' })));
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(ex.text(), '', 'nothing before the answer');
    lease.release();
    let all = await ex.done;
    assert.match(all, /^HTTP\/1\.1 200 OK\r\n/);
    assert.doesNotMatch(all, /102 Processing/);

    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: 'HttpServer_respond102=100' })).status, 200);
    lease = await holdTn(svc, '6');
    ex = rawExchange(svc.port, 'POST /register HTTP/1.1', JSON.stringify(sale({ TN: '6' })));
    await until('two interim answers', () => (ex.text().match(PROCESSING) ?? []).length >= 2);
    assert.doesNotMatch(ex.text(), /HTTP\/1\.1 200/, 'no final answer while the transaction waits');
    lease.release();
    all = await ex.done;
    // every interim answer comes before the final one, and the final one is the registration
    const final = all.replace(PROCESSING, '');
    assert.match(final, /^HTTP\/1\.1 200 OK\r\n/);
    assert.equal(all.indexOf('HTTP/1.1 200'), all.length - final.length);
    const json = JSON.parse(final.slice(final.indexOf('\r\n\r\n') + 4));
    assert.equal(json.TraC.Result.RC, 'OK');
    assert.equal(json.TraC.SQ, 3);

    // an HTTP/1.0 client gets no 1xx answer (RFC 9110)
    lease = await holdTn(svc, '8');
    ex = rawExchange(svc.port, 'POST /register HTTP/1.0', JSON.stringify(sale({ TN: '8' })));
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(ex.text(), '');
    lease.release();
    all = await ex.done;
    assert.match(all, /^HTTP\/1\.1 200 OK\r\n/);
    assert.doesNotMatch(all, /102 Processing/);

    const bad = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: 'HttpServer_respond102=5' });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /HttpServer_respond102/);
  } finally {
    await svc.stop();
  }
});

test('HttpServer_Disable: no HTTP listener (environment or stored profile), a log line, the journal still opens', async () => {
  const dataDir = tempDir();
  const port = await freePort();
  try {
    const env = { SVC_EFR_PROFILE_CFG__DOT__def__DOT__HttpServer_Disable: 'true' };
    const off = await startService({ port, host: '127.0.0.1', dataDir, env });
    assert.equal(off.http, false);
    await assert.rejects(get(`http://127.0.0.1:${port}/state`), /ECONNREFUSED/);
    assert.ok(off.ctx.registers, 'the service itself runs (file interface)');
    await off.close();
    const log = readFileSync(join(dataDir, 'log', 'efr.log'), 'utf8');
    assert.match(log, /HttpServer_Disable: no HTTP listener/);

    // set in the profile: takes effect at the next start; an environment false turns it back on
    const on = await startService({ port, host: '127.0.0.1', dataDir, log: false, env: {} });
    assert.equal(on.http, true);
    assert.equal((await post(`${on.url}/profile`, { Badge: 'B1', Attributes: 'HttpServer_Disable' })).status, 200);
    await on.close();
    const stored = await startService({ port, host: '127.0.0.1', dataDir, log: false, env: {} });
    assert.equal(stored.http, false);
    await assert.rejects(get(`http://127.0.0.1:${port}/state`), /ECONNREFUSED/);
    await stored.close();
    const back = await startService({ port, host: '127.0.0.1', dataDir, log: false, env: { SVC_EFR_PROFILE_CFG__DOT__def__DOT__HttpServer_Disable: 'false' } });
    assert.equal(back.http, true);
    assert.equal((await get(`${back.url}/state`)).status, 200);
    await back.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
