/**
 * GET /render in a real browser (Debian's chromium, headless): an Austrian and a German receipt as a
 * customer would see them. The QR code is read back from the browser's screenshot (what a phone would
 * scan), and every Fis.Tag is on the page. `UPDATE_SCREENSHOTS=1` writes the screenshots shown in the
 * README to docs/images/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import jsQRModule from 'jsqr';
import { chromium } from 'playwright-core';
import { ROOT, post, startTestService } from './helpers.js';

const jsQR = jsQRModule.default;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const RECEIPTS = {
  at: {
    cfg: { Cmp: { Nam: 'Kaffeehaus Sperl', Adr: 'Gumpendorfer Straße', AdrNr: '11', Zip: '1060', City: 'Wien', Ctry: 'AT', TaxId: 'ATU12345678' }, Loc: { TL: '1', Nam: 'Hauptgeschäft' }, Trm: { TT: '2', SW: 'POS', HW: 'PC', Serial: 'K2' } },
    esr: {
      TL: '1', TT: '2',
      Head: { Txt: 'Willkommen!' }, Foot: { Txt: 'Danke für Ihren Besuch' },
      PosA: [
        { _: 'Pos', Dsc: 'Melange', TaxG: 'B', Qty: '2', Pri: '4.60', Amt: '9.20' },
        { _: 'Pos', Dsc: 'Sachertorte', TaxG: 'B', Amt: '5.90' },
        { _: 'Pos', Dsc: 'Zeitung', TaxG: 'A', Amt: '2.50' },
      ],
      PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '17.60' }],
    },
  },
  de: {
    cfg: { Cmp: { Nam: 'Bäckerei Müller GmbH', Adr: 'Hauptstraße', AdrNr: '5', Zip: '10115', City: 'Berlin', Ctry: 'DE', TaxId: 'DE123456789' }, Loc: { TL: '001', Nam: 'Filiale Mitte' }, Trm: { TT: '1', SW: 'POS', HW: 'PC', Serial: 'B1' } },
    esr: {
      TL: '001', TT: '1',
      PosA: [
        { _: 'Pos', Dsc: 'Brötchen', TaxG: 'B', Qty: '4', Pri: '0.45', Amt: '1.80' },
        { _: 'Pos', Dsc: 'Kaffee to go', TaxG: 'A', Amt: '2.80' },
        { _: 'Mod', PN: '2', Dsc: 'Stammkunde -10 %', Amt: '-0.28' },
      ],
      PayA: [{ _: 'Pay', Dsc: 'EC-Karte', PayG: 'card', Amt: '4.32' }],
    },
  },
} as const;

test('GET /render of an Austrian and a German receipt in chromium: every Fis.Tag shown, the QR code scans to Fis.Code', async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BROWSER_ARGS });
  try {
    for (const [country, r] of Object.entries(RECEIPTS)) {
      const svc = await startTestService();
      try {
        assert.equal((await post(`${svc.url}/cfg`, { Cfg: r.cfg })).status, 200);
        const reg = await post(`${svc.url}/register`, { Tra: { ESR: r.esr } });
        assert.equal(reg.status, 200, reg.text);
        const fis = reg.json.TraC.Fis as { FN: string; Code: string; Tag: Array<{ Label: string; Value: string }> };
        const page = await browser.newPage({ viewport: { width: 480, height: 900 }, deviceScaleFactor: 2 });
        const res = await page.goto(`${svc.url}/render?fn=${encodeURIComponent(fis.FN)}`);
        assert.equal(res?.status(), 200);
        const text = await page.locator('body').innerText();
        // the page shows the paper's lines: a long value (the TSE signature) broken as printed, dates in the
        // receipt's language (these registers have none set: English)
        const squeezed = text.replace(/\s+/g, '');
        for (const tag of fis.Tag) {
          const date = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}:\d{2}:\d{2})$/.exec(tag.Value);
          const value = date ? `${date[3]} ${MONTHS[Number(date[2]) - 1] ?? ''} ${date[1]} ${date[4]}` : tag.Value;
          assert.ok(squeezed.includes(value.replace(/\s+/g, '')), `${country}: the tag ${tag.Label} ${tag.Value} is printed as ${value}`);
          if (tag.Label) assert.ok(text.includes(tag.Label.trim()), `${country}: the label ${tag.Label} is printed`);
        }
        assert.match(text, country === 'at' ? /17[.,]60/ : /4[.,]32/);
        const shot = await page.screenshot({ fullPage: true });
        const png = PNG.sync.read(shot);
        const found = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
        assert.equal(found?.data, fis.Code, `${country}: the QR code in the browser scans to Fis.Code`);
        if (process.env.UPDATE_SCREENSHOTS === '1') {
          const dir = join(ROOT, 'docs', 'images');
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, `receipt-${country}.png`), await page.screenshot({ fullPage: true, scale: 'css' }));
        }
        await page.close();
      } finally {
        await svc.stop();
      }
    }
  } finally {
    await browser.close();
  }
});
