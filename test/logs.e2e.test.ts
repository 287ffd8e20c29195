/**
 * The service log over real HTTP with the real log files: Log_remove strips before
 * writing (the file's bytes), Log_debug raises the level without a restart, rotation keeps its bound,
 * GET /log answers each client only the lines it has not seen, and GET /backup/log zips the lines of a
 * period and never a transaction's content.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ManualClock } from '../src/shared/clock.js';
import { type RunningService, startService } from '../src/register/server.js';
import { get, post, sale, tempDir, unzip } from './helpers.js';

interface Logged extends RunningService {
  dataDir: string;
  logDir: string;
  stop(): Promise<void>;
}

async function startLogged(clock?: ManualClock): Promise<Logged> {
  const dataDir = tempDir('efr-logs-');
  const service = await startService({ port: 0, host: '127.0.0.1', dataDir, env: {}, ...(clock ? { clock } : {}) });
  return {
    ...service,
    dataDir,
    logDir: join(dataDir, 'log'),
    async stop() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every byte of every log file (current and rotated). */
function logBytes(dir: string): string {
  return readdirSync(dir)
    .map((n) => readFileSync(join(dir, n), 'utf8'))
    .join('');
}

function records(dir: string): Array<Record<string, unknown>> {
  return logBytes(dir)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function profile(svc: Logged, attributes: string): Promise<void> {
  const r = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: attributes });
  assert.equal(r.status, 200, r.text);
}

async function lines(svc: Logged, iid: string): Promise<string[]> {
  const r = await get(`${svc.url}/log?iid=${encodeURIComponent(iid)}`);
  assert.equal(r.status, 200, r.text);
  return (r.json as { Log: { Lines: string[] } }).Log.Lines;
}

describe('the service log', () => {
  test('Log_remove strips a secret before it reaches the file; an invalid expression is refused', async () => {
    const svc = await startLogged();
    try {
      await profile(svc, 'Log_debug');
      await get(`${svc.url}/first-XYZ1111`);
      // without Log_remove the secret is written (so the check below can fail)
      assert.ok(logBytes(svc.logDir).includes('XYZ1111'));
      await profile(svc, 'Log_debug Log_remove="XYZ\\d+"');
      await get(`${svc.url}/second-XYZ2222`);
      const bytes = logBytes(svc.logDir);
      assert.ok(bytes.includes('"path":"/second-"'), bytes);
      assert.ok(!bytes.includes('XYZ2222'));

      const bad = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: 'Log_remove=(unclosed' });
      assert.equal(bad.status, 400);
      assert.equal(bad.json.ProfileC.Result.ErrorCode, '#INVALID_TYPE');
      assert.match(bad.json.ProfileC.Result.UserMessage, /Attributes\.Log_remove/);
      // the refused profile changed nothing: still stripped
      await get(`${svc.url}/third-XYZ3333`);
      assert.ok(!logBytes(svc.logDir).includes('XYZ3333'));
    } finally {
      await svc.stop();
    }
  });

  test('Log_debug changes the level without a restart', async () => {
    const svc = await startLogged();
    try {
      const debugPaths = (): unknown[] => records(svc.logDir).filter((r) => r.level === 20).map((r) => r.path);
      await get(`${svc.url}/before-debug`);
      assert.deepEqual(debugPaths(), []);
      await profile(svc, 'Log_debug');
      await get(`${svc.url}/with-debug`);
      assert.ok(debugPaths().includes('/with-debug'));
      await profile(svc, 'Log_debug=false');
      await get(`${svc.url}/after-debug`);
      assert.ok(!debugPaths().includes('/after-debug'));
      assert.ok(!debugPaths().includes('/before-debug'));
      assert.ok(records(svc.logDir).some((r) => r.msg === 'profile changed' && r.level === 30));
    } finally {
      await svc.stop();
    }
  });

  test('rotation by Log_debug size keeps efr.log and at most 5 rotated files', async () => {
    const svc = await startLogged();
    try {
      await profile(svc, 'Log_debug=16K');
      // each request logs one debug line of about 1.2 KB: 8 files' worth
      const long = 'p'.repeat(1100);
      for (let i = 0; i < 110; i++) await get(`${svc.url}/${long}-${i}`);
      const names = readdirSync(svc.logDir).sort();
      assert.deepEqual(names, ['efr.log', 'efr.log.1', 'efr.log.2', 'efr.log.3', 'efr.log.4', 'efr.log.5']);
      for (const n of names) assert.ok(readFileSync(join(svc.logDir, n)).length <= 16 * 1024, n);
      // the newest request is in the current file
      assert.ok(readFileSync(join(svc.logDir, 'efr.log'), 'utf8').includes(`-109"`));
    } finally {
      await svc.stop();
    }
  });

  test('GET /log?iid answers only lines newer than that client saw, separately per iid', async () => {
    const svc = await startLogged();
    try {
      const a1 = await lines(svc, 'pos-A');
      assert.ok(a1.some((l) => l.includes('register service started')), a1.join('\n'));
      // human-readable: local time, level, message, fields
      assert.match(a1.find((l) => l.includes('register service started')) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} INFO register service started .*type=START_EFR/);
      assert.deepEqual(await lines(svc, 'pos-A'), []);

      await profile(svc, 'Log_debug');
      const a2 = await lines(svc, 'pos-A');
      assert.ok(a2.some((l) => l.includes('profile changed')));
      assert.ok(!a2.some((l) => l.includes('register service started')));

      // another client's first call: the last lines, start included
      const b1 = await lines(svc, 'pos-B');
      assert.ok(b1.some((l) => l.includes('register service started')));
      assert.ok(b1.some((l) => l.includes('profile changed')));

      await get(`${svc.url}/only-new-here`);
      const a3 = await lines(svc, 'pos-A');
      const b2 = await lines(svc, 'pos-B');
      for (const got of [a3, b2]) {
        assert.ok(got.some((l) => l.includes('path=/only-new-here')), got.join('\n'));
        assert.ok(!got.some((l) => l.includes('profile changed')));
      }
      // A's own previous /log call is in its answer; B's first call came after A's second
      assert.ok(a3.some((l) => / DEBUG request .*path=\/log/.test(l)));

      const xml = await get(`${svc.url}/log?iid=pos-C`, { accept: 'application/xml' });
      assert.equal(xml.status, 200);
      assert.match(xml.text, /^<\?xml[^>]*>\s*<Log><Lines>\d{4}-\d\d-\d\d [^<]+<\/Lines>/);

      const tooLong = await get(`${svc.url}/log?iid=${'x'.repeat(300)}`);
      assert.equal(tooLong.status, 400);
      assert.match(tooLong.json.Result.UserMessage, /iid/);
    } finally {
      await svc.stop();
    }
  });

  test('GET /backup/log zips the lines of from/till and no business data', async () => {
    const clock = new ManualClock(new Date(2026, 2, 1, 10, 0, 0));
    const svc = await startLogged(clock);
    try {
      // the instance's log, before any register exists
      assert.equal((await request(`${svc.url}/backup/log?RN=def`)).statusCode, 200);
      await profile(svc, 'Log_debug');
      // a sale and a refused one, with content that must never be logged
      const body = sale({ Ctm: { Nam: 'Erika Mustermann-9931', Adr: 'Secret Street 77' } });
      (body.Tra.ESR.PosA as Array<Record<string, string>>)[0]!.Dsc = 'Zebra-Unicorn-4711';
      const ok = await post(`${svc.url}/register`, body);
      assert.equal(ok.json.TraC.Result.RC, 'OK', ok.text);
      const refused = sale({ Ctm: { Nam: 'Erika Mustermann-9931' } }, [['A', '3.50']]);
      (refused.Tra.ESR.PayA as Array<Record<string, string>>)[0]!.Amt = '99.99';
      (refused.Tra.ESR.PosA as Array<Record<string, string>>)[0]!.Dsc = 'Zebra-Unicorn-4711';
      assert.equal((await post(`${svc.url}/register`, refused)).status, 400);

      clock.set(new Date(2026, 2, 5, 12, 0, 0));
      await get(`${svc.url}/on-march-5`);
      clock.set(new Date(2026, 2, 10, 12, 0, 0));
      await get(`${svc.url}/on-march-10`);

      const res = await request(`${svc.url}/backup/log?RN=def&from=2026-03-04&till=2026-03-06`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/zip');
      assert.equal(res.headers['content-disposition'], 'attachment; filename="efr-log_def_2026-03-04_2026-03-06.zip"');
      const files = await unzip(Buffer.from(await res.body.arrayBuffer()), tempDir('efr-logzip-'));
      assert.deepEqual(Object.keys(files), ['efr.log']);
      const zipped = (files['efr.log'] ?? '').trim().split('\n').map((l) => JSON.parse(l) as { time: number; path?: string });
      assert.ok(zipped.some((r) => r.path === '/on-march-5'));
      for (const r of zipped) {
        assert.ok(r.time >= new Date(2026, 2, 4).getTime() && r.time < new Date(2026, 2, 7).getTime(), JSON.stringify(r));
      }

      // the whole log: every line, no business data in any file or in the zip
      const all = await request(`${svc.url}/backup/log`);
      const everything = Object.values(await unzip(Buffer.from(await all.body.arrayBuffer()), tempDir('efr-logzip-'))).join('');
      assert.ok(everything.includes('/on-march-10') && everything.includes('register service started') && everything.includes('"path":"/register"'));
      for (const text of [everything, logBytes(svc.logDir)]) {
        for (const secret of ['Zebra-Unicorn-4711', 'Mustermann', 'Secret Street', '99.99', '3.50']) assert.ok(!text.includes(secret), secret);
      }

      // a register's log: lines naming another register are left out
      assert.equal((await post(`${svc.url}/register?rn=R2`, sale())).status, 200);
      assert.equal((await post(`${svc.url}/profile?rn=R2`, { Badge: 'B2', Attributes: 'Normalize_D=3' })).status, 200);
      const r2 = await request(`${svc.url}/backup/log?RN=R2`);
      assert.match(String(r2.headers['content-disposition']), /filename="efr-log_R2_start_2026-03-10\.zip"/);
      const r2Lines = Object.values(await unzip(Buffer.from(await r2.body.arrayBuffer()), tempDir('efr-logzip-'))).join('').trim().split('\n').map((l) => JSON.parse(l) as { rn?: string; msg?: string });
      assert.ok(r2Lines.some((r) => r.rn === 'R2' && r.msg === 'profile changed'));
      assert.ok(r2Lines.some((r) => r.msg === 'register service started'));
      assert.ok(!r2Lines.some((r) => r.rn !== undefined && r.rn !== 'R2'));
      assert.ok(everything.includes('"rn":"def"'));
      assert.equal((await get(`${svc.url}/backup/log?RN=nobody`)).status, 404);

      const bad = await get(`${svc.url}/backup/log?from=yesterday`);
      assert.equal(bad.status, 400);
      assert.match(bad.json.Result.UserMessage, /from/);
      const reversed = await get(`${svc.url}/backup/log?from=2026-03-06&till=2026-03-04`);
      assert.equal(reversed.status, 400);
    } finally {
      await svc.stop();
    }
  });
});
