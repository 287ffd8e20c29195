/**
 * Every browser page (profile, base data, status, journal, a receipt) in chromium at 1280 px, in English and
 * German, as a shop manager sees it: no text runs out of its box (inputs, labels, cells), the receipt's frame
 * shows the whole receipt down to its QR code, amounts, dates and the uptime are written as the language
 * writes them, a receipt journaled but not printed is marked and can be filtered, and the base-data form of an
 * Austrian register has no other country's fields. `UPDATE_IMAGES=1` writes the screenshots the README shows
 * (docs/images/ui-<page>-<lang>.png).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { ROOT, post, startTestService } from './helpers.js';

const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PASSWORD = 'pages-secret';
const UPDATE = process.env.UPDATE_IMAGES === '1' || process.env.UPDATE_SCREENSHOTS === '1';

const CFG = {
  Cmp: { Nam: 'Kaffeehaus Sperl', Adr: 'Gumpendorfer Straße', AdrNr: '11', Zip: '1060', City: 'Wien', Ctry: 'AT', TaxId: 'ATU12345678' },
  Loc: { TL: '1', Nam: 'Hauptgeschäft', Adr: 'Gumpendorfer Straße', Zip: '1060', City: 'Wien', Ctry: 'AT' },
  Trm: { TT: '2', SW: 'POS', HW: 'PC', Serial: 'K2' },
};

/** A receipt long enough that a frame of fixed height would cut it above its QR code. */
function longReceipt(n: number): { Tra: { ESR: Record<string, unknown> } } {
  const pos = Array.from({ length: n }, (_, i) => ({ _: 'Pos', Dsc: `Melange ${i + 1}`, TaxG: 'B', Amt: '4.60' }));
  const total = (n * 460) / 100;
  return { Tra: { ESR: { TL: '1', TT: '2', PosA: pos, PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: total.toFixed(2) }] } } };
}

/** A port nobody listens on: the printer there refuses the connection at once. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const address = srv.address();
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 9;
}

/** The boxes whose text is wider than the box (a name cut at its end, a label running into the next column). */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('input[type=text], input:not([type]), label, th, td, dt, dd, select, h1, h2, h3')) {
      if (el.offsetParent === null && el.tagName !== 'TD') continue;
      if (el.scrollWidth > el.clientWidth + 1) {
        const text = el instanceof HTMLInputElement ? el.value : el.innerText;
        out.push(`${el.tagName.toLowerCase()}${el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : ''} "${text.slice(0, 40)}" ${el.scrollWidth} > ${el.clientWidth}`);
      }
    }
    return out;
  });
}

async function shot(page: Page, name: string): Promise<void> {
  if (!UPDATE) return;
  const dir = join(ROOT, 'docs', 'images');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, name), fullPage: true });
}

async function fitsItsBoxes(page: Page, what: string): Promise<void> {
  assert.deepEqual(await overflowing(page), [], `${what}: text runs out of its box`);
}

test('the pages in en and de at 1280 px: nothing cut, the receipt whole, numbers and dates localized, unprinted receipts marked, the country\'s fields only', async () => {
  const svc = await startTestService();
  let browser: Browser | undefined;
  try {
    assert.equal((await post(`${svc.url}/cfg`, { Cfg: CFG })).status, 200);
    const attrs = 'Drawer_Timeout=300 Printer_Display_Port=display.local:9101 Normalize_D=5 Fis_Tot';
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', TaxId: 'ATU12345678', Password: PASSWORD, Attributes: attrs })).status, 200);
    const auth = { authorization: `Basic ${Buffer.from(`x:${PASSWORD}`).toString('base64')}` };

    const printed = await post(`${svc.url}/register`, longReceipt(5), auth);
    assert.equal(printed.status, 200, printed.text);
    // a printer that cannot be reached: the receipt is journaled (its number is taken) but not printed
    assert.equal((await post(`${svc.url}/profile`, { Attributes: `${attrs} Printer=escpos Printer_Port=127.0.0.1:${await closedPort()}` }, auth)).status, 200);
    const unprinted = await post(`${svc.url}/register`, longReceipt(2), auth);
    assert.equal(unprinted.json.TraC.Result.RC, 'NO', unprinted.text);
    assert.equal(unprinted.json.TraC.Result.ErrorCode, '#PRINTER_UNREACHABLE');
    const unprintedSq = String(unprinted.json.TraC.SQ);
    assert.equal((await post(`${svc.url}/profile`, { Attributes: attrs }, auth)).status, 200);
    const long = await post(`${svc.url}/register`, longReceipt(24), auth);
    assert.equal(long.status, 200, long.text);
    const longSq = String(long.json.TraC.SQ);
    const printedSq = String(printed.json.TraC.SQ);

    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BROWSER_ARGS });
    for (const lang of ['en', 'de'] as const) {
      const context = await browser.newContext({ httpCredentials: { username: 'x', password: PASSWORD }, viewport: { width: 1280, height: 900 }, locale: lang === 'de' ? 'de-AT' : 'en-GB' });
      const page = await context.newPage();

      // profile: every attribute name whole, the TaxId's label and help speak of the same number
      await page.goto(`${svc.url}/?lang=${lang}`);
      await fitsItsBoxes(page, `${lang} profile`);
      const names = await page.locator('input[name="attr.name"]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value).filter(Boolean));
      assert.ok(names.includes('Printer_Display_Port') && names.includes('Drawer_Timeout'), names.join(' '));
      const taxLabel = await page.locator('label[for="taxid"]').innerText();
      const taxHelp = await page.locator('#taxid ~ .help').first().innerText();
      const vatWord = lang === 'de' ? 'USt-IdNr.' : 'VAT id';
      assert.ok(taxLabel.includes(vatWord) && taxHelp.includes(vatWord), `${taxLabel} / ${taxHelp}`);
      await shot(page, `ui-profile-${lang}.png`);

      // base data of an Austrian register: no French fields, no German agencies
      await page.goto(`${svc.url}/ui/cfg?lang=${lang}`);
      await fitsItsBoxes(page, `${lang} base data`);
      assert.equal(await page.locator('[name^="Cmp.FR_"], [name^="Loc.FR_"]').count(), 0);
      assert.equal(await page.locator('#part-DE_Agentur').count(), 0);
      assert.equal(await page.locator('[name="Cmp.VatRegime"], [name="Cmp.Org"]').count(), 0);
      assert.equal(await page.locator('input[name="Cmp.Nam"]').inputValue(), 'Kaffeehaus Sperl');
      await shot(page, `ui-cfg-${lang}.png`);

      // status: the uptime in days/hours/minutes (seconds only in its first minute), the time in the language's form
      await page.goto(`${svc.url}/control?lang=${lang}`);
      await fitsItsBoxes(page, `${lang} status`);
      const uptime = await page.locator('#uptime').innerText();
      assert.match(uptime, lang === 'de' ? /^\d+ (Sekunden?|Minuten?)/ : /^\d+ (seconds?|minutes?)/, uptime);
      const time = await page.locator('#service-time').innerText();
      assert.match(time, lang === 'de' ? /^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}/ : /^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2}/, time);
      assert.match(await page.locator('.unprinted-count').innerText(), /: 1\b/);
      await shot(page, `ui-status-${lang}.png`);

      // journal: totals with the language's decimal sign, dates in its order, the unprinted receipt marked
      await page.goto(`${svc.url}/ui/journal?lang=${lang}`);
      await fitsItsBoxes(page, `${lang} journal`);
      const total = await page.locator(`tr[data-sq="${longSq}"] td.total`).innerText();
      assert.equal(total, lang === 'de' ? '110,40' : '110.40');
      const date = await page.locator(`tr[data-sq="${longSq}"] td.date`).innerText();
      assert.match(date, lang === 'de' ? /^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}$/ : /^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2}$/, date);
      assert.equal(await page.locator('tr.unprinted').count(), 1);
      assert.equal(await page.locator('tr.unprinted').getAttribute('data-sq'), unprintedSq);
      assert.match(await page.locator('tr.unprinted .badge.unprinted').innerText(), lang === 'de' ? /nicht gedruckt/ : /not printed/);
      assert.equal(await page.locator(`tr[data-sq="${printedSq}"] .badge.unprinted`).count(), 0);
      await shot(page, `ui-journal-${lang}.png`);
      // the filter: only the receipt not printed
      await page.locator('#f-unprinted').check();
      await Promise.all([page.waitForURL(/unprinted=1/), page.click('form.search button[type=submit]')]);
      const rows = await page.locator('table.records tbody tr').evaluateAll((trs) => trs.map((r) => r.getAttribute('data-sq')));
      assert.deepEqual(rows, [unprintedSq]);

      // the long receipt: the frame as tall as the receipt, its bottom (after the QR code) inside the frame
      await page.goto(`${svc.url}/ui/journal/receipt?rn=def&sq=${longSq}&lang=${lang}`);
      await page.locator('iframe.paper[data-fitted="true"]').waitFor();
      await fitsItsBoxes(page, `${lang} receipt`);
      const fit = await page.locator('iframe.paper').evaluate((el) => {
        const frame = el as HTMLIFrameElement;
        const doc = frame.contentDocument as Document;
        const qr = doc.querySelector('img');
        return { inner: frame.clientHeight, content: doc.documentElement.scrollHeight, qrBottom: qr ? qr.getBoundingClientRect().bottom : -1, bodyBottom: doc.body.getBoundingClientRect().bottom, widthFits: doc.documentElement.scrollWidth <= frame.clientWidth };
      });
      assert.ok(fit.qrBottom > 0, 'the receipt has its QR code');
      assert.ok(fit.content <= fit.inner, `the frame (${fit.inner} px) holds the receipt (${fit.content} px)`);
      assert.ok(fit.qrBottom <= fit.inner && fit.bodyBottom <= fit.inner, `the receipt's bottom (${fit.bodyBottom} px, QR ${fit.qrBottom} px) is inside the frame (${fit.inner} px)`);
      assert.ok(fit.widthFits, 'the receipt is as wide as its frame or narrower');
      assert.ok(fit.inner > 46 * 15, 'the long receipt is taller than the old fixed frame');
      assert.equal(await page.locator('#record-total').innerText(), lang === 'de' ? '110,40' : '110.40');
      await shot(page, `ui-journal-receipt-${lang}.png`);

      // the unprinted one says so on its own page too
      await page.goto(`${svc.url}/ui/journal/receipt?rn=def&sq=${unprintedSq}&lang=${lang}`);
      assert.equal(await page.locator('#record .badge.unprinted').count(), 1);
      await context.close();
    }
    // French and Dutch words are longer still: their pages keep every text in its box too
    for (const lang of ['fr', 'nl'] as const) {
      const context = await browser.newContext({ httpCredentials: { username: 'x', password: PASSWORD }, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      for (const path of ['/', '/ui/cfg', '/control', '/ui/journal', `/ui/journal/receipt?rn=def&sq=${longSq}`]) {
        await page.goto(`${svc.url}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
        await fitsItsBoxes(page, `${lang} ${path}`);
      }
      await context.close();
    }
  } finally {
    await browser?.close();
    await svc.close();
  }
});
