/**
 * The Profile page (POST /) and the base-data page (POST /ui/cfg) over plain HTTP, with the forms sent exactly as
 * a browser sends them unchanged (every input of the page's form with its value): an unchanged save changes
 * nothing (GET /profile byte-identical, no Cfg record), stored values go back as they are (`Name=` stays empty
 * text), a page save writes the PROFILE log line, the page takes the `rn` the access hook checked, a malformed
 * language cookie is ignored, the origin check behind a reverse proxy, and Multi POS base data without `rn`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startService } from '../src/register/server.js';
import { http, post, startTestService, tempDir } from './helpers.js';
import { unpackRecordText } from '../src/register/journal/record-text.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const unescape = (s: string): string => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The fields a browser sends for the page's main form, nothing changed (checked boxes, selected options). */
function formOfPage(page: string): URLSearchParams {
  const f = /<form class="grid" method="post"[\s\S]*?<\/form>/.exec(page)?.[0];
  assert.ok(f, 'the page has its form');
  const form = new URLSearchParams();
  for (const m of f.matchAll(/<input ([^>]*)>|<select [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    if (m[2]) {
      const selected = /<option value="([^"]*)" selected/.exec(m[3] as string);
      form.append(m[2], unescape(selected?.[1] ?? ''));
      continue;
    }
    const a = m[1] as string;
    const name = /name="([^"]*)"/.exec(a)?.[1];
    if (!name) continue;
    const type = /type="([^"]*)"/.exec(a)?.[1];
    if (type === 'checkbox' && !/ checked/.test(a)) continue;
    if (/ disabled/.test(a)) continue;
    form.append(unescape(name), unescape(/value="([^"]*)"/.exec(a)?.[1] ?? ''));
  }
  return form;
}

const actionOf = (page: string): string => unescape(/<form class="grid" method="post" action="([^"]*)"/.exec(page)?.[1] ?? '');
const noticeOf = (page: string): string => unescape(/class="notice[^"]*"[^>]*>([^<]*)/.exec(page)?.[1] ?? '');

/** Opens the page and sends its form back unchanged (or with `change` applied). */
async function saveUnchanged(url: string, path: string, change?: (form: URLSearchParams) => void): Promise<{ status: number; text: string }> {
  const page = await http('GET', `${url}${path}`);
  assert.equal(page.status, 200, page.text);
  const form = formOfPage(page.text);
  change?.(form);
  return http('POST', `${url}${actionOf(page.text)}`, form.toString(), FORM);
}

function cfgRecordCount(dataDir: string): number {
  const db = new Database(join(dataDir, 'journal', 'journal.sqlite'), { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM journal WHERE type = 'Cfg'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function lastCfgRecord(dataDir: string): Record<string, unknown> {
  const db = new Database(join(dataDir, 'journal', 'journal.sqlite'), { readonly: true });
  try {
    const row = db.prepare("SELECT data FROM journal WHERE type = 'Cfg' ORDER BY sq DESC LIMIT 1").get() as { data: Buffer };
    return JSON.parse(unpackRecordText(row.data)) as Record<string, unknown>;
  } finally {
    db.close();
  }
}

test('an unchanged profile save changes nothing: def, and a register that inherits TaxId', async () => {
  const svc = await startTestService();
  try {
    let r = await post(`${svc.url}/profile`, { Badge: 'B-1', TaxId: 'ATU12345678', Attributes: 'Portal_Url= Empty= Fis_Tot My_Flag=on Quoted="a b" Proxy=' });
    assert.equal(r.status, 200, r.text);
    r = await post(`${svc.url}/profile?rn=r1`, { Badge: 'B-2', Attributes: 'Normalize_D=3' });
    assert.equal(r.status, 200, r.text);
    for (const [path, api] of [['/', '/profile'], ['/?rn=r1', '/profile?rn=r1']] as const) {
      const before = (await http('GET', `${svc.url}${api}`)).text;
      const saved = await saveUnchanged(svc.url, path);
      assert.equal(saved.status, 200, saved.text);
      assert.equal((await http('GET', `${svc.url}${api}`)).text, before, path);
      assert.match(noticeOf(saved.text), /No change/);
    }
    // the register's empty TaxId shows the instance's value, which still applies
    assert.match((await http('GET', `${svc.url}/?rn=r1`)).text, /the instance&#39;s value applies \(ATU12345678\)|the instance's value applies \(ATU12345678\)/);
  } finally {
    await svc.stop();
  }
});

test('a changed profile keeps the stored forms: Name= stays empty text, a new empty row is a bare name', async () => {
  const svc = await startTestService();
  try {
    let r = await post(`${svc.url}/profile`, { Badge: 'B-1', Attributes: 'Empty= Fis_Tot Normalize_D=9' });
    assert.equal(r.status, 200, r.text);
    const saved = await saveUnchanged(svc.url, '/', (form) => {
      const values = form.getAll('attr.value');
      const names = form.getAll('attr.name');
      const kinds = form.getAll('attr.kind');
      const i = names.findIndex((n) => n.toLowerCase() === 'normalize_d');
      values[i] = '5';
      // the first row for a new attribute: a name, no value
      const fresh = names.findIndex((n, j) => n === '' && kinds[j] === 'new');
      names[fresh] = 'New_Flag';
      form.delete('attr.value');
      form.delete('attr.name');
      // the order of the rows' inputs matters only per name: write them back in order
      for (const v of values) form.append('attr.value', v);
      for (const n of names) form.append('attr.name', n);
    });
    assert.equal(saved.status, 200, saved.text);
    r = await http('GET', `${svc.url}/profile`);
    const attrs = ` ${(r.json as { Profile: { Attributes: string } }).Profile.Attributes} `;
    assert.match(attrs, / Empty= /i);
    assert.match(attrs, / Fis_Tot /i);
    assert.match(attrs, / Normalize_D=5 /i);
    assert.match(attrs, / New_Flag /);
  } finally {
    await svc.stop();
  }
});

test('an unchanged base-data save records nothing, also with spaces around values and empty strings', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/profile`, { Badge: 'B-1' });
    const cfg = { Cmp: { Nam: ' ACME ', Adr: 'Street 1', AdrNr: '', Zip: '1010', City: 'Wien', Ctry: 'AT', TaxId: 'ATU1', Other: ' x ', Empty: '' }, Trm: { TT: '1', SW: 'x', HW: 'y', Serial: ' 42' }, Dev: [{ Id: 'D1', HW: '' }] };
    const r = await post(`${svc.url}/cfg`, { Cfg: cfg });
    assert.equal(r.status, 200, r.text);
    const before = (await http('GET', `${svc.url}/cfg`)).text;
    const records = cfgRecordCount(svc.dataDir);
    const saved = await saveUnchanged(svc.url, '/ui/cfg');
    assert.equal(saved.status, 200, saved.text);
    assert.equal((await http('GET', `${svc.url}/cfg`)).text, before);
    assert.equal(cfgRecordCount(svc.dataDir), records);
    assert.match(noticeOf(saved.text), /No change/);
    // a change keeps the spaces of the other fields
    const changed = await saveUnchanged(svc.url, '/ui/cfg', (form) => form.set('Cmp.City', 'Graz'));
    assert.equal(changed.status, 200, changed.text);
    assert.equal(cfgRecordCount(svc.dataDir), records + 1);
    const cmp = ((lastCfgRecord(svc.dataDir).Cfg as Record<string, unknown>).Cmp ?? {}) as Record<string, string>;
    assert.deepEqual([cmp.Nam, cmp.City, cmp.AdrNr, cmp.Other, cmp.Empty], [' ACME ', 'Graz', '', ' x ', '']);
  } finally {
    await svc.stop();
  }
});

test('a profile saved on the page writes the PROFILE log line', async () => {
  const dataDir = tempDir('efr-ui-log-');
  const service = await startService({ port: 0, host: '127.0.0.1', dataDir, env: {} });
  try {
    const url = `http://127.0.0.1:${service.port}`;
    const r = await post(`${url}/profile`, { Badge: 'B-1' });
    assert.equal(r.status, 200, r.text);
    const logDir = join(dataDir, 'log');
    const lines = (): Array<Record<string, unknown>> => readdirSync(logDir).flatMap((n) => readFileSync(join(logDir, n), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
    const count = (): number => lines().filter((l) => l.msg === 'profile changed' && l.type === 'PROFILE').length;
    const apiLines = count();
    assert.equal(apiLines, 1);
    const saved = await saveUnchanged(url, '/?rn=r7', (form) => form.set('Badge', 'B-7'));
    assert.equal(saved.status, 200, saved.text);
    assert.match(noticeOf(saved.text), /Saved/);
    assert.equal(count(), apiLines + 1);
    assert.ok(lines().some((l) => l.msg === 'profile changed' && l.rn === 'r7'));
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the pages take the rn the access hook checked: " A" is refused, not A without its password', async () => {
  const svc = await startTestService();
  try {
    let r = await post(`${svc.url}/profile`, { Badge: 'B-1' });
    assert.equal(r.status, 200, r.text);
    r = await post(`${svc.url}/profile?rn=A`, { Badge: 'SECRET-BADGE', Password: 'pw-of-A' });
    assert.equal(r.status, 200, r.text);
    const basicA = { authorization: `Basic ${Buffer.from('x:pw-of-A').toString('base64')}` };
    r = await post(`${svc.url}/cfg?rn=A`, { Cfg: { Cmp: { Nam: 'A Shop' } } }, basicA);
    assert.equal(r.status, 200, r.text);
    // from this machine without credentials: A itself asks for its password
    assert.equal((await http('GET', `${svc.url}/?rn=A`)).status, 401);
    for (const path of ['/?rn=%20A', '/?rn=A%20', '/ui/cfg?rn=%20A', '/?rn=%20']) {
      const page = await http('GET', `${svc.url}${path}`);
      assert.equal(page.status, 404, `${path}: ${page.status}`);
      assert.doesNotMatch(page.text, /SECRET-BADGE|A Shop/);
    }
    const token = /name="_token" value="([^"]+)"/.exec((await http('GET', `${svc.url}/`)).text)?.[1] ?? '';
    const posted = await http('POST', `${svc.url}/?rn=%20A`, `_token=${encodeURIComponent(token)}&Badge=EVIL&Password=evil&Password2=evil`, FORM);
    assert.equal(posted.status, 404);
    const cfgPosted = await http('POST', `${svc.url}/ui/cfg?rn=%20A`, `_token=${encodeURIComponent(token)}&Cmp.Nam=EVIL`, FORM);
    assert.equal(cfgPosted.status, 404);
    r = await http('GET', `${svc.url}/profile?rn=A`, undefined, basicA);
    assert.equal((r.json as { Profile: { Badge: string } }).Profile.Badge, 'SECRET-BADGE');
    r = await http('GET', `${svc.url}/cfg?rn=A`, undefined, basicA);
    assert.equal((r.json as { Cfg: { Cmp: { Nam: string } } }).Cfg.Cmp.Nam, 'A Shop');
  } finally {
    await svc.stop();
  }
});

test('a malformed language cookie is ignored', async () => {
  const svc = await startTestService();
  try {
    for (const path of ['/', '/ui/cfg']) {
      const r = await http('GET', `${svc.url}${path}`, undefined, { cookie: 'efr_lang=%', 'accept-language': 'de' });
      assert.equal(r.status, 200, r.text.slice(0, 300));
      assert.match(r.text, /<html lang="de"/);
    }
  } finally {
    await svc.stop();
  }
});

test('the origin check: host without regard to case, X-Forwarded-Host behind a proxy, the token needed always', async () => {
  const svc = await startTestService();
  try {
    // through a proxy the request is not from this machine: the password by HTTP Basic; the names the
    // browsers use are the service's (HttpServer_Hosts), else the host check refuses them first
    await post(`${svc.url}/profile`, { Badge: 'B-1', Password: 'pw', Attributes: 'HttpServer_Hosts="shop.example kasse.example.com"' });
    const basic = { authorization: `Basic ${Buffer.from('x:pw').toString('base64')}` };
    const token = encodeURIComponent(/name="_token" value="([^"]+)"/.exec((await http('GET', `${svc.url}/`, undefined, basic)).text)?.[1] ?? '');
    const send = (taxId: string, headers: Record<string, string>, withToken = true): Promise<{ status: number }> =>
      http('POST', `${svc.url}/`, `TaxId=${taxId}${withToken ? `&_token=${token}` : ''}`, { ...FORM, ...basic, ...headers });
    const taxId = async (): Promise<string> => ((await http('GET', `${svc.url}/profile`, undefined, basic)).json as { Profile: { TaxId?: string } }).Profile.TaxId ?? '';
    assert.equal((await send('ATU1', { host: 'Shop.Example', origin: 'http://shop.example' })).status, 200);
    assert.equal(await taxId(), 'ATU1');
    assert.equal((await send('ATU2', { host: 'shop.example:80', origin: 'http://SHOP.example' })).status, 200);
    assert.equal(await taxId(), 'ATU2');
    assert.equal((await send('ATU3', { origin: 'https://Kasse.Example.com', 'x-forwarded-host': 'kasse.example.com' })).status, 200);
    assert.equal(await taxId(), 'ATU3');
    // a foreign origin, also with a proxy header naming another host; a right origin without the token
    assert.equal((await send('EVIL1', { origin: 'http://evil.example', 'x-forwarded-host': 'kasse.example.com' })).status, 403);
    assert.equal((await send('EVIL2', { origin: 'https://kasse.example.com', 'x-forwarded-host': 'kasse.example.com' }, false)).status, 403);
    assert.equal(await taxId(), 'ATU3');
  } finally {
    await svc.stop();
  }
});

test('Multi POS: the base-data page without rn saves like POST /cfg (register from TaxId, TL, TT; else refused)', async () => {
  const svc = await startTestService();
  try {
    let r = await post(`${svc.url}/profile`, { Badge: 'B-1', TaxId: 'ATU99', RN_TT: true });
    assert.equal(r.status, 200, r.text);
    const defCfg = async (): Promise<string> => (await http('GET', `${svc.url}/cfg?rn=def`)).text;
    const before = await defCfg();
    const records = cfgRecordCount(svc.dataDir);
    // without TL and TT: refused as POST /cfg refuses it, no def register made
    const refused = await saveUnchanged(svc.url, '/ui/cfg', (form) => form.set('Cmp.Nam', 'Shop'));
    assert.equal(refused.status, 400, refused.text.slice(0, 300));
    assert.match(noticeOf(refused.text), /rn \(or Cfg\.Cmp\.TaxId, Cfg\.Loc\.TL and Cfg\.Trm\.TT\)/);
    assert.equal(await defCfg(), before);
    assert.equal(cfgRecordCount(svc.dataDir), records);
    const saved = await saveUnchanged(svc.url, '/ui/cfg', (form) => {
      form.set('Cmp.Nam', 'Shop');
      form.set('Loc.TL', 'L1');
      form.set('Trm.TT', 'T1');
    });
    assert.equal(saved.status, 200, saved.text.slice(0, 300));
    assert.equal(await defCfg(), before);
    assert.equal(cfgRecordCount(svc.dataDir), records + 1);
    assert.equal(actionOf(saved.text), '/ui/cfg?rn=ATU99%24L1_T1');
    r = await http('GET', `${svc.url}/cfg?rn=${encodeURIComponent('ATU99$L1_T1')}`);
    assert.equal((r.json as { Cfg: { Cmp: { Nam: string } } }).Cfg.Cmp.Nam, 'Shop');
  } finally {
    await svc.stop();
  }
});
