/**
 * Receipt rendering over real HTTP: an Austrian and a German receipt registered, then drawn as
 * HTML (every Fis.Tag with its label; the QR image decoded by jsQR, also as chromium draws the page),
 * PDF (read back by pdftotext, the QR rasterized by pdftoppm and decoded), fixed-width text and ESC/POS
 * (parsed by a reader here: the lines, the QR store command holding Fis.Code, the cut); POST /render
 * of what /tra and /find gave back; Head/Foot; the Cfg in force; a custom layout; the refusals.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { FormData, request } from 'undici';
import { type HttpAnswer, type TestService, get, post, sale, startTestService, tempDir } from './helpers.js';

// jsqr is CommonJS with a `default` export in its types: the function is its `default`
const jsQR = jsQRModule.default;

const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const NON_LATIN1 = 'Čaj ő € ł';

interface Tag {
  Name: string;
  Label: string;
  Value: string;
}
interface Registered {
  fn: string;
  tn: string;
  code: string;
  tags: Tag[];
}

let svc: TestService;
let at: Registered;
let de: Registered;
const work = tempDir('efr-render-');

async function bytes(method: 'GET' | 'POST', url: string, body?: string, contentType = 'application/json'): Promise<{ status: number; contentType: string; body: Buffer }> {
  const res = await request(url, { method, ...(body !== undefined ? { body, headers: { 'content-type': contentType } } : {}) });
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.from(await res.body.arrayBuffer()) };
}

function registered(r: HttpAnswer): Registered {
  assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
  const fis = r.json.TraC.Fis;
  assert.ok(fis.Code, 'the receipt has a code to print');
  assert.ok(fis.Tag.length > 0, 'and tags');
  return { fn: r.json.TraC.ESR.FN, tn: r.json.TraC.ESR.TN, code: fis.Code, tags: fis.Tag };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A tag's value as the receipt prints it: amounts with the language's decimal mark, dates in its order. */
function printed(value: string, lang: 'de' | 'en'): string {
  const date = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}:\d{2}:\d{2})$/.exec(value);
  if (date) return lang === 'de' ? `${date[3]}.${date[2]}.${date[1]} ${date[4]}` : `${date[3]} ${MONTHS[Number(date[2]) - 1]} ${date[1]} ${date[4]}`;
  return lang === 'de' ? value.replace(/^(\d+ % -?\d+)\.(\d\d)$/, '$1,$2') : value;
}

/** The language the registers of this file print in: the Austrian one is set to German, the German one left in English. */
function langOf(rn: 'at' | 'de'): 'de' | 'en' {
  return rn === 'at' ? 'de' : 'en';
}

/** The lines of the default template (each a `div.l`), as text. */
function htmlLines(html: string): string[] {
  return [...html.matchAll(/<div class="l(?: b)?">([^<]*)<\/div>/g)].map((m) => (m[1] ?? '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&'));
}

/** The text output's lines without the written-out Fis.Code (the HTML shows it as an image). */
function withoutCode(lines: readonly string[]): string[] {
  const qr = lines.findIndex((l) => /^(QR-Code|QR code):$/.test(l));
  if (qr < 0) return [...lines];
  const end = lines.findIndex((l, i) => i > qr && l === '');
  return [...lines.slice(0, qr), ...(end < 0 ? [] : lines.slice(end))];
}

const squeezed = (s: string): string => s.replace(/\s+/g, '');

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function decodePng(png: Buffer): string | undefined {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
}

function qrOfHtml(html: string): string | undefined {
  const src = /<img[^>]* src="data:image\/png;base64,([A-Za-z0-9+/=]+)"/.exec(html)?.[1];
  assert.ok(src, 'the HTML has the QR code as a PNG image');
  return decodePng(Buffer.from(src, 'base64'));
}

/** What the PDF says, as pdftotext reads it (layout kept, so that a line's columns stay on one line). */
function pdfText(pdf: Buffer, name: string): string {
  const path = join(work, `${name}.pdf`);
  writeFileSync(path, pdf);
  const r = spawnSync('pdftotext', ['-layout', '-enc', 'UTF-8', path, '-'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

function pdfQr(pdf: Buffer, name: string): string | undefined {
  const path = join(work, `${name}-qr.pdf`);
  writeFileSync(path, pdf);
  const r = spawnSync('pdftoppm', ['-r', '200', '-png', '-singlefile', path, join(work, `${name}-qr`)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return decodePng(readFileSync(join(work, `${name}-qr.png`)));
}

/** The fonts pdffonts lists: name and whether embedded. */
function pdfFonts(pdf: Buffer, name: string): string {
  const path = join(work, `${name}-fonts.pdf`);
  writeFileSync(path, pdf);
  return spawnSync('pdffonts', [path], { encoding: 'utf8' }).stdout;
}

/** A reader of the ESC/POS commands the renderer may use; anything else fails the test. */
interface Escpos {
  init: boolean;
  codePage: number | undefined;
  lines: string[];
  boldLines: string[];
  qrStored: string[];
  qrPrinted: number;
  qrModel: number | undefined;
  cut: boolean;
  afterCut: number;
}

/** PC858 letters the receipts here use (the rest of the upper half is not needed to read them). */
const PC858: Readonly<Record<number, string>> = { 0x81: 'ü', 0x84: 'ä', 0x94: 'ö', 0x82: 'é', 0xe1: 'ß', 0xd5: '€', 0x8e: 'Ä', 0x99: 'Ö', 0x9a: 'Ü' };

function parseEscpos(buf: Buffer): Escpos {
  const out: Escpos = { init: false, codePage: undefined, lines: [], boldLines: [], qrStored: [], qrPrinted: 0, qrModel: undefined, cut: false, afterCut: 0 };
  let line = '';
  let bold = false;
  let lineBold = false;
  let i = 0;
  const at = (k: number): number => {
    const b = buf[k];
    assert.ok(b !== undefined, `command cut short at byte ${k}`);
    return b;
  };
  while (i < buf.length) {
    if (out.cut) out.afterCut += 1;
    const b = at(i);
    if (b === 0x1b) {
      const c = String.fromCharCode(at(i + 1));
      if (c === '@') {
        out.init = true;
        i += 2;
      } else if (c === 't') {
        out.codePage = at(i + 2);
        i += 3;
      } else if (c === 'a' || c === 'd') {
        i += 3;
      } else if (c === 'E') {
        bold = at(i + 2) === 1;
        i += 3;
      } else assert.fail(`unknown ESC ${c} at ${i}`);
    } else if (b === 0x1d) {
      const c = String.fromCharCode(at(i + 1));
      if (c === '(' && at(i + 2) === 0x6b) {
        const len = at(i + 3) + 256 * at(i + 4);
        assert.equal(at(i + 5), 0x31, 'cn 49: QR code');
        const fn = at(i + 6);
        const params = buf.subarray(i + 7, i + 5 + len);
        assert.equal(params.length, len - 2, 'pL pH cover the parameters');
        if (fn === 0x41) out.qrModel = params[0];
        if (fn === 0x50) {
          assert.equal(params[0], 0x30);
          out.qrStored.push(params.subarray(1).toString('utf8'));
        }
        if (fn === 0x51) out.qrPrinted += 1;
        i += 5 + len;
      } else if (c === 'V') {
        const m = at(i + 2);
        out.cut = true;
        i += m === 0 || m === 1 || m === 48 || m === 49 ? 3 : 4;
      } else assert.fail(`unknown GS ${c} at ${i}`);
    } else if (b === 0x0a) {
      out.lines.push(line);
      if (lineBold) out.boldLines.push(line);
      line = '';
      lineBold = false;
      i += 1;
    } else {
      assert.ok(b >= 0x20, `control byte ${b} at ${i}`);
      line += b < 0x80 ? String.fromCharCode(b) : (PC858[b] ?? '\ufffd');
      lineBold ||= bold;
      i += 1;
    }
  }
  assert.equal(line, '', 'every text line ends with LF');
  return out;
}

before(async () => {
  svc = await startTestService();
  // Austria, in German (decimal commas); Germany left in English (decimal points)
  const atCfg = await post(`${svc.url}/cfg?rn=at`, {
    Cfg: {
      Cmp: { Nam: 'Café Wien GmbH', Adr: 'Ring', AdrNr: '1', Zip: '1010', City: 'Wien', Ctry: 'AT', TaxId: 'ATU12345678' },
      Loc: { TL: 'wien', Nam: 'Filiale Oper', Adr: 'Opernring', AdrNr: '2', Zip: '1010', City: 'Wien', Ctry: 'AT' },
      Trm: { TT: '3', SW: 'POS', HW: 'PC', Serial: 'S-42', Lang: 'de' },
    },
  });
  assert.equal(atCfg.status, 200, atCfg.text);
  at = registered(await post(`${svc.url}/register?rn=at`, {
    Tra: {
      ESR: {
        Head: { Txt: 'Willkommen im Café\nTisch 7' },
        Foot: { Txt: 'Danke für Ihren Besuch' },
        PosA: [
          { _: 'Pos', Dsc: NON_LATIN1, TaxG: 'A', Qty: '2', Pri: '3.00', Amt: '6.00' },
          { _: 'Mod', PN: '1', Dsc: 'Rabatt', Prc: '10', Amt: '-0.60' },
          { _: 'Pos', Dsc: 'Kaffee', TaxG: 'B', Amt: '3.30' },
        ],
        PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '10.00' }, { _: 'Pay', Dsc: 'Wechselgeld', PayG: 'change', Amt: '-1.30' }],
      },
    },
  }));
  assert.equal((await post(`${svc.url}/cfg?rn=de`, { Cfg: { Cmp: { Nam: 'Bäckerei Demo', Adr: 'Hauptstr.', AdrNr: '5', Zip: '10115', City: 'Berlin', Ctry: 'DE', TaxId: 'DE123456789' } } })).status, 200);
  de = registered(await post(`${svc.url}/register?rn=de`, {
    Tra: { ESR: { TL: '001', TT: '1', PosA: [{ _: 'Pos', Dsc: 'Brot', TaxG: 'B', Amt: '1.50' }, { _: 'Pos', Dsc: 'Bier', TaxG: 'A', Amt: '6.88' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '8.38' }] } },
  }));
});

after(async () => {
  await svc.stop();
});

describe('GET /render (HTML)', () => {
  for (const country of ['at', 'de'] as const) {
    test(`${country}: the lines of the text receipt, every Fis.Tag with label and value, the QR image decodes to Fis.Code`, async () => {
      const r = country === 'at' ? at : de;
      const html = await get(`${svc.url}/render?rn=${country}`);
      assert.equal(html.status, 200, html.text);
      assert.equal(html.contentType, 'text/html; charset=utf-8');
      assert.match(html.text, /^<!DOCTYPE html>/);
      const text = (await get(`${svc.url}/render/text?rn=${country}`)).text.split('\n').slice(0, -1);
      assert.deepEqual(htmlLines(html.text), withoutCode(text));
      const shown = squeezed(htmlLines(html.text).join(''));
      for (const t of r.tags) assert.ok(shown.includes(squeezed(`${t.Label}${printed(t.Value, langOf(country))}`)), `tag ${t.Name}`);
      assert.equal(qrOfHtml(html.text), r.code);
      // the same receipt by its FN
      const byFn = await get(`${svc.url}/render?rn=${country}&FN=${encodeURIComponent(r.fn)}`);
      assert.equal(byFn.text, html.text);
    });
  }

  test('header, positions with their discount, tax table, payments, Head and Foot, ids', async () => {
    const html = (await get(`${svc.url}/render?rn=at`)).text;
    for (const s of ['Café Wien GmbH', 'Ring 1', '1010 Wien', 'USt-IdNr. ATU12345678', 'Filiale Oper', 'Opernring 2', 'Kasse 3 (S-42)', NON_LATIN1, '2 x 3,00', 'Rabatt 10 %', '-0,60', 'Kaffee', '8,70', 'Wechselgeld', '-1,30', 'Willkommen im Café', 'Tisch 7', 'Danke für Ihren Besuch']) {
      assert.ok(html.includes(s), s);
    }
    // one amount column: the items' amounts, the discount, the total, the payments and the tax table's gross end at 40 of 42
    const lines = htmlLines(html);
    for (const re of [/^A 20 % +4,50 +0,90 +5,40$/, /^B 10 % +3,00 +0,30 +3,30$/, /^ {2}Rabatt 10 % +-0,60$/, /^Summe +8,70$/, /^Bar +10,00$/, /^Wechselgeld +-1,30$/, /^Kaffee +3,30 B$/]) {
      const line = lines.find((l) => re.test(l));
      assert.ok(line, `${re} in\n${lines.join('\n')}`);
      assert.equal(line.replace(/ B$/, '').length, 40, line);
    }
    assert.ok(lines.includes(`Beleg-Nr.${' '.repeat(42 - 9 - at.tn.length)}${at.tn}`));
    assert.ok(lines.includes(`Fiskal-Nr.${' '.repeat(42 - 10 - at.fn.length)}${at.fn}`));
    // the country is named once, in the receipt's language
    assert.equal(lines.filter((l) => l.trim() === 'Österreich').length, 1);
    assert.ok(!lines.some((l) => l.trim() === 'AT'));
    // the German register speaks English here, with decimal points
    const deHtml = (await get(`${svc.url}/render?rn=de`)).text;
    assert.ok(htmlLines(deHtml).includes(`Total${' '.repeat(42 - 2 - 5 - 4)}8.38`), deHtml);
    assert.ok(htmlLines(deHtml).includes(`Location${' '.repeat(42 - 8 - 3)}001`));
    assert.ok(!deHtml.includes('Willkommen'), 'no Head text');
  });

  test('chromium draws the page: the QR image loads and decodes, the tags read as label and value', async () => {
    const html = (await get(`${svc.url}/render?rn=de`)).text;
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BROWSER_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 500, height: 900 } });
      await page.setContent(html);
      const img = page.locator('.qr img');
      assert.ok(await img.evaluate((e) => (e as HTMLImageElement).complete && (e as HTMLImageElement).naturalWidth > 0));
      assert.equal(decodePng(Buffer.from(await img.screenshot({ type: 'png' }))), de.code);
      // the tags as printed: a long value (the TSE signature) broken over lines as on paper
      const text = (await page.locator('section.tags .l').allTextContents()).join('');
      for (const t of de.tags) assert.ok(squeezed(text).includes(squeezed(`${t.Label}${printed(t.Value, 'en')}`)), `${t.Label} ${t.Value} in ${text}`);
    } finally {
      await browser.close();
    }
  });
});

describe('GET /render/pdf', () => {
  test('FN, total, tax lines and the non-Latin-1 text; DejaVu embedded; the QR code drawn', async () => {
    const r = await bytes('GET', `${svc.url}/render/pdf?rn=at`);
    assert.equal(r.status, 200);
    assert.equal(r.contentType, 'application/pdf');
    assert.equal(r.body.subarray(0, 5).toString('latin1'), '%PDF-');
    const text = pdfText(r.body, 'at');
    assert.match(text, new RegExp(`Fiskal-Nr\\. +${at.fn}\\n`));
    assert.match(text, /Summe +8,70/);
    assert.match(text, /A 20 % +4,50 +0,90 +5,40/);
    assert.match(text, /B 10 % +3,00 +0,30 +3,30/);
    assert.ok(text.includes(NON_LATIN1), text);
    for (const t of at.tags) assert.ok(text.includes(`${t.Label} ${printed(t.Value, 'de')}`), `${t.Label} ${printed(t.Value, 'de')}`);
    const fonts = pdfFonts(r.body, 'at');
    assert.match(fonts, /DejaVuSansMono +CID TrueType +Identity-H +yes/);
    assert.equal(pdfQr(r.body, 'at'), at.code);
    // 48 columns: a wider page, same content
    const wide = pdfText((await bytes('GET', `${svc.url}/render/pdf?rn=de&width=48`)).body, 'de');
    assert.match(wide, /Total +8\.38/);
  });
});

describe('GET /render/text', () => {
  for (const width of [42, 48]) {
    test(`${width} columns: no line longer, the totals, the tags, the code written out`, async () => {
      for (const [rn, r] of [['at', at], ['de', de]] as const) {
        const res = await get(`${svc.url}/render/text?rn=${rn}${width === 42 ? '' : `&width=${width}`}`);
        assert.equal(res.status, 200);
        assert.equal(res.contentType, 'text/plain; charset=utf-8');
        const lines = res.text.split('\n');
        assert.equal(lines.pop(), '', 'ends with a newline');
        for (const l of lines) assert.ok(Array.from(l).length <= width, `longer than ${width}: "${l}"`);
        assert.ok(lines.some((l) => Array.from(l).length === width), 'the columns are used');
        const total = rn === 'at' ? 'Summe' : 'Total';
        const amount = rn === 'at' ? '8,70' : '8.38';
        // in the amount column, left of the items' tax group letters
        assert.ok(lines.includes(`${total}${' '.repeat(width - 2 - total.length - amount.length)}${amount}`), `total line in\n${res.text}`);
        assert.ok(lines.includes('-'.repeat(width)));
        // a long signature is broken over lines, nothing of it lost
        const joined = lines.join('');
        for (const t of r.tags) assert.ok(joined.replace(/ /g, '').includes(`${t.Label}${printed(t.Value, langOf(rn))}`.replace(/ /g, '')), t.Name);
        assert.ok(joined.includes(r.code.replace(/ /g, '')), 'Fis.Code written out');
      }
    });
  }

  test('Head and Foot centred; the discount indented under its position', async () => {
    const lines = (await get(`${svc.url}/render/text?rn=at`)).text.split('\n');
    const head = lines.find((l) => l.trim() === 'Willkommen im Café');
    assert.equal(head, `${' '.repeat(Math.floor((42 - 18) / 2))}Willkommen im Café`);
    assert.ok(lines.some((l) => l.trim() === 'Danke für Ihren Besuch'));
    const pos = lines.findIndex((l) => l.startsWith(NON_LATIN1));
    assert.equal(lines[pos], `${NON_LATIN1}${' '.repeat(42 - 9 - 6)}6,00 A`);
    assert.equal(lines[pos + 1], '  2 x 3,00');
    assert.match(lines[pos + 2] ?? '', /^ {2}Rabatt 10 % +-0,60$/);
  });
});

describe('GET /render/escpos', () => {
  test('init, code page, the text lines, the QR store command with Fis.Code, feed and cut', async () => {
    for (const [rn, r] of [['at', at], ['de', de]] as const) {
      const res = await bytes('GET', `${svc.url}/render/escpos?rn=${rn}`);
      assert.equal(res.status, 200);
      assert.equal(res.contentType, 'application/octet-stream');
      const p = parseEscpos(res.body);
      assert.ok(p.init);
      assert.equal(p.codePage, 19, 'PC858');
      assert.deepEqual(p.qrStored, [r.code]);
      assert.equal(p.qrPrinted, 1);
      assert.equal(p.qrModel, 0x32, 'model 2');
      assert.ok(p.cut, 'cut');
      assert.equal(p.afterCut, 0, 'the cut is the last command');
      // the same lines as the text output, less its written-out code and centring
      const text = (await get(`${svc.url}/render/text?rn=${rn}`)).text.split('\n').slice(0, -1);
      const qr = text.findIndex((l) => /^(QR-Code|QR code):$/.test(l));
      const end = text.findIndex((l, i) => i > qr && l === '');
      const expected = [...text.slice(0, qr), '', ...text.slice(end === -1 ? text.length : end)].map((l) => l.trim().replace(NON_LATIN1, 'Caj o € l'));
      assert.deepEqual(p.lines.map((l) => l.trim()), expected);
      const name = rn === 'at' ? 'Café Wien GmbH' : 'Bäckerei Demo';
      assert.ok(p.boldLines.includes(name), 'the company name in bold');
    }
  });
});

describe('POST /render', () => {
  test('a Tra from /tra (JSON and XML) or /find renders as GET does', async () => {
    const tra = await get(`${svc.url}/tra?rn=de&tl=001&tt=1&tn=${de.tn}`);
    assert.equal(tra.status, 200, tra.text);
    const html = (await get(`${svc.url}/render?rn=de&fn=${de.fn}`)).text;
    const posted = await post(`${svc.url}/render`, tra.text, { 'content-type': 'application/json' });
    assert.equal(posted.status, 200, posted.text);
    assert.equal(posted.text, html);
    const xml = await get(`${svc.url}/tra?rn=de&tl=001&tt=1&tn=${de.tn}`, { accept: 'application/xml' });
    assert.match(xml.text, /^<\?xml/);
    assert.equal((await post(`${svc.url}/render`, xml.text, { 'content-type': 'application/xml' })).text, html);
    // one record of /find, and the /find answer holding it
    const find = await get(`${svc.url}/find?rn=at&_=Tra&sort=desc&limit=1rows`);
    const record = find.json.Find.Records[0];
    assert.equal(record._, 'Tra');
    const atHtml = (await get(`${svc.url}/render?rn=at`)).text;
    assert.equal((await post(`${svc.url}/render`, JSON.stringify(record), { 'content-type': 'application/json' })).text, atHtml);
    assert.equal((await post(`${svc.url}/render`, find.text, { 'content-type': 'application/json' })).text, atHtml);
    // the path names the output for POST too
    assert.equal((await post(`${svc.url}/render/text?width=48`, tra.text, { 'content-type': 'application/json' })).text, (await get(`${svc.url}/render/text?rn=de&width=48`)).text);
    // the HTML lines take the width too: the page shows what a 48-column printer prints
    const wideHtml = htmlLines((await get(`${svc.url}/render?rn=de&width=48`)).text);
    assert.ok(wideHtml.some((l) => l.length === 48), 'lines of 48 columns');
    assert.ok(htmlLines((await get(`${svc.url}/render?rn=de`)).text).every((l) => l.length <= 42), 'the default stays 42');
    const escpos = await bytes('POST', `${svc.url}/render/escpos`, tra.text);
    assert.deepEqual(parseEscpos(escpos.body).qrStored, [de.code]);
    const pdf = await bytes('POST', `${svc.url}/render/pdf`, tra.text);
    assert.match(pdfText(pdf.body, 'posted'), /Total +8\.38/);
  });

  test('a TraS and an Audit render too', async () => {
    const start = await post(`${svc.url}/register?rn=de`, { TraS: { ESR: { TL: '001', TT: '1' } } });
    assert.equal(start.json.TraSC.Result.RC, 'OK', start.text);
    const find = await get(`${svc.url}/find?rn=de&_=TraS&sort=desc&limit=1rows`);
    const text = await post(`${svc.url}/render/text`, JSON.stringify(find.json.Find.Records[0]), { 'content-type': 'application/json' });
    assert.equal(text.status, 200, text.text);
    assert.ok(text.text.includes('Start of transaction'), text.text);
    assert.match(text.text, new RegExp(`^TID ${start.json.TraSC.Fis.TID}$`, 'm'));
    const audit = await post(`${svc.url}/render/text?rn=de`, { Audit: { TY: 'EXPORT', File: 'dsfinvk.zip' } });
    assert.equal(audit.status, 200, audit.text);
    assert.match(audit.text, /Audit record/);
    assert.match(audit.text, /^TY EXPORT$/m);
    assert.match(audit.text, /^File dsfinvk\.zip$/m);
  });

  test('a body that is no Tra is refused with what is wrong', async () => {
    const cases: Array<[string, string, string, RegExp]> = [
      ['{"Cfg":{"Cmp":{}}}', 'application/json', '#UNKNOWN_ROOT', /Cfg.*Tra, TraS or Audit/],
      ['{"Tra":{"Fis":{}}}', 'application/json', '#MISSING_FIELD', /Tra\.ESR is required/],
      ['{"_":"Cfg","Cfg":{}}', 'application/json', '#UNKNOWN_ROOT', /_ "Cfg"/],
      ['{"Tra":', 'application/json', '#MALFORMED', /not valid JSON/],
      ['<Tra><ESR', 'application/xml', '#MALFORMED', /XML/],
      ['', 'application/json', '#EMPTY_BODY', /Tra, TraS or Audit/],
    ];
    for (const [body, type, code, message] of cases) {
      const r = await post(`${svc.url}/render`, body, { 'content-type': type });
      assert.equal(r.status, 400, `${body}: ${r.text}`);
      const result = r.json?.Result ?? {};
      if (type === 'application/json') {
        assert.equal(result.ErrorCode, code, r.text);
        assert.match(result.UserMessage, message);
      } else assert.match(r.text, new RegExp(code));
    }
    const two = await get(`${svc.url}/find?rn=at&_=Tra&limit=2rows`);
    const r = await post(`${svc.url}/render`, two.text, { 'content-type': 'application/json' });
    assert.equal(r.status, 400);
    assert.match(r.json.Result.UserMessage, /Find\.Records: exactly one record to render, got 2/);
  });
});

describe('which record, which configuration, which template', () => {
  test('refusals: no receipt 404, unknown FN 404, bad FN 400, unknown RN 404, bad width 400', async () => {
    await post(`${svc.url}/cfg?rn=empty`, { Cfg: { Cmp: { Nam: 'Leer', Ctry: 'DE', TaxId: 'DE1' } } });
    const expect = async (path: string, status: number, code: string): Promise<void> => {
      const r = await get(`${svc.url}${path}`);
      assert.equal(r.status, status, `${path}: ${r.text}`);
      assert.equal(r.json.Result.ErrorCode, code, path);
    };
    await expect('/render?rn=empty', 404, '#NOT_FOUND');
    await expect('/render/pdf?rn=at&FN=4711', 404, '#NOT_FOUND');
    await expect(`/render/text?rn=at&FN=${encodeURIComponent('<script>')}`, 400, '#INVALID_VALUE');
    await expect('/render/escpos?rn=nowhere', 404, '#UNKNOWN_REGISTER');
    await expect('/render/text?rn=at&width=40', 400, '#INVALID_VALUE');
    await expect('/render/text?rn=at&width=42x', 400, '#INVALID_VALUE');
  });

  test('a receipt keeps the header of the Cfg in force when it was made', async () => {
    const before = (await get(`${svc.url}/render/text?rn=de&fn=${de.fn}`)).text;
    // a Cfg part replaces the part as a whole
    await post(`${svc.url}/cfg?rn=de`, { Cfg: { Cmp: { Nam: 'Neue Bäckerei', Adr: 'Hauptstr.', AdrNr: '5', Zip: '10115', City: 'Berlin', Ctry: 'DE', TaxId: 'DE123456789' } } });
    const later = registered(await post(`${svc.url}/register?rn=de`, { Tra: { ESR: { TL: '001', TT: '1', Head: { Txt: 'Neu' }, PosA: [{ _: 'Pos', Dsc: 'Brot', TaxG: 'B', Amt: '1.50' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '1.50' }] } } }));
    assert.equal((await get(`${svc.url}/render/text?rn=de&fn=${de.fn}`)).text, before);
    assert.ok(before.includes('Bäckerei Demo'));
    const now = (await get(`${svc.url}/render/text?rn=de`)).text;
    assert.ok(now.includes('Neue Bäckerei') && now.includes(`Fiscal no.${' '.repeat(42 - 10 - later.fn.length)}${later.fn}`), now);
  });

  test('a return is titled so; a Z closure prints the day\'s tax table and totals', async () => {
    const first = await post(`${svc.url}/register?rn=gen`, sale());
    assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
    const ret = await post(`${svc.url}/register?rn=gen`, { Tra: { ESR: { TL: '1', TT: '1', RFN: first.json.TraC.ESR.FN, PosA: [{ _: 'Pos', Dsc: 'Article 1', TaxG: 'A', Amt: '-3.50' }], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '-3.50' }] } } });
    assert.equal(ret.json.TraC.Result.RC, 'OK', ret.text);
    const returned = (await get(`${svc.url}/render/text?rn=gen`)).text.split('\n');
    assert.equal(returned.find((l) => l.trim() === 'Return'), `${' '.repeat(18)}Return`);
    // the total in the amount column, under the item's amount (the tax group letter stands right of it)
    assert.ok(returned.includes(`Total${' '.repeat(42 - 2 - 5 - 5)}-3.50`), returned.join('\n'));
    const z = await post(`${svc.url}/register?rn=gen`, { Tra: { ESR: { TL: '1', TT: '1', NFS: 'Z' } } });
    assert.equal(z.json.TraC.Result.RC, 'OK', z.text);
    const text = (await get(`${svc.url}/render/text?rn=gen`)).text.split('\n');
    assert.ok(text.some((l) => l.trim() === 'Z report'));
    // a report, not a field dump: the total once, under its section's title
    assert.ok(text.includes('Grand totals') && text.includes(`Turnover${' '.repeat(42 - 8 - z.json.TraC.Z.T.length)}${z.json.TraC.Z.T}`), text.join('\n'));
    assert.ok(!text.some((l) => /^Z (T|CAmt|LastD|LastSQ) |^Z  /.test(l)), text.join("\n"));
    // the day: 3.50 and 1.20 sold, 3.50 returned in group A
    assert.match(text.join('\n'), /^A 20 % +0\.00 +0\.00 +0\.00$/m);
    assert.match(text.join('\n'), /^B 10 % +1\.09 +0\.11 +1\.20$/m);
  });

  test('a custom layout of the register replaces the default template (HTML); text stays', async () => {
    const form = new FormData();
    form.append('file', new Blob(['p.custom #{company.name} #{fn} #{total}\neach t in tags\n  i= t.label + t.value\n']), 'fiscal.pug');
    const up = await request(`${svc.url}/peri/layout?RN=at`, { method: 'POST', body: form });
    const upText = await up.body.text();
    assert.equal(up.statusCode, 201, upText);
    const html = await get(`${svc.url}/render?rn=at&fn=${at.fn}`);
    assert.equal(html.status, 200, html.text);
    assert.ok(html.text.startsWith(`<p class="custom">Café Wien GmbH ${at.fn} 8,70</p>`), html.text);
    for (const t of at.tags) assert.ok(html.text.includes(`<i>${escapeHtml(t.Label + printed(t.Value, 'de'))}</i>`));
    // the other register keeps the default
    assert.match((await get(`${svc.url}/render?rn=de`)).text, /^<!DOCTYPE html>/);
    assert.ok((await get(`${svc.url}/render/text?rn=at`)).text.includes('Summe'));
    assert.ok(readdirSync(svc.dataDir).length > 0);
  });
});
