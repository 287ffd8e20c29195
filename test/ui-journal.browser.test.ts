/**
 * The status page (GET /control) and the journal page (GET /ui/journal) in a real browser (Debian's chromium,
 * headless), logged in with the system password: receipts registered through the API are found by FN, by
 * TL/TT/TN, by date and by amount; a receipt opens as printed; the journal export downloads and verifies; a
 * backup downloads; the verify button reports the chain; the status page shows the registers, their last
 * transactions and the recorder. The README's screenshots come from test/ui-pages.browser.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { verifyZip } from '../src/register/journal/export/verify-zip.js';
import { formToken } from '../src/register/ui/forms.js';
import { get, post, sale, startTestService, tempDir } from './helpers.js';

const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PASSWORD = 'journal-page-secret';

interface Registered {
  sq: number;
  fn: string;
  tn: string;
  d: string;
  total: string;
}

async function register(url: string, positions: Array<[string, string]>, total: string, extra: Record<string, unknown> = {}): Promise<Registered> {
  const r = await post(`${url}/register`, sale(extra, positions));
  assert.equal(r.status, 200, r.text);
  const c = r.json.TraC as { SQ: number; ESR: { D: string; TN: string }; Fis: { FN: string } };
  return { sq: c.SQ, fn: c.Fis.FN, tn: c.ESR.TN, d: c.ESR.D, total };
}

/** The SQ of the result rows on the page. */
async function rowsOf(page: Page): Promise<string[]> {
  return page.locator('table.records tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-sq') ?? ''));
}

async function search(page: Page, base: string, fields: Record<string, string>): Promise<string[]> {
  await page.goto(`${base}/ui/journal`);
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'type' || name === 'rn') await page.selectOption(`form.search [name="${name}"]`, value);
    else await page.fill(`form.search [name="${name}"]`, value);
  }
  await Promise.all([page.waitForURL(/\/ui\/journal\?/), page.click('form.search button[type=submit]')]);
  return rowsOf(page);
}

test('the journal and status pages in chromium: search, receipt, export, backup, verify, status', async () => {
  const svc = await startTestService();
  const downloads = tempDir('efr-ui-journal-');
  let browser: Browser | undefined;
  try {
    const set = await post(`${svc.url}/profile`, { Badge: 'B', Password: PASSWORD });
    assert.equal(set.status, 200, set.text);
    // the pages are closed without the password now (even from this machine)
    assert.equal((await get(`${svc.url}/ui/journal`)).status, 401);
    assert.equal((await get(`${svc.url}/control`)).status, 401);

    const a = await register(svc.url, [['A', '3.50'], ['B', '1.20']], '4.70');
    const b = await register(svc.url, [['A', '12.50']], '12.50', { TL: '7', TT: '3' });
    const c = await register(svc.url, [['B', '8.00']], '8.00');

    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BROWSER_ARGS });
    const context = await browser.newContext({ httpCredentials: { username: 'x', password: PASSWORD }, viewport: { width: 1280, height: 900 }, locale: 'en-GB', acceptDownloads: true });
    const page = await context.newPage();

    // by FN
    assert.deepEqual(await search(page, svc.url, { fn: a.fn }), [String(a.sq)]);
    assert.equal(await page.locator(`tr[data-sq="${a.sq}"] td.fn`).innerText(), a.fn);
    // by TL/TT/TN: b is the only one of location 7, terminal 3
    assert.deepEqual(await search(page, svc.url, { tl: '7', tt: '3', tn: b.tn }), [String(b.sq)]);
    assert.deepEqual(await search(page, svc.url, { tl: '7', tt: '3', tn: `${b.tn}9` }), []);
    assert.ok(await page.locator('#no-match').isVisible());
    // by date: the day of the receipts finds all three transactions (and the day before none)
    const day = a.d.slice(0, 10);
    const onDay = await search(page, svc.url, { from: day, till: day, type: '' });
    for (const r of [a, b, c]) assert.ok(onDay.includes(String(r.sq)), `SQ ${r.sq} is found on ${day}`);
    const before = new Date(`${day}T12:00:00Z`);
    before.setUTCDate(before.getUTCDate() - 1);
    const dayBefore = before.toISOString().slice(0, 10);
    assert.deepEqual(await search(page, svc.url, { from: dayBefore, till: dayBefore }), []);
    // by amount: 12.5 is the same decimal as 12.50; 12.51 and 4.7 find what they should
    assert.deepEqual(await search(page, svc.url, { amount: '12.5' }), [String(b.sq)]);
    assert.equal(await page.locator(`tr[data-sq="${b.sq}"] td.total`).innerText(), '12.50');
    assert.deepEqual(await search(page, svc.url, { amount: '12.51' }), []);
    assert.deepEqual(await search(page, svc.url, { amount: '4,7' }), [String(a.sq)]);
    // an amount that is no number: the page again with the value as typed, the field named, 400
    const bad = await page.goto(`${svc.url}/ui/journal?amount=twelve`);
    assert.equal(bad?.status(), 400);
    assert.match(await page.locator('.notice.error').innerText(), /Amount \(total\): a decimal number/);
    assert.equal(await page.inputValue('form.search [name=amount]'), 'twelve');
    // the first page of everything, for the screenshot
    await page.goto(`${svc.url}/ui/journal`);
    const all = await rowsOf(page);
    assert.ok(all.length >= 3, 'every record is listed without criteria');
    assert.deepEqual(all.slice().sort((x, y) => Number(y) - Number(x)), all, 'newest first');

    // open a receipt: its facts, and the receipt as printed in the frame
    await search(page, svc.url, { fn: b.fn });
    await Promise.all([page.waitForURL(/\/ui\/journal\/receipt\?/), page.click(`tr[data-sq="${b.sq}"] a`)]);
    assert.equal(await page.locator('#record-fn').innerText(), b.fn);
    assert.equal(await page.locator('#record-total').innerText(), '12.50');
    const paper = page.frameLocator('iframe.paper').locator('body');
    await paper.waitFor();
    const printed = await paper.innerText();
    assert.match(printed, /Article 1/, 'the position is printed');
    assert.match(printed, /12[.,]50/, 'the total is printed');
    assert.ok(printed.includes(b.fn), 'the FN is printed');

    // the journal export, downloaded through the page and verified as a customer's auditor would
    await page.goto(`${svc.url}/ui/journal?rn=def`);
    assert.deepEqual(await page.locator('#x-type option').allTextContents(), ['jou'], 'a register without a country has the journal export only');
    const [exported] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    const zipPath = join(downloads, exported.suggestedFilename());
    await exported.saveAs(zipPath);
    const report = await verifyZip(zipPath);
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.ok(report.count >= 3, 'the export holds the receipts');

    // a backup
    const [backup] = await Promise.all([page.waitForEvent('download'), page.click('#backup')]);
    assert.match(backup.suggestedFilename(), /\.zip$/);
    const backupPath = join(downloads, backup.suggestedFilename());
    await backup.saveAs(backupPath);
    assert.equal(readFileSync(backupPath).subarray(0, 2).toString('latin1'), 'PK', 'the backup is a zip');

    // verify the chain with one click: OK with the number of records (as many as the export holds)
    await Promise.all([page.waitForURL(/\/ui\/journal/), page.click('#verify')]);
    const verified = await page.locator('.notice.ok').innerText();
    const m = /Chain OK: (\d+) records of def verified/.exec(verified);
    assert.ok(m, verified);
    assert.equal(Number(m[1]), report.count);

    // the status page: registers, last transactions (newest first, each opening its receipt), recorder
    await page.goto(`${svc.url}/control`);
    const def = page.locator('section.register[data-rn="def"]');
    assert.deepEqual(await def.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-sq'))), [c, b, a].map((r) => String(r.sq)));
    assert.equal(await def.locator(`tr[data-sq="${c.sq}"] td.fn`).innerText(), c.fn);
    assert.match(await page.locator('#recorder').innerText(), /Records sent\s+0/);
    // no portal is set up for the test service: the recorder is inactive (never online)
    assert.equal(await page.locator('#recorder .recorder-state').innerText(), 'inactive');
    assert.match(await page.locator('#disk-usage').innerText(), /MB of [\d,]+ MB/);
    await Promise.all([page.waitForURL(/\/ui\/journal\/receipt\?/), def.locator(`tr[data-sq="${a.sq}"] a`).click()]);
    assert.equal(await page.locator('#record-fn').innerText(), a.fn);
    await context.close();
  } finally {
    await browser?.close();
    await svc.stop();
    rmSync(downloads, { recursive: true, force: true });
  }
});

test('a form of another site cannot run the verify; a wrong password is refused', async () => {
  const svc = await startTestService();
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Password: PASSWORD })).status, 200);
    const basic = (pw: string): Record<string, string> => ({ authorization: `Basic ${Buffer.from(`x:${pw}`).toString('base64')}` });
    assert.equal((await get(`${svc.url}/ui/journal`, basic('wrong'))).status, 401);
    const foreign = await post(`${svc.url}/ui/journal/verify?rn=def`, '_token=guessed', { ...basic(PASSWORD), 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(foreign.status, 403);
    assert.match(foreign.text, /not sent from this service/);
    // the right token, but the form is on a page of another site
    const token = `_token=${encodeURIComponent(formToken(svc.dataDir))}`;
    const form = { ...basic(PASSWORD), 'content-type': 'application/x-www-form-urlencoded' };
    const evil = await post(`${svc.url}/ui/journal/verify?rn=def`, token, { ...form, origin: 'http://evil.example' });
    assert.equal(evil.status, 403);
    // refused before the page's own guard: another site's request never reaches it
    assert.match(evil.text, /#CROSS_SITE/);
    assert.doesNotMatch(evil.text, /Chain OK/);
    // the same form from the service's own page passes the guard (so the refusals above are the origin's and the
    // token's): it gets as far as finding that the new instance has no register def yet
    const ours = await post(`${svc.url}/ui/journal/verify?rn=def`, token, { ...form, origin: svc.url });
    assert.equal(ours.status, 404);
    assert.doesNotMatch(ours.text, /not sent from this service/);
    // an unknown register and a malformed SQ: the page with the reason, not a 500
    // a new instance has no register yet: the page says so
    const empty = await get(`${svc.url}/ui/journal`, basic(PASSWORD));
    assert.equal(empty.status, 200);
    assert.match(empty.text, /No register has a journal yet/);
    await register(svc.url, [['A', '1.00']], '1.00');
    assert.equal((await get(`${svc.url}/ui/journal?rn=nosuch`, basic(PASSWORD))).status, 404);
    assert.equal((await get(`${svc.url}/ui/journal/receipt?rn=def&sq=x`, basic(PASSWORD))).status, 400);
    assert.equal((await get(`${svc.url}/ui/journal/receipt?rn=def&sq=99`, basic(PASSWORD))).status, 404);
    const noPeriod = await post(`${svc.url}/ui/journal/export?rn=def`, `${token}&type=jou&from=2001-01-01&till=2001-01-31`, form);
    assert.equal(noPeriod.status, 404, 'a period without records has nothing to export');
    assert.match(noPeriod.text, /No download: /);
    assert.equal((await post(`${svc.url}/ui/journal/export?rn=def`, `${token}&type=dsfinvk`, form)).status, 400, 'an export of another country');
    const page = await get(`${svc.url}/ui/journal`, basic(PASSWORD));
    assert.match(page.text, /<form class="verify" method="post"/);
    assert.match(String(page.contentType), /text\/html/);
  } finally {
    await svc.stop();
  }
});
