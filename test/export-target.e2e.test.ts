/**
 * GET /export with `target`: the export file written into an existing folder of this machine (atomically,
 * nothing half-written or temporary left) and answered as the file, the same bytes; refused, naming
 * `target`, for a folder that does not exist, a relative path, a file, a network path; from another
 * machine only with the profile password. And the SAF-T export of a Swedish register: refused as not
 * available yet in this version.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { verifyZip } from '../src/register/journal/export/verify-zip.js';
import { type TestService, post, sale, startTestService, tempDir } from './helpers.js';

interface Download {
  status: number;
  disposition: string;
  body: Buffer;
}

let svc: TestService;
let folders: string;

async function download(query: string, headers: Record<string, string> = {}): Promise<Download> {
  const res = await request(`${svc.url}/export?${query}`, { headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, disposition: String(res.headers['content-disposition'] ?? ''), body };
}

const fileNameOf = (d: Download): string => /filename="([^"]+)"/.exec(d.disposition)?.[1] ?? '';

before(async () => {
  svc = await startTestService();
  folders = tempDir('efr-export-target-');
  for (let i = 0; i < 5; i++) assert.equal((await post(`${svc.url}/register`, sale())).json?.TraC?.Result?.RC, 'OK');
});

after(async () => {
  await svc?.close();
  if (folders) rmSync(folders, { recursive: true, force: true });
});

describe('GET /export?target=', () => {
  test('writes the export into the folder and answers the same file; a second export replaces it atomically', async () => {
    const folder = join(folders, 'exports');
    mkdirSync(folder);
    const res = await download(`type=jou&target=${encodeURIComponent(folder)}`);
    assert.equal(res.status, 200, res.body.toString('utf8', 0, 400));
    const name = fileNameOf(res);
    assert.match(name, /^jou_def_1-\d+\.zip$/);
    assert.deepEqual(readdirSync(folder), [name], 'the file alone: no temporary file left');
    const written = readFileSync(join(folder, name));
    assert.ok(written.equals(res.body), 'the answer is the file written');
    const report = await verifyZip(join(folder, name));
    assert.equal(report.ok, true, report.broken?.reason);

    // the same export again: the file is replaced, still one file
    const again = await download(`type=jou&target=${encodeURIComponent(folder)}`);
    assert.equal(again.status, 200);
    assert.deepEqual(readdirSync(folder), [name]);
    // a path with a trailing separator names the same folder
    assert.equal((await download(`type=jou&target=${encodeURIComponent(`${folder}/`)}`)).status, 200);
    assert.deepEqual(readdirSync(folder), [name]);
  });

  test('refusals name target: a folder that does not exist, a relative path, a file, a network path, nothing', async () => {
    const file = join(folders, 'a-file');
    writeFileSync(file, 'x');
    const cases: Array<[string, RegExp]> = [
      [join(folders, 'missing'), /target: a folder that exists on this machine/],
      ['exports', /target: the absolute path of a folder on this machine/],
      ['../..', /target: the absolute path of a folder on this machine/],
      [file, /target: a folder, not a file/],
      ['//fileserver/share', /target: a folder on this machine, not a network path/],
      ['\\\\fileserver\\share', /target: a folder on this machine, not a network path/],
      ['', /target: the absolute path of a folder on this machine/],
    ];
    for (const [target, message] of cases) {
      const res = await download(`type=jou&target=${encodeURIComponent(target)}`);
      assert.equal(res.status, 400, `${target}: ${res.body.toString()}`);
      const text = res.body.toString();
      assert.match(text, /"RC":"BAD"/);
      assert.match(text, /#INVALID_VALUE/);
      assert.match(text, message, text);
    }
    assert.deepEqual(readdirSync(folders).sort(), ['a-file', 'exports'], 'nothing was written');
  });

  test('a folder the file cannot be written into is refused naming target, with nothing left in it', async () => {
    const folder = join(folders, 'taken');
    const name = fileNameOf(await download('type=jou'));
    // the export's name is taken by a folder of the same name
    mkdirSync(join(folder, name, 'inside'), { recursive: true });
    const res = await download(`type=jou&target=${encodeURIComponent(folder)}`);
    assert.equal(res.status, 400, res.body.toString('utf8', 0, 400));
    const text = res.body.toString();
    assert.match(text, /"RC":"BAD"/);
    assert.match(text, /target: a folder this service can write .+ into/, text);
    assert.deepEqual(readdirSync(folder), [name], 'no temporary file left');
  });

  test('from another machine only with the profile password', async () => {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Password: 'exp-pw' })).status, 200);
    const folder = join(folders, 'remote');
    mkdirSync(folder);
    // a request through a proxy is never this machine's
    const proxied = { 'x-forwarded-for': '203.0.113.9' };
    const refused = await download(`type=jou&target=${encodeURIComponent(folder)}`, proxied);
    assert.equal(refused.status, 403, refused.body.toString());
    assert.match(refused.body.toString(), /#FORBIDDEN/);
    assert.equal((await download(`type=jou&target=${encodeURIComponent(folder)}&password=wrong`, proxied)).status, 403);
    assert.deepEqual(readdirSync(folder), []);
    const allowed = await download(`type=jou&target=${encodeURIComponent(folder)}&password=exp-pw`, proxied);
    assert.equal(allowed.status, 200, allowed.body.toString('utf8', 0, 400));
    assert.deepEqual(readdirSync(folder), [fileNameOf(allowed)]);
  });
});

describe('GET /export?type=saft of a Swedish register', () => {
  test("answered with the Swedish SAF-T zip; another country without the export is told whose export it is", async () => {
    const cfg = { Cfg: { Cmp: { Nam: 'Kaffe AB', Ctry: 'SE', Org: '556677-8899' }, Loc: { TL: '1' }, Trm: { TT: '1' } } };
    assert.equal((await post(`${svc.url}/cfg?rn=SE1&password=exp-pw`, cfg)).status, 200);
    const res = await download('type=saft&rn=SE1&password=exp-pw');
    assert.equal(res.status, 200, res.body.toString('utf8', 0, 400));
    assert.match(fileNameOf(res), /^saft-5566778899\.zip$/);
    const other = await download('type=saft&rn=def');
    assert.match(other.body.toString(), /saft is not an export of registers of country none/);
  });
});
