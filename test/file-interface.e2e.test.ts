/**
 * The file interface over a real data folder: `.req` files dropped into req/ become `.res` files in res/
 * (and `.bmp` with Fis_QR), each answered once, registered in the real journal.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import type { ServiceContext } from '../src/register/context.js';
import type { JournalRecord } from '../src/register/journal/types.js';
import { type TestService, post, sale, startTestService, tempDir } from './helpers.js';

const jsQR = jsQRModule.default;

function folders(prefix: string): string {
  const dir = tempDir(prefix);
  mkdirSync(join(dir, 'req'));
  mkdirSync(join(dir, 'res'));
  return dir;
}

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function files(dir: string): string[] {
  return readdirSync(dir).sort();
}

async function records(ctx: ServiceContext, rn = 'def'): Promise<JournalRecord[]> {
  const reg = ctx.registers.get(rn);
  if (!reg) return [];
  const out: JournalRecord[] = [];
  for await (const r of ctx.store.range(reg.state.rid, 1)) out.push(r);
  return out;
}

function saleXml(tn: string, rootAttributes = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Tra${rootAttributes}><ESR TL="1" TT="1" TN="${tn}"><PosA><Pos PN="1" Dsc="Coffee" TaxG="A" Amt="3.50"/></PosA><PayA><Pay Dsc="Cash" PayG="cash" Amt="3.50"/></PayA></ESR></Tra>`;
}

async function withService(dataDir: string, fn: (svc: TestService) => Promise<void>, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const svc = await startTestService({ dataDir, env });
  try {
    await fn(svc);
  } finally {
    await svc.stop();
  }
}

describe('file interface', () => {
  test('1,000 requests dropped at once (renamed from .tmp and written directly) are answered exactly once', async () => {
    const dir = folders('efr-fileif-1000-');
    try {
      await withService(dir, async (svc) => {
        const req = join(dir, 'req');
        const res = join(dir, 'res');
        const n = 1000;
        for (let i = 1; i <= n; i++) {
          const xml = i % 10 === 0;
          const text = xml ? saleXml(String(i)) : JSON.stringify(sale({ TN: String(i) }));
          if (i % 2 === 0) {
            // the spec's way: a temporary name, then the rename
            writeFileSync(join(req, `pos-${i}.tmp`), text);
            renameSync(join(req, `pos-${i}.tmp`), join(req, `pos-${i}.req`));
          } else {
            writeFileSync(join(req, `pos-${i}.req`), text);
          }
        }
        await until('1,000 answers', () => files(res).filter((f) => f.endsWith('.res')).length === n && files(req).length === 0, 50_000);
        // nothing more comes: no second answer, no file left behind
        await sleep(400);
        assert.deepEqual(files(req), []);
        const answers = files(res);
        assert.equal(answers.length, n, 'only the .res files, no temporary file');
        const sqs = new Set<string>();
        for (let i = 1; i <= n; i++) {
          const text = readFileSync(join(res, `pos-${i}.res`), 'utf8');
          if (i % 10 === 0) {
            assert.match(text, /^<\?xml/, `pos-${i}.res in XML like its request`);
            assert.match(text, /<Result RC="OK"\/>/, text);
            assert.match(text, new RegExp(`TN="${i}"`), text);
            sqs.add(/<TraC SQ="(\d+)"/.exec(text)?.[1] ?? '');
          } else {
            const a = JSON.parse(text).TraC;
            assert.equal(a.Result.RC, 'OK', text);
            assert.equal(a.Result.ErrorCode, undefined, text);
            assert.equal(a.ESR.TN, String(i));
            sqs.add(String(a.SQ));
          }
        }
        assert.equal(sqs.size, n, 'each answer its own SQ');
        const tra = (await records(svc.ctx)).filter((r) => r.type === 'Tra');
        assert.equal(tra.length, n, '1,000 journal records');
        assert.equal(new Set(tra.map((r) => r.tn)).size, n, 'no TN twice');
        assert.equal(svc.ctx.registers.get('def')?.state.sq, (await records(svc.ctx)).length);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('XML and JSON; RN as a root attribute (XML) or root field (JSON) selects the register; Fis_QR writes a .bmp that decodes to Fis.Code', async () => {
    const dir = folders('efr-fileif-rn-');
    try {
      await withService(dir, async (svc) => {
        assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fis_QR="type=png&size=3&ec_level=L"' })).status, 200);
        const req = join(dir, 'req');
        const res = join(dir, 'res');
        writeFileSync(join(req, 'a.req'), saleXml('7', ' RN="kasse2"'));
        writeFileSync(join(req, 'b.req'), JSON.stringify({ Tra: { RN: 'kasse3', ESR: sale({ TN: '8' }).Tra.ESR } }));
        // a byte order mark, as Windows editors write it
        writeFileSync(join(req, 'c.req'), `\uFEFF${JSON.stringify(sale({ TN: '9' }))}`);
        await until('three answers', () => ['a.res', 'b.res', 'c.res'].every((f) => existsSync(join(res, f))));
        const xml = readFileSync(join(res, 'a.res'), 'utf8');
        assert.match(xml, /^<\?xml[^>]*>\s*<TraC SQ="1"/, xml);
        assert.match(xml, /<Result RC="OK"\/>/);
        const json = JSON.parse(readFileSync(join(res, 'b.res'), 'utf8')).TraC;
        assert.equal(json.Result.RC, 'OK');
        const c = JSON.parse(readFileSync(join(res, 'c.res'), 'utf8')).TraC;
        assert.equal(c.Result.RC, 'OK');
        assert.equal((await records(svc.ctx, 'kasse2')).filter((r) => r.type === 'Tra').map((r) => r.tn).join(), '7');
        assert.equal((await records(svc.ctx, 'kasse3')).filter((r) => r.type === 'Tra').map((r) => r.tn).join(), '8');
        assert.equal((await records(svc.ctx, 'def')).filter((r) => r.type === 'Tra').map((r) => r.tn).join(), '9');
        // the image: 3 px per module (the attribute's size), decoded to the answer's Fis.Code
        for (const [name, code] of [['b', json.Fis.Code as string], ['c', c.Fis.Code as string]] as const) {
          assert.ok(code, 'Fis.Code in the answer');
          const bmp = readFileSync(join(res, `${name}.bmp`));
          assert.equal(decodeBmp(bmp), code);
        }
        const xmlCode = /<Code>([^<]*)<\/Code>/.exec(xml)?.[1]?.replace(/&amp;/g, '&');
        assert.equal(decodeBmp(readFileSync(join(res, 'a.bmp'))), xmlCode);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a half-written file is answered once complete; an invalid one gets RC BAD and changes nothing', async () => {
    const dir = folders('efr-fileif-bad-');
    try {
      await withService(dir, async (svc) => {
        const req = join(dir, 'req');
        const res = join(dir, 'res');
        const text = JSON.stringify(sale({ TN: '1' }));
        writeFileSync(join(req, 'half.req'), text.slice(0, 40));
        writeFileSync(join(req, 'broken.req'), '{"Tra":{"ESR":{"TL":"1"');
        writeFileSync(join(req, 'root.req'), '{"Foo":{}}');
        writeFileSync(join(req, 'empty.req'), '');
        await sleep(300);
        assert.ok(!existsSync(join(res, 'half.res')), 'not answered while it may still be written');
        appendFileSync(join(req, 'half.req'), text.slice(40));
        await until('four answers', () => ['half.res', 'broken.res', 'root.res', 'empty.res'].every((f) => existsSync(join(res, f))) && files(req).length === 0);
        const half = JSON.parse(readFileSync(join(res, 'half.res'), 'utf8')).TraC;
        assert.equal(half.Result.RC, 'OK', JSON.stringify(half));
        const broken = JSON.parse(readFileSync(join(res, 'broken.res'), 'utf8')).TraC;
        assert.equal(broken.Result.RC, 'BAD');
        assert.equal(broken.Result.ErrorCode, '#MALFORMED');
        const root = JSON.parse(readFileSync(join(res, 'root.res'), 'utf8')).TraC;
        assert.equal(root.Result.ErrorCode, '#UNKNOWN_ROOT');
        assert.match(root.Result.UserMessage, /Foo/);
        const empty = JSON.parse(readFileSync(join(res, 'empty.res'), 'utf8')).TraC;
        assert.equal(empty.Result.ErrorCode, '#EMPTY_BODY');
        assert.deepEqual(files(req), []);
        await sleep(400);
        assert.deepEqual(files(res), ['broken.res', 'empty.res', 'half.res', 'root.res'], 'one answer each');
        assert.equal((await records(svc.ctx)).filter((r) => r.type === 'Tra').length, 1, 'only the completed request is journaled');
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('across a restart: requests left over are answered; an answer cut short by a stop is completed, not registered again; an old .res is replaced', async () => {
    const dir = folders('efr-fileif-restart-');
    const req = join(dir, 'req');
    const res = join(dir, 'res');
    try {
      let first = '';
      await withService(dir, async (svc) => {
        writeFileSync(join(req, 'one.req'), JSON.stringify(sale({ TN: '1' })));
        await until('one.res', () => existsSync(join(res, 'one.res')));
        first = readFileSync(join(res, 'one.res'), 'utf8');
        assert.equal(JSON.parse(first).TraC.Result.RC, 'OK');
        assert.equal(svc.ctx.registers.get('def')?.state.sq, 1);
      });
      // while the service is down: a new request, and the state a stop between answer steps 3 and 4 leaves
      writeFileSync(join(req, 'two.req'), JSON.stringify(sale({ TN: '2' })));
      writeFileSync(join(req, '.cut.req.done'), '{"Tra":{}}');
      writeFileSync(join(res, '.cut.res.tmp'), '{"TraC":{"SQ":1,"Result":{"RC":"OK"}}}');
      writeFileSync(join(res, '.lost.res.tmp'), 'an answer whose request was not yet marked');
      // the POS reuses a name after it has read the answer (one.res is still there)
      writeFileSync(join(req, 'one.req'), JSON.stringify(sale({ TN: '3' })));
      await withService(dir, async (svc) => {
        await until('answers after the restart', () => files(req).length === 0 && existsSync(join(res, 'two.res')) && readFileSync(join(res, 'one.res'), 'utf8') !== first);
        assert.equal(JSON.parse(readFileSync(join(res, 'two.res'), 'utf8')).TraC.ESR.TN, '2');
        assert.equal(JSON.parse(readFileSync(join(res, 'one.res'), 'utf8')).TraC.ESR.TN, '3');
        assert.equal(readFileSync(join(res, 'cut.res'), 'utf8'), '{"TraC":{"SQ":1,"Result":{"RC":"OK"}}}');
        assert.deepEqual(files(res), ['cut.res', 'one.res', 'two.res']);
        const tns = (await records(svc.ctx)).filter((r) => r.type === 'Tra').map((r) => r.tn);
        assert.deepEqual(tns.sort(), ['1', '2', '3'], 'the cut answer was not registered again');
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an answer that cannot be written is tried again, never the registration (before and after the request is marked answered)', async () => {
    const dir = folders('efr-fileif-stuck-');
    const req = join(dir, 'req');
    const res = join(dir, 'res');
    try {
      await withService(dir, async (svc) => {
        // a: the temporary answer cannot be opened; b: the answer cannot be renamed into place (after the marker)
        mkdirSync(join(res, '.a.res.tmp'));
        mkdirSync(join(res, 'b.res'));
        writeFileSync(join(req, 'a.req'), JSON.stringify(sale({}, [['A', '1.11']])));
        writeFileSync(join(req, 'b.req'), JSON.stringify(sale({}, [['A', '2.22']])));
        await until('both registered', () => svc.ctx.registers.get('def')?.state.sq === 2);
        // long enough for two more attempts each (1 s, then 2 s later)
        await sleep(2500);
        assert.equal(svc.ctx.registers.get('def')?.state.sq, 2, 'no request registered again');
        assert.deepEqual(files(req), ['.a.req.work', '.b.req.done'], 'claimed; b counts as answered');
        assert.equal(existsSync(join(res, 'a.res')), false);
        // the obstacles go: the answers come, with the records registered first
        rmSync(join(res, '.a.res.tmp'), { recursive: true });
        rmSync(join(res, 'b.res'), { recursive: true });
        await until('both answers', () => existsSync(join(res, 'a.res')) && existsSync(join(res, 'b.res')) && files(req).length === 0);
        assert.deepEqual(files(res), ['a.res', 'b.res']);
        const tra = (await records(svc.ctx)).filter((r) => r.type === 'Tra');
        assert.equal(tra.length, 2, 'one record per request');
        for (const [name, amount] of [['a', '1.11'], ['b', '2.22']] as const) {
          const answer = JSON.parse(readFileSync(join(res, `${name}.res`), 'utf8')).TraC;
          assert.equal(answer.Result.RC, 'OK');
          const record = tra.find((r) => r.sq === answer.SQ);
          assert.ok(record, `${name}.res names a journal record (SQ ${answer.SQ})`);
          assert.ok(record.data.includes(amount), `${name}.res is the answer of its own record`);
        }
        assert.equal(svc.ctx.registers.get('def')?.state.sq, 2);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a stop while the answer cannot be written: at the next start the request with TN is answered #DUPLICATE, not registered again; a work file not yet registered is registered', async () => {
    const dir = folders('efr-fileif-stuckstop-');
    const req = join(dir, 'req');
    const res = join(dir, 'res');
    try {
      let sq = 0;
      await withService(dir, async (svc) => {
        mkdirSync(join(res, '.t.res.tmp'));
        writeFileSync(join(req, 't.req'), JSON.stringify(sale({ TN: '5' })));
        await until('registered', () => svc.ctx.registers.get('def')?.state.sq === 1);
        sq = 1;
        await sleep(200);
      });
      // the stop's last attempt failed too: the claimed request waits
      assert.deepEqual(files(req), ['.t.req.work']);
      assert.deepEqual(files(res), ['.t.res.tmp']);
      rmSync(join(res, '.t.res.tmp'), { recursive: true });
      // a request claimed just before a hard stop, before its registration
      writeFileSync(join(req, '.u.req.work'), JSON.stringify(sale({ TN: '6' })));
      await withService(dir, async (svc) => {
        await until('both answers', () => existsSync(join(res, 't.res')) && existsSync(join(res, 'u.res')) && files(req).length === 0);
        const t = JSON.parse(readFileSync(join(res, 't.res'), 'utf8')).TraC;
        assert.equal(t.Result.RC, 'OK');
        assert.equal(t.Result.ErrorCode, '#DUPLICATE');
        assert.equal(t.SQ, sq, 'the original record');
        const u = JSON.parse(readFileSync(join(res, 'u.res'), 'utf8')).TraC;
        assert.equal(u.Result.RC, 'OK');
        assert.equal(u.Result.ErrorCode, undefined);
        assert.deepEqual((await records(svc.ctx)).filter((r) => r.type === 'Tra').map((r) => r.tn), ['5', '6']);
        assert.deepEqual(files(res), ['t.res', 'u.res']);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('FileWatch_path: the folder with req/ and res/ elsewhere, polled', async () => {
    const data = tempDir('efr-fileif-data-');
    const watched = folders('efr-fileif-net-');
    try {
      await withService(
        data,
        async (svc) => {
          assert.equal(existsSync(join(data, 'req')), false);
          writeFileSync(join(watched, 'req', 'x.req'), JSON.stringify(sale({ TN: '4' })));
          await until('x.res', () => existsSync(join(watched, 'res', 'x.res')));
          assert.equal(JSON.parse(readFileSync(join(watched, 'res', 'x.res'), 'utf8')).TraC.Result.RC, 'OK');
          assert.equal((await records(svc.ctx)).filter((r) => r.type === 'Tra').length, 1);
        },
        { SVC_EFR_PROFILE_CFG__DOT__def__DOT__FileWatch_path: watched },
      );
    } finally {
      rmSync(data, { recursive: true, force: true });
      rmSync(watched, { recursive: true, force: true });
    }
  });

  test('HttpServer_Disable: no HTTP listener, the file interface alone registers', async () => {
    const dir = folders('efr-fileif-nohttp-');
    try {
      await withService(
        dir,
        async (svc) => {
          assert.equal(svc.http, false);
          writeFileSync(join(dir, 'req', 'only-files.req'), JSON.stringify(sale({ TN: '7' })));
          await until('the answer', () => existsSync(join(dir, 'res', 'only-files.res')));
          const answer = JSON.parse(readFileSync(join(dir, 'res', 'only-files.res'), 'utf8'));
          assert.equal(answer.TraC.Result.RC, 'OK');
          assert.equal((await records(svc.ctx)).filter((r) => r.type === 'Tra').length, 1);
          // no HTTP server was bound (a bound one would have a real port)
          assert.equal(svc.port, 0);
        },
        { SVC_EFR_PROFILE_CFG__DOT__def__DOT__HttpServer_Disable: 'true' },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('without req/ and res/ at start nothing is watched', async () => {
    const dir = tempDir('efr-fileif-off-');
    mkdirSync(join(dir, 'req'));
    try {
      await withService(dir, async (svc) => {
        // res/ appears only after the start: too late
        mkdirSync(join(dir, 'res'));
        writeFileSync(join(dir, 'req', 'x.req'), JSON.stringify(sale({ TN: '1' })));
        await sleep(1000);
        assert.deepEqual(files(join(dir, 'req')), ['x.req']);
        assert.deepEqual(files(join(dir, 'res')), []);
        assert.equal(svc.ctx.registers.get('def'), undefined, 'nothing registered');
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A BMP as the service writes it (BITMAPINFOHEADER, uncompressed, 1 or 24 bits, bottom-up) read by jsQR. */
function decodeBmp(buf: Buffer): string | undefined {
  assert.equal(buf.toString('latin1', 0, 2), 'BM');
  const offset = buf.readUInt32LE(10);
  const width = buf.readInt32LE(18);
  const height = buf.readInt32LE(22);
  const bits = buf.readUInt16LE(28);
  const stride = Math.floor((bits * width + 31) / 32) * 4;
  assert.equal(buf.length, offset + stride * height);
  const palette = (i: number): number => buf[54 + i * 4] ?? 0;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    const row = offset + (height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const v = bits === 1 ? palette(((buf[row + (x >> 3)] ?? 0) >> (7 - (x & 7))) & 1) : (buf[row + x * 3] ?? 0);
      data.set([v, v, v, 255], (y * width + x) * 4);
    }
  }
  return jsQR(data, width, height)?.data;
}
