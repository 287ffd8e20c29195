/**
 * QR images over real HTTP: GET /qr in every format decoded back to its text (PNG read by pngjs, BMP
 * by a small reader here, SVG drawn by chromium and by its path, PDF rasterized by pdftoppm, pc437 and
 * EPS turned back into modules), all decoded by jsQR; GET /recorder/lastdh(/qr) after real receipts;
 * Fis_QR; refusals with their status and ErrorCode.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { PNG } from 'pngjs';
import jsQRModule from 'jsqr';
import { chromium } from 'playwright-core';
import QRCode from 'qrcode';
import { FiscalError } from '../src/shared/errors.js';
import { fisQrBmp, fisQrImage, parseFisQr } from '../src/register/render/qr/index.js';
import { type TestService, get, post, sale, startTestService, tempDir } from './helpers.js';

// jsqr is CommonJS with a `default` export in its types: the function is its `default`
const jsQR = jsQRModule.default;

interface Raster {
  width: number;
  height: number;
  /** RGBA */
  data: Uint8ClampedArray;
}

async function fetchBytes(url: string): Promise<{ status: number; contentType: string; body: Buffer }> {
  const res = await request(url);
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.from(await res.body.arrayBuffer()) };
}

function decode(r: Raster): string | undefined {
  return jsQR(r.data, r.width, r.height)?.data;
}

function pngRaster(buf: Buffer): Raster {
  const png = PNG.sync.read(buf);
  return { width: png.width, height: png.height, data: new Uint8ClampedArray(png.data) };
}

/** A BMP reader for what the service writes: BITMAPINFOHEADER, uncompressed, 1 bit (palette) or 24 bits. */
function bmpRaster(buf: Buffer): Raster & { bits: number } {
  assert.equal(buf.toString('latin1', 0, 2), 'BM');
  assert.equal(buf.readUInt32LE(2), buf.length, 'file size in the header');
  const offset = buf.readUInt32LE(10);
  assert.equal(buf.readUInt32LE(14), 40, 'BITMAPINFOHEADER');
  const width = buf.readInt32LE(18);
  const height = buf.readInt32LE(22);
  assert.ok(height > 0, 'bottom-up');
  assert.equal(buf.readUInt16LE(26), 1);
  const bits = buf.readUInt16LE(28);
  assert.equal(buf.readUInt32LE(30), 0, 'BI_RGB');
  const stride = Math.floor((bits * width + 31) / 32) * 4;
  assert.equal(buf.length, offset + stride * height, 'rows padded to 4 bytes');
  const palette = (i: number): number => buf[54 + i * 4] ?? 0; // blue of the entry: black or white
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    const row = offset + (height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const v = bits === 1 ? palette(((buf[row + (x >> 3)] ?? 0) >> (7 - (x & 7))) & 1) : (buf[row + x * 3] ?? 0);
      data.set([v, v, v, 255], (y * width + x) * 4);
    }
  }
  return { width, height, data, bits };
}

/** Modules (true = dark) to a raster of `scale` pixels per module, with a white border of 4 modules. */
function modulesRaster(grid: boolean[][], scale = 4): Raster {
  const n = grid.length + 8;
  const width = n * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  grid.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (!dark) return;
      for (let y = 0; y < scale; y++) for (let x = 0; x < scale; x++) data.set([0, 0, 0, 255], (((r + 4) * scale + y) * width + (c + 4) * scale + x) * 4);
    }),
  );
  return { width, height: width, data };
}

/** Pixels back into modules (`px` pixels each, sampled at their centres). */
function rasterModules(r: Raster, px: number): boolean[][] {
  const n = Math.round(r.width / px);
  const at = (i: number): number => Math.floor((i + 0.5) * px);
  return Array.from({ length: n }, (_, row) => Array.from({ length: n }, (_, col) => (r.data[(at(row) * r.width + at(col)) * 4] ?? 255) < 128));
}

/**
 * The modules are exactly the code of `text` (the qrcode package's own matrix, upright: jsQR also
 * reads mirrored codes), inside a light quiet zone of `margin` modules; and jsQR reads them.
 */
function assertCode(grid: boolean[][], text: string, ecLevel: 'L' | 'M' | 'Q' | 'H', margin: number): void {
  const expected = QRCode.create(text, { errorCorrectionLevel: ecLevel }).modules;
  assert.equal(grid.length, expected.size + 2 * margin, 'modules per side');
  grid.forEach((row, r) =>
    row.forEach((dark, c) => {
      const inside = r >= margin && c >= margin && r < margin + expected.size && c < margin + expected.size;
      const want = inside && expected.data[(r - margin) * expected.size + (c - margin)] === 1;
      if (dark !== want) assert.fail(`module ${r},${c} is ${dark ? 'dark' : 'light'}`);
    }),
  );
  assert.equal(decode(modulesRaster(grid)), text);
}

function emptyGrid(n: number): boolean[][] {
  return Array.from({ length: n }, () => new Array<boolean>(n).fill(false));
}

/** The SVG's path (`Mx yhWv1h-Wz` runs) drawn into modules of its viewBox. */
function svgModules(svg: string): boolean[][] {
  const side = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  assert.ok(side > 0, 'square viewBox');
  assert.equal(svg.match(/<path /g)?.length, 1, 'one path');
  const grid = emptyGrid(side);
  const d = /<path [^>]*d="([^"]*)"/.exec(svg)?.[1] ?? '';
  const runs = [...d.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)];
  assert.equal(runs.map((m) => m[0]).join(''), d, 'the path is made of runs only');
  for (const [, x, y, w] of runs) for (let i = 0; i < Number(w); i++) grid[Number(y)]![Number(x) + i] = true;
  return grid;
}

/** The EPS's `x y w r` rectangles (module units, y up) into modules. */
function epsModules(eps: string, side: number): boolean[][] {
  const grid = emptyGrid(side);
  for (const [, x, y, w] of eps.matchAll(/^(\d+) (\d+) (\d+) r$/gm)) for (let i = 0; i < Number(w); i++) grid[side - 1 - Number(y)]![Number(x) + i] = true;
  return grid;
}

const BLOCK = /^[\u2588\u2580\u2584 ]*$/;

/** pc437 text (two module rows per line) back into modules; `size` characters per module. */
function pc437Modules(text: string, size: number): boolean[][] {
  const lines = text.split('\n');
  assert.equal(lines.pop(), '', 'every line ends with a newline');
  const rows: boolean[][] = [];
  for (const line of lines) {
    const top: boolean[] = [];
    const bottom: boolean[] = [];
    for (const ch of line) {
      top.push(ch === '\u2588' || ch === '\u2580');
      bottom.push(ch === '\u2588' || ch === '\u2584');
    }
    rows.push(top, bottom);
  }
  // one module = size characters across and size half-lines down
  const modules = Math.floor(rows[0]!.length / size);
  return Array.from({ length: modules }, (_, r) => Array.from({ length: modules }, (_, c) => rows[r * size]?.[c * size] === true));
}

let svc: TestService;
let work: string;

before(async () => {
  svc = await startTestService();
  work = tempDir('efr-qr-');
});
after(async () => {
  await svc.stop();
});

const TEXTS = ['https://example.org/r?id=42&x=1', 'V0;001/1;Kassenbeleg-V1;Beleg^6.88_1.50_0.00_0.00_0.00^8.38:Bar;3;7', 'Grüße € 12345', '0123456789'];

describe('GET /qr', () => {
  test('PNG: 1-bit, decodes for several texts, sizes, margins and error correction levels', async () => {
    const cases: Array<[string, number, number, string]> = [
      [TEXTS[0]!, 1, 1, 'L'],
      [TEXTS[1]!, 3, 0, 'M'],
      [TEXTS[2]!, 4, 4, 'Q'],
      [TEXTS[3]!, 7, 2, 'H'],
    ];
    for (const [text, size, margin, ec] of cases) {
      const r = await fetchBytes(`${svc.url}/qr?text=${encodeURIComponent(text)}&size=${size}&margin=${margin}&ec_level=${ec}`);
      assert.equal(r.status, 200);
      assert.equal(r.contentType, 'image/png');
      assert.equal(r.body[24], 1, 'bit depth 1');
      assert.equal(r.body[25], 0, 'grayscale');
      const raster = pngRaster(r.body);
      assert.equal(raster.width % size, 0);
      // jsQR needs a quiet zone and more than 1 px per module: the pixels read back as modules and
      // framed in white; the image itself where it can
      assertCode(rasterModules(raster, size), text, ec as 'L' | 'M' | 'Q' | 'H', margin);
      if (margin > 0 && size > 1) assert.equal(decode(raster), text, `${text} ${size}/${margin}/${ec}`);
      // the quiet zone is white and exactly `margin` modules wide
      const firstDark = raster.data.findIndex((v, i) => i % 4 === 0 && v === 0) / 4;
      assert.equal(firstDark, margin * size * raster.width + margin * size);
    }
    // the defaults: PNG, margin 1
    const d = await fetchBytes(`${svc.url}/qr?text=abc`);
    assert.equal(d.contentType, 'image/png');
    assert.equal(decode(pngRaster(d.body)), 'abc');
  });

  test('BMP: 1-bit and 24-bit, bottom-up rows padded to 4 bytes, decode', async () => {
    for (const [text, size, margin, bits] of [[TEXTS[0]!, 2, 1, undefined], [TEXTS[1]!, 3, 4, '24'], [TEXTS[2]!, 5, 2, '1'], ['x', 1, 3, '24']] as const) {
      const r = await fetchBytes(`${svc.url}/qr?type=bmp&text=${encodeURIComponent(text)}&size=${size}&margin=${margin}${bits ? `&bits=${bits}` : ''}`);
      assert.equal(r.status, 200);
      assert.equal(r.contentType, 'image/bmp');
      const raster = bmpRaster(r.body);
      assert.equal(raster.bits, Number(bits ?? 1));
      assert.equal(raster.width, raster.height);
      assertCode(rasterModules(raster, size), text, 'M', margin);
      if (size > 1) assert.equal(decode(raster), text);
    }
  });

  test('SVG: one path; drawn by chromium and from its path, decodes', async () => {
    const r = await fetchBytes(`${svc.url}/qr?type=svg&text=${encodeURIComponent(TEXTS[1]!)}&size=6&margin=2&ec_level=Q`);
    assert.equal(r.status, 200);
    assert.equal(r.contentType, 'image/svg+xml; charset=utf-8');
    const svg = r.body.toString('utf8');
    assertCode(svgModules(svg), TEXTS[1]!, 'Q', 2);
    const side = Number(/viewBox="0 0 (\d+)/.exec(svg)?.[1]);
    assert.match(svg, new RegExp(`width="${side * 6}" height="${side * 6}"`));
    // a real browser draws it
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: side * 6 + 40, height: side * 6 + 40 } });
      await page.setContent(`<html><body style="margin:20px;background:#fff">${svg}</body></html>`);
      const shot = await page.screenshot({ type: 'png' });
      assert.equal(decode(pngRaster(Buffer.from(shot))), TEXTS[1]);
    } finally {
      await browser.close();
    }
  });

  test('pc437: the right number of lines, block characters only, decodes', async () => {
    for (const [size, margin] of [[undefined, 1], [2, 0], [1, 4]] as const) {
      const r = await fetchBytes(`${svc.url}/qr?type=pc437&text=${encodeURIComponent(TEXTS[0]!)}&margin=${margin}${size ? `&size=${size}` : ''}`);
      assert.equal(r.status, 200);
      assert.equal(r.contentType, 'text/plain; charset=utf-8');
      const text = r.body.toString('utf8');
      const lines = text.split('\n').slice(0, -1);
      const unit = size ?? 1; // pc437 defaults to one character per module
      const width = lines[0]!.length;
      assert.equal(width % unit, 0);
      const modules = width / unit - 2 * margin;
      assert.equal((modules - 17) % 4, 0, `${modules} modules is a QR code size`);
      assert.equal(lines.length, Math.ceil((width) / 2), 'two module rows per line');
      for (const l of lines) {
        assert.match(l, BLOCK);
        assert.equal(l.length, width);
      }
      assertCode(pc437Modules(text, unit), TEXTS[0]!, 'M', margin);
    }
  });

  test('PDF and EPS (extensions of /qr): pdftotext reads the PDF, pdftoppm draws it; EPS header, box and rectangles', async () => {
    const pdf = await fetchBytes(`${svc.url}/qr?type=pdf&text=${encodeURIComponent(TEXTS[2]!)}&size=5&margin=4`);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.contentType, 'application/pdf');
    assert.equal(pdf.body.toString('latin1', 0, 5), '%PDF-');
    const file = join(work, 'qr.pdf');
    writeFileSync(file, pdf.body);
    const text = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    assert.equal(text.status, 0, text.stderr);
    const ppm = spawnSync('pdftoppm', ['-png', '-r', '144', '-singlefile', file, join(work, 'qr')], { encoding: 'utf8' });
    assert.equal(ppm.status, 0, ppm.stderr);
    const drawn = pngRaster(readFileSync(join(work, 'qr.png')));
    assert.equal(decode(drawn), TEXTS[2]);
    // 144 dpi: 2 px per point, 10 px per module
    assertCode(rasterModules(drawn, 10), TEXTS[2]!, 'M', 4);

    const eps = await fetchBytes(`${svc.url}/qr?type=eps&text=${encodeURIComponent(TEXTS[2]!)}&size=3&margin=4&ec_level=H`);
    assert.equal(eps.status, 200);
    assert.equal(eps.contentType, 'application/postscript');
    const ps = eps.body.toString('latin1');
    assert.ok(ps.startsWith('%!PS-Adobe-3.0 EPSF-3.0\n'));
    const box = /^%%BoundingBox: 0 0 (\d+) (\d+)$/m.exec(ps);
    assert.ok(box, 'BoundingBox');
    assert.equal(box[1], box[2]);
    const side = Number(box[1]) / 3;
    assert.ok(Number.isInteger(side) && (side - 8 - 17) % 4 === 0, 'box = (modules + 2 margins) * size');
    assert.match(ps, /%%EndComments\n/);
    assert.ok(ps.trimEnd().endsWith('%%EOF'));
    assertCode(epsModules(ps, side), TEXTS[2]!, 'H', 4);
  });

  test('refusals name their parameter', async () => {
    const cases: Array<[string, number, string, string]> = [
      ['', 400, '#MISSING_FIELD', 'text'],
      ['text=', 400, '#MISSING_FIELD', 'text'],
      ['text=a&type=gif', 400, '#INVALID_VALUE', 'type'],
      ['text=a&size=0', 400, '#INVALID_VALUE', 'size'],
      ['text=a&size=abc', 400, '#INVALID_VALUE', 'size'],
      ['text=a&size=41', 400, '#INVALID_VALUE', 'size'],
      ['text=a&margin=-1', 400, '#INVALID_VALUE', 'margin'],
      ['text=a&margin=41', 400, '#INVALID_VALUE', 'margin'],
      ['text=a&ec_level=X', 400, '#INVALID_VALUE', 'ec_level'],
      ['text=a&bits=24', 400, '#INVALID_VALUE', 'bits'],
      ['text=a&type=bmp&bits=8', 400, '#INVALID_VALUE', 'bits'],
      // a version 40 code at 40 px per module would be 7000 px wide
      [`text=${'A'.repeat(1800)}&size=40`, 400, '#INVALID_VALUE', 'size'],
      // more than fits into a QR code at level H
      [`text=${'x'.repeat(1500)}&ec_level=H`, 400, '#INVALID_VALUE', 'text'],
      [`text=${'1'.repeat(4297)}`, 400, '#INVALID_VALUE', 'text'],
    ];
    for (const [query, status, code, field] of cases) {
      const r = await get(`${svc.url}/qr?${query}`);
      assert.equal(r.status, status, `${query.slice(0, 40)}: ${r.text}`);
      assert.equal(r.json.Result.ErrorCode, code, query.slice(0, 40));
      assert.ok((r.json.Result.UserMessage as string).startsWith(field), `${query.slice(0, 40)}: ${r.json.Result.UserMessage}`);
    }
  });
});

describe('GET /recorder/lastdh and /recorder/lastdh/qr', () => {
  test('404 before the first transaction; the handle of the last transaction after receipts', async () => {
    const dir = tempDir('efr-qr-dh-');
    const de = await startTestService({ dataDir: dir });
    try {
      // no register yet, then a register without a transaction
      const unknown = await get(`${de.url}/recorder/lastdh`);
      assert.equal(unknown.status, 404, unknown.text);
      assert.equal(unknown.json.Result.ErrorCode, '#UNKNOWN_REGISTER');
      const cfg = await post(`${de.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'DE', TaxId: 'DE123456789' } } });
      assert.equal(cfg.status, 200, cfg.text);
      for (const path of ['/recorder/lastdh', '/recorder/lastdh/qr', '/recorder/lastdh/qr?fmt=svg&small=true']) {
        const none = await get(`${de.url}${path}`);
        assert.equal(none.status, 404, none.text);
        assert.equal(none.json.Result.ErrorCode, '#NOT_FOUND', path);
      }
      assert.equal((await get(`${de.url}/recorder/lastdh?rn=nope`)).json.Result.ErrorCode, '#UNKNOWN_REGISTER');
      const first = await post(`${de.url}/register`, sale({ TL: '001' }));
      assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
      const a = await get(`${de.url}/recorder/lastdh`);
      assert.equal(a.status, 200, a.text);
      const dh = a.json.LastDH;
      assert.match(dh.DH, /^[A-Z2-7]{21}$/);
      assert.equal(dh.DH, dh.RH + dh.TH);
      assert.equal(dh.TH.length, 5);
      assert.equal(dh.TL, '001');
      assert.equal(dh.SQ, first.json.TraC.SQ);
      assert.equal(dh.TN, first.json.TraC.ESR.TN);
      assert.equal(dh.FN, first.json.TraC.Fis.FN);
      // stable: the same answer again; text/plain and XML on request
      assert.equal((await get(`${de.url}/recorder/lastdh`)).json.LastDH.DH, dh.DH);
      const plain = await get(`${de.url}/recorder/lastdh`, { accept: 'text/plain' });
      assert.equal(plain.text, dh.DH);
      assert.match((await get(`${de.url}/recorder/lastdh`, { accept: 'text/xml' })).text, new RegExp(`<LastDH DH="${dh.DH}" RH="${dh.RH}" TH="${dh.TH}"`));

      const png = await fetchBytes(`${de.url}/recorder/lastdh/qr`);
      assert.equal(png.status, 200);
      assert.equal(png.contentType, 'image/png');
      const raster = pngRaster(png.body);
      assert.equal(decode(raster), dh.DH);
      assertCode(rasterModules(raster, 5), dh.DH, 'M', 4);
      // defaults: 5 px per module, quiet zone of 4 modules
      const firstDark = raster.data.findIndex((v, i) => i % 4 === 0 && v === 0) / 4;
      assert.equal(firstDark, 4 * 5 * raster.width + 4 * 5);
      assert.equal(raster.width % 5, 0);

      const small = await fetchBytes(`${de.url}/recorder/lastdh/qr?small=true&ec_level=H&size=3&margin=2`);
      assertCode(rasterModules(pngRaster(small.body), 3), dh.DH.slice(0, -5), 'H', 2);
      const bmp = await fetchBytes(`${de.url}/recorder/lastdh/qr?fmt=bmp&ec_level=L`);
      assert.equal(bmp.contentType, 'image/bmp');
      assertCode(rasterModules(bmpRaster(bmp.body), 5), dh.DH, 'L', 4);
      for (const fmt of ['svg', 'svc']) {
        const svg = await fetchBytes(`${de.url}/recorder/lastdh/qr?fmt=${fmt}&small=1`);
        assert.equal(svg.contentType, 'image/svg+xml; charset=utf-8', fmt);
        assertCode(svgModules(svg.body.toString('utf8')), dh.RH, 'M', 4);
      }
      const text = await fetchBytes(`${de.url}/recorder/lastdh/qr?fmt=pc437`);
      assertCode(pc437Modules(text.body.toString('utf8'), 1), dh.DH, 'M', 4);
      const pdf = await fetchBytes(`${de.url}/recorder/lastdh/qr?fmt=pdf`);
      assert.equal(pdf.contentType, 'application/pdf');
      const eps = await fetchBytes(`${de.url}/recorder/lastdh/qr?fmt=eps&small=false`);
      assert.match(eps.body.toString('latin1'), /^%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 \d+ \d+\n/);

      // the next receipt: same register handle, another transaction handle
      const second = await post(`${de.url}/register`, sale({ TL: '001' }));
      assert.equal(second.json.TraC.Result.RC, 'OK', second.text);
      const b = (await get(`${de.url}/recorder/lastdh`)).json.LastDH;
      assert.equal(b.RH, dh.RH);
      assert.notEqual(b.TH, dh.TH);
      assert.equal(decode(pngRaster((await fetchBytes(`${de.url}/recorder/lastdh/qr`)).body)), b.DH);

      // another register of the instance has its own register handle
      const other = await post(`${de.url}/register?rn=k2`, sale({ RN: 'k2' }));
      assert.equal(other.json.TraC.Result.RC, 'OK', other.text);
      const k2 = (await get(`${de.url}/recorder/lastdh?rn=k2`)).json.LastDH;
      assert.notEqual(k2.RH, dh.RH);
      assert.equal(k2.SQ, other.json.TraC.SQ);

      for (const [query, field] of [['fmt=gif', 'fmt'], ['small=maybe', 'small'], ['ec_level=Z', 'ec_level'], ['size=x', 'size'], ['margin=50', 'margin']] as const) {
        const r = await get(`${de.url}/recorder/lastdh/qr?${query}`);
        assert.equal(r.status, 400, query);
        assert.equal(r.json.Result.ErrorCode, '#INVALID_VALUE', query);
        assert.ok((r.json.Result.UserMessage as string).startsWith(field), r.json.Result.UserMessage);
      }
    } finally {
      await de.stop();
    }
  });

  test('the handle survives a restart of the service', async () => {
    const dir = tempDir('efr-qr-dh2-');
    let s = await startTestService({ dataDir: dir });
    let before: string;
    try {
      await post(`${s.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'AT', TaxId: 'ATU12345678' } } });
      const r = await post(`${s.url}/register`, sale());
      assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
      before = (await get(`${s.url}/recorder/lastdh`)).json.LastDH.DH;
    } finally {
      await s.stop();
    }
    s = await startTestService({ dataDir: dir });
    try {
      assert.equal((await get(`${s.url}/recorder/lastdh`)).json.LastDH.DH, before);
    } finally {
      await s.stop();
    }
  });
});

describe('Fis_QR', () => {
  const code = 'V0;001/1;Kassenbeleg-V1;Beleg^6.88_1.50_0.00_0.00_0.00^8.38:Bar;3;7;2024-08-01T08:50:30.000Z';

  test('the attribute value gives type, size, margin and level; the base64 image decodes to Fis.Code', () => {
    const png = Buffer.from(fisQrImage(code, 'type=png&size=2&ec_level=L'), 'base64');
    const raster = pngRaster(png);
    assert.equal(decode(raster), code);
    assertCode(rasterModules(raster, 2), code, 'L', 1);
    assert.equal(raster.width % 2, 0);
    assert.equal(decode(pngRaster(Buffer.from(fisQrImage(code, ''), 'base64'))), code, 'bare Fis_QR: defaults');
    assertCode(rasterModules(bmpRaster(Buffer.from(fisQrImage(code, 'type=bmp&size=3&margin=4&ec_level=Q&bits=24'), 'base64')), 3), code, 'Q', 4);
    assertCode(svgModules(Buffer.from(fisQrImage(code, 'TYPE=svg'), 'base64').toString('utf8')), code, 'M', 1);
    const text = Buffer.from(fisQrImage(code, 'type=pc437&margin=0'), 'base64').toString('utf8');
    assertCode(pc437Modules(text, 1), code, 'M', 0);
    // the file interface's .bmp follows the attribute's size whatever its type
    const bmp = bmpRaster(fisQrBmp(code, 'type=png&size=2&ec_level=L'));
    assertCode(rasterModules(bmp, 2), code, 'L', 1);
    assert.equal(bmp.width, pngRaster(png).width);
  });

  test('bad attribute values are refused naming Fis_QR', () => {
    for (const value of ['type=gif', 'size=0', 'size=2&size=3', 'ec_level=W', 'color=red', 'margin=%E0', 'bits=8']) {
      assert.throws(
        () => parseFisQr(value),
        (e: unknown) => e instanceof FiscalError && e.code === '#INVALID_VALUE' && String(e.params.field).startsWith('Fis_QR'),
        value,
      );
    }
    assert.throws(() => fisQrImage('', 'type=png'), (e: unknown) => e instanceof FiscalError && e.code === '#MISSING_FIELD');
  });

  test('POST /register with Fis_QR: Fis.QR decodes to Fis.Code (also for a duplicate); a bad value refuses the profile', async () => {
    const svc = await startTestService();
    try {
      const bad = await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fis_QR="type=gif"' });
      assert.equal(bad.status, 400, bad.text);
      assert.match(bad.text, /Fis_QR/);
      assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fis_QR="type=png&size=3&ec_level=Q"' })).status, 200);
      const body = sale({ TN: '5' });
      const r = await post(`${svc.url}/register`, body);
      assert.equal(r.status, 200, r.text);
      const fis = r.json.TraC.Fis;
      assert.equal(decode(pngRaster(Buffer.from(fis.QR as string, 'base64'))), fis.Code);
      const again = await post(`${svc.url}/register`, body);
      assert.equal(again.json.TraC.Result.ErrorCode, '#DUPLICATE');
      assert.equal(again.json.TraC.Fis.QR, fis.QR);
      // not journaled: the image is made from Fis.Code for the answer
      const tra = await get(`${svc.url}/tra?tl=1&tt=1&tn=5`);
      assert.equal(tra.json.Tra.Fis.QR, undefined);
    } finally {
      await svc.stop();
    }
  });
});
