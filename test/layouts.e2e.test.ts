/**
 * Custom layouts over real HTTP: every route of /peri/layout and every error answer of the spec
 * (status and ErrorCode), uploads as real multipart forms, names that try to leave the layouts
 * folder, the choice of the active layout, and the template sandbox through the editor's preview.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { FormData, request } from 'undici';
import { activeLayout } from '../src/register/render/layout-store.js';
import { type HttpAnswer, answerOf, get, http, post, sale, startTestService, tempDir } from './helpers.js';

type Method = 'POST' | 'PUT';

/** A multipart upload with the file in form field `field` (undici builds the real multipart body). */
async function upload(method: Method, url: string, fileName: string, content: string | Buffer, field = 'file', headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const form = new FormData();
  form.append('note', 'a text field before the file');
  form.append(field, new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type: 'text/plain' }), fileName);
  return answerOf(await request(url, { method, body: form, headers }));
}

function assertError(r: HttpAnswer, status: number, code: string): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.json?.Result?.RC, 'BAD', r.text);
  assert.equal(r.json?.Result?.ErrorCode, code, r.text);
  // the spec's layout errors carry a Message (for a syntax error, the parser's)
  if (['#FILE_NOT_FOUND', '#MISSING_FILE', '#PUG_SYNTAX_ERROR', '#FILE_EXISTS'].includes(code)) {
    assert.ok(typeof r.json?.Result?.Message === 'string' && r.json.Result.Message.length > 0, r.text);
  }
}

test('layouts: upload, list, replace, delete, and every error answer of the spec', async () => {
  const svc = await startTestService();
  const L = `${svc.url}/peri/layout`;
  try {
    // nothing yet
    const empty = await get(L);
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.json, { RN: 'def', layouts: [] });
    assertError(await get(`${L}?name=fiscal`), 404, '#FILE_NOT_FOUND');

    // POST: 201 with the entry; the file is where the entry says, with the bytes sent
    const created = await upload('POST', L, 'fiscal.pug', 'p Hello #{ESR.T}\n');
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json, { RN: 'def', layouts: [{ name: 'fiscal', filePath: 'layouts/def/fiscal.pug', layoutType: 'PUG' }] });
    assert.equal(readFileSync(join(svc.dataDir, 'layouts/def/fiscal.pug'), 'utf8'), 'p Hello #{ESR.T}\n');
    const ejs = await upload('POST', L, 'short-1.ejs', '<p><%= ESR.T %></p>');
    assert.equal(ejs.status, 201, ejs.text);
    assert.equal(ejs.json.layouts[0].layoutType, 'EJS');

    // 409 on an existing name, whatever the type
    assertError(await upload('POST', L, 'fiscal.pug', 'p again'), 409, '#FILE_EXISTS');
    assertError(await upload('POST', L, 'fiscal.ejs', '<p>again</p>'), 409, '#FILE_EXISTS');
    assert.equal(readFileSync(join(svc.dataDir, 'layouts/def/fiscal.pug'), 'utf8'), 'p Hello #{ESR.T}\n', 'a refused upload changes nothing');

    // 400 #MISSING_FILE: a form without a file, a file under another field, no form at all
    const noFile = new FormData();
    noFile.append('note', 'only text');
    const r1 = await request(L, { method: 'POST', body: noFile });
    const t1 = await r1.body.text();
    assertError({ status: r1.statusCode, contentType: '', text: t1, json: JSON.parse(t1) }, 400, '#MISSING_FILE');
    assertError(await upload('POST', L, 'other.pug', 'p x', 'template'), 400, '#MISSING_FILE');
    assertError(await post(L, 'p not a form', { 'content-type': 'text/plain' }), 400, '#MISSING_FILE');
    assertError(await post(L), 400, '#MISSING_FILE');

    // 400 #PUG_SYNTAX_ERROR with the parser's message (pug and ejs); nothing stored
    const badPug = await upload('POST', L, 'broken.pug', 'p(class="a"\n');
    assertError(badPug, 400, '#PUG_SYNTAX_ERROR');
    assert.match(badPug.json.Result.UserMessage, /broken\.pug/);
    assert.match(badPug.json.Result.UserMessage, /no closing bracket/);
    const badEjs = await upload('POST', L, 'broken.ejs', '<p><%= ESR.T </p>');
    assertError(badEjs, 400, '#PUG_SYNTAX_ERROR');
    assert.match(badEjs.json.Result.UserMessage, /Could not find matching close tag/);
    const badJs = await upload('POST', L, 'broken2.ejs', '<% if ( { %>x');
    assertError(badJs, 400, '#PUG_SYNTAX_ERROR');
    assertError(await get(`${L}?name=broken`), 404, '#FILE_NOT_FOUND');
    // templates that would read files are refused at upload
    const inc = await upload('POST', L, 'inc.pug', 'include /etc/passwd\n');
    assertError(inc, 400, '#PUG_SYNTAX_ERROR');
    assert.match(inc.json.Result.UserMessage, /include is not allowed/);
    assertError(await upload('POST', L, 'ext.pug', 'extends /etc/hosts\n'), 400, '#PUG_SYNTAX_ERROR');
    assertError(await upload('POST', L, 'filt.pug', ':markdown-it\n  # x\n'), 400, '#PUG_SYNTAX_ERROR');

    // other files and names
    assertError(await upload('POST', L, 'notes.txt', 'p x'), 400, '#INVALID_VALUE');
    assertError(await upload('POST', L, 'noext', 'p x'), 400, '#INVALID_VALUE');
    const tooBig = await upload('POST', L, 'big.pug', `//- ${'x'.repeat(300 * 1024)}\np x\n`);
    assertError(tooBig, 413, '#TOO_LARGE');
    assertError(await upload('POST', L, 'latin1.pug', Buffer.from('p caf\xe9\n', 'latin1')), 400, '#INVALID_VALUE');

    // GET: by name, by type, all; XML when asked
    const one = await get(`${L}?name=fiscal`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.json, { RN: 'def', layouts: [{ name: 'fiscal', filePath: 'layouts/def/fiscal.pug', layoutType: 'PUG' }] });
    assert.equal((await get(`${L}?name=fiscal&type=pug`)).status, 200);
    assertError(await get(`${L}?name=fiscal&type=ejs`), 404, '#FILE_NOT_FOUND');
    assert.deepEqual((await get(`${L}?type=EJS`)).json.layouts.map((l: { name: string }) => l.name), ['short-1']);
    assert.deepEqual((await get(`${L}?RN=def`)).json.layouts.map((l: { name: string }) => l.name), ['fiscal', 'short-1']);
    assertError(await get(`${L}?type=html`), 400, '#INVALID_VALUE');
    const xml = await get(L, { accept: 'application/xml' });
    assert.equal(xml.status, 200);
    assert.match(xml.contentType, /xml/);
    const work = tempDir('efr-layout-xml-');
    writeFileSync(join(work, 'l.xml'), xml.text);
    const lint = spawnSync('xmllint', ['--xpath', 'string(/Layout/layouts[@name="short-1"]/@layoutType)', join(work, 'l.xml')], { encoding: 'utf8' });
    assert.equal(lint.status, 0, lint.stderr);
    assert.equal(lint.stdout.trim(), 'EJS');
    const xmlErr = await get(`${L}?name=absent`, { accept: 'application/xml' });
    assert.equal(xmlErr.status, 404);
    assert.match(xmlErr.text, /#FILE_NOT_FOUND/);

    // PUT: 200 and the new text; 404 for an absent one; 400 without a file or with a syntax error (old text kept)
    const replaced = await upload('PUT', L, 'fiscal.pug', 'p Replaced #{ESR.T}\n');
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(replaced.json, { RN: 'def', layouts: [{ name: 'fiscal', filePath: 'layouts/def/fiscal.pug', layoutType: 'PUG' }] });
    assert.equal(readFileSync(join(svc.dataDir, 'layouts/def/fiscal.pug'), 'utf8'), 'p Replaced #{ESR.T}\n');
    assertError(await upload('PUT', L, 'absent.pug', 'p x'), 404, '#FILE_NOT_FOUND');
    assertError(await http('PUT', L, 'x', { 'content-type': 'text/plain' }), 400, '#MISSING_FILE');
    assertError(await upload('PUT', L, 'fiscal.pug', 'p(\n'), 400, '#PUG_SYNTAX_ERROR');
    assert.equal(readFileSync(join(svc.dataDir, 'layouts/def/fiscal.pug'), 'utf8'), 'p Replaced #{ESR.T}\n');
    // a replacement may change the type: one layout of that name remains
    const toEjs = await upload('PUT', L, 'short-1.pug', 'p short\n');
    assert.equal(toEjs.status, 200, toEjs.text);
    assert.deepEqual((await get(`${L}?name=short-1`)).json.layouts, [{ name: 'short-1', filePath: 'layouts/def/short-1.pug', layoutType: 'PUG' }]);
    assert.equal(existsSync(join(svc.dataDir, 'layouts/def/short-1.ejs')), false);

    // DELETE: 200 with deleted true; 404 after; name required
    const del = await http('DELETE', `${L}?name=short-1&RN=def`);
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.json, { RN: 'def', layouts: [{ name: 'short-1', filePath: 'layouts/def/short-1.pug', layoutType: 'PUG' }], deleted: true });
    assert.equal(existsSync(join(svc.dataDir, 'layouts/def/short-1.pug')), false);
    assertError(await http('DELETE', `${L}?name=short-1`), 404, '#FILE_NOT_FOUND');
    assertError(await http('DELETE', L), 400, '#MISSING_FIELD');
    const delXml = await http('DELETE', `${L}?name=absent`, undefined, { accept: 'application/xml' });
    assert.equal(delXml.status, 404);

    // layouts are per register: another RN has its own folder (made filename-safe)
    const other = await upload('POST', `${L}?RN=ATU1$1_2`, 'fiscal.ejs', '<p>other</p>');
    assert.equal(other.status, 201, other.text);
    assert.deepEqual(other.json, { RN: 'ATU1$1_2', layouts: [{ name: 'fiscal', filePath: 'layouts/ATU1%241_2/fiscal.ejs', layoutType: 'EJS' }] });
    assert.deepEqual((await get(`${L}?name=fiscal`)).json.layouts[0].layoutType, 'PUG', 'def keeps its own');
  } finally {
    await svc.stop();
  }
});

test('layouts: names and register numbers cannot leave the layouts folder', async () => {
  const svc = await startTestService();
  const L = `${svc.url}/peri/layout`;
  try {
    for (const name of ['../evil.pug', '../../evil.pug', '/tmp/evil.pug', 'a/b.pug', 'a\\b.pug', '..pug', '.hidden.pug', 'a..b.pug', 'sp ace.pug', 'ü.pug', `${'x'.repeat(101)}.pug`]) {
      const r = await upload('POST', L, name, 'p evil\n');
      assertError(r, 400, '#INVALID_VALUE');
    }
    for (const name of ['..', '../x', '..%2Fx', '%2e%2e%2fx', '/etc/passwd', 'a/b', 'x\\y']) {
      assertError(await get(`${L}?name=${encodeURIComponent(name)}`), 400, '#INVALID_VALUE');
      assertError(await http('DELETE', `${L}?name=${encodeURIComponent(name)}`), 400, '#INVALID_VALUE');
      assertError(await get(`${L}/source?name=${encodeURIComponent(name)}`), 400, '#INVALID_VALUE');
    }
    // a register number with dots and slashes stays one folder inside layouts/
    for (const rn of ['..', '../..', '../../tmp', 'a/../../b']) {
      const r = await upload('POST', `${L}?RN=${encodeURIComponent(rn)}`, 'fiscal.pug', 'p rn\n');
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.RN, rn);
      assert.match(r.json.layouts[0].filePath, /^layouts\/[A-Za-z0-9_%-]+\/fiscal\.pug$/);
      assert.equal((await get(`${L}?RN=${encodeURIComponent(rn)}&name=fiscal`)).status, 200);
    }
    assert.deepEqual(readdirSync(join(svc.dataDir, 'layouts')).sort(), ['%2E%2E', '%2E%2E%2F%2E%2E', '%2E%2E%2F%2E%2E%2Ftmp', 'a%2F%2E%2E%2F%2E%2E%2Fb']);
    assert.equal(existsSync(join(svc.dataDir, 'evil.pug')), false);
    assert.equal(existsSync(join(svc.dataDir, '..', 'evil.pug')), false);
    assert.equal(existsSync(join(svc.dataDir, 'fiscal.pug')), false);
    assertError(await get(`${L}?RN=${'r'.repeat(201)}`), 400, '#INVALID_VALUE');
  } finally {
    await svc.stop();
  }
});

test('layouts: the active layout is the one named fiscal, else the most recently uploaded', async () => {
  const svc = await startTestService();
  const L = `${svc.url}/peri/layout`;
  try {
    assert.equal(await activeLayout(svc.dataDir, 'def'), undefined);
    assert.equal((await upload('POST', L, 'first.pug', 'p first\n')).status, 201);
    assert.deepEqual(await activeLayout(svc.dataDir, 'def'), { name: 'first', kind: 'pug', source: 'p first\n' });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal((await upload('POST', L, 'second.ejs', '<p>second</p>')).status, 201);
    assert.equal((await activeLayout(svc.dataDir, 'def'))?.name, 'second');
    assert.equal((await upload('POST', L, 'fiscal.pug', 'p fiscal\n')).status, 201);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal((await upload('PUT', L, 'first.pug', 'p first again\n')).status, 200);
    assert.deepEqual(await activeLayout(svc.dataDir, 'def'), { name: 'fiscal', kind: 'pug', source: 'p fiscal\n' }, 'fiscal wins over a newer one');
    assert.equal((await http('DELETE', `${L}?name=fiscal`)).status, 200);
    assert.deepEqual(await activeLayout(svc.dataDir, 'def'), { name: 'first', kind: 'pug', source: 'p first again\n' });
    assert.equal(await activeLayout(svc.dataDir, 'other'), undefined, 'layouts are per register');
  } finally {
    await svc.stop();
  }
});

test('template sandbox: the preview renders the last receipt; templates reach no file, process, require or code generation, and cannot loop', async () => {
  const svc = await startTestService();
  const P = `${svc.url}/peri/pugedit/preview`;
  const secret = join(tempDir('efr-secret-'), 'secret.txt');
  writeFileSync(secret, 'TOP-SECRET-42');
  const preview = (template: string, query = ''): Promise<HttpAnswer> => post(`${P}${query}`, template, { 'content-type': 'text/plain; charset=utf-8' });
  try {
    // without a receipt: empty data, still a preview
    const before = await preview('p= Object.keys(ESR).length + "/" + (Fis.FN === undefined)');
    assert.equal(before.status, 200, before.text);
    assert.equal(before.text, '<p>0/true</p>');

    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo GmbH', Ctry: 'AT', TaxId: 'ATU12345678' } } });
    const first = await post(`${svc.url}/register`, sale());
    assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
    const second = await post(`${svc.url}/register`, sale({}, [['A', '9.99']]));
    assert.equal(second.json.TraC.Result.RC, 'OK', second.text);

    const last = await preview('p #{Cfg.Cmp.Nam} #{ESR.T} #{Fis.FN} #{ESR.PosA.length}');
    assert.equal(last.status, 200, last.text);
    assert.match(last.contentType, /text\/html/);
    assert.equal(last.text, `<p>Demo GmbH 9.99 ${second.json.TraC.Fis.FN as string} 1</p>`);
    // the same locals GET /render gives a layout: the view model too (top level and as receipt)
    assert.equal((await preview('p= String(receipt.fn === Fis.FN && fn === Fis.FN)')).text, '<p>true</p>');
    // and GET /render draws the register's custom layout
    assert.equal((await upload('POST', `${svc.url}/peri/layout`, 'fiscal.pug', 'p#custom Custom #{ESR.T}\n')).status, 201);
    const rendered = await get(`${svc.url}/render`);
    assert.equal(rendered.status, 200, rendered.text);
    assert.equal(rendered.text, '<p id="custom">Custom 9.99</p>');
    const byFn = await preview('p= ESR.T', `?FN=${encodeURIComponent(first.json.TraC.Fis.FN as string)}`);
    assert.equal(byFn.text, '<p>4.70</p>');
    assertError(await preview('p= ESR.T', '?FN=999999'), 404, '#NOT_FOUND');
    const viaEjs = await preview('<b><%= ESR.T %></b><%= "<i>" %>', '?type=ejs');
    assert.equal(viaEjs.text, '<b>9.99</b>&lt;i&gt;');
    assertError(await preview('p(', ''), 400, '#PUG_SYNTAX_ERROR');

    // runtime failures name the template; nothing of the host is reachable
    const failing: Array<[string, string, RegExp]> = [
      ['p= process.env.HOME', '', /process is not defined|Cannot read properties of undefined/],
      ['p= globalThis.process.pid', '', /Cannot read properties of undefined/],
      ['- const fs = require("fs")\np= fs.readFileSync(' + JSON.stringify(secret) + ', "utf8")', '', /require is not (defined|a function)/],
      ['p= this.constructor.constructor("return process")().pid', '', /Code generation from strings disallowed/],
      ['p= ESR.constructor.constructor("return process")().pid', '', /Code generation from strings disallowed/],
      ['p= eval("1 + 1")', '', /Code generation from strings disallowed/],
      ['p= new Function("return 1")()', '', /Code generation from strings disallowed/],
      ["<%- include(" + JSON.stringify(secret) + ") %>", '?type=ejs', /include is not allowed/],
      ["<%= process.mainModule.require('fs').readFileSync(" + JSON.stringify(secret) + ") %>", '?type=ejs', /process is not defined/],
      ["<%= this.constructor.constructor('return process')() %>", '?type=ejs', /Code generation from strings disallowed/],
    ];
    for (const [template, query, why] of failing) {
      const r = await preview(template, query);
      assert.doesNotMatch(r.text, /TOP-SECRET-42/, template);
      assertError(r, 400, '#INVALID_VALUE');
      assert.match(r.json.Result.UserMessage, /layout preview\.(pug|ejs)/, template);
      assert.match(r.json.Result.UserMessage, why, `${template}: ${r.json.Result.UserMessage as string}`);
    }
    // include of a file: refused before anything is read
    const inc = await preview(`include ${secret}`);
    assertError(inc, 400, '#PUG_SYNTAX_ERROR');
    assert.doesNotMatch(inc.text, /TOP-SECRET-42/);
    // import() has no module loader behind it; rejected promises stay in the sandbox (the service lives on)
    assertError(await preview('p= import("fs")'), 400, '#PUG_SYNTAX_ERROR');
    const imp = await preview('<% import("fs").then(function (fs) { fs.readFileSync("/etc/passwd") }) %>imported? <%= typeof import("fs").then %>', '?type=ejs');
    assert.equal(imp.status, 200, imp.text);
    assert.equal(imp.text, 'imported? function');
    const rejected = await preview('<% Promise.reject(new Error("nobody catches me")); (async function () { throw new Error("me neither") })() %>still here', '?type=ejs');
    assert.equal(rejected.text, 'still here');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await get(`${svc.url}/state`)).status, 200);
    // what a template sees as its world: the language's built-ins and its data, nothing else
    const world = await preview('p= [typeof process, typeof require, typeof module, typeof setTimeout, typeof Atomics, typeof WebAssembly, typeof globalThis.process].join()');
    assert.equal(world.text, '<p>undefined,undefined,undefined,undefined,undefined,undefined,undefined</p>');

    // endless loops (also in a promise job) are stopped after the timeout, and the service still answers
    for (const [template, query] of [['- while (true) {}', ''], ['- Promise.resolve().then(() => { for (;;) {} })\np x', ''], ['<% for (;;) {} %>', '?type=ejs'], ['- throw { get message() { for (;;) {} } }', '']] as const) {
      const r = await preview(template, query);
      assertError(r, 400, '#INVALID_VALUE');
      assert.match(r.json.Result.UserMessage, /longer than 1000 ms/);
    }
    // a template that eats memory hits the sandbox's heap limit, not the service's
    const hungry = await preview('- const a = []; for (;;) a.push(new Array(100000).fill(a.length))');
    assertError(hungry, 400, '#INVALID_VALUE');
    assert.equal((await preview('p= ESR.T')).text, '<p>9.99</p>', 'the next render works');
    assert.equal((await get(`${svc.url}/state`)).status, 200);
    assertError(await preview(`//- ${'x'.repeat(300 * 1024)}`), 413, '#TOO_LARGE');
  } finally {
    await svc.stop();
  }
});

test('the editor page and its script are served with a content security policy', async () => {
  const svc = await startTestService();
  try {
    const page = await get(`${svc.url}/peri/pugedit`);
    assert.equal(page.status, 200);
    assert.match(page.contentType, /text\/html/);
    assert.match(page.text, /<textarea id="template"/);
    assert.match(page.text, /<iframe id="preview" sandbox=""/);
    const res = await request(`${svc.url}/peri/pugedit`);
    assert.match(String(res.headers['content-security-policy']), /script-src 'self'/);
    await res.body.text();
    const js = await get(`${svc.url}/peri/pugedit/editor.js`);
    assert.equal(js.status, 200);
    assert.match(js.contentType, /javascript/);
    assert.match(js.text, /\/peri\/pugedit\/preview/);
    // the source of a layout, for the editor to load it
    assert.equal((await upload('POST', `${svc.url}/peri/layout`, 'mine.ejs', '<p>mine</p>')).status, 201);
    const src = await get(`${svc.url}/peri/layout/source?name=mine`);
    assert.equal(src.status, 200);
    assert.equal(src.text, '<p>mine</p>');
    assertError(await get(`${svc.url}/peri/layout/source?name=absent`), 404, '#FILE_NOT_FOUND');
    assertError(await get(`${svc.url}/peri/layout/source`), 400, '#MISSING_FIELD');
  } finally {
    await svc.stop();
  }
});
