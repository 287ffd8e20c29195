/**
 * The template editor in a real browser (Debian's chromium, headless): /peri/pugedit previews the
 * register's last receipt, an edit changes the preview, a syntax error is shown, and "Save layout"
 * stores the template so that GET /peri/layout lists it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { get, post, sale, startTestService } from './helpers.js';

const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

test('pugedit: live preview of the last receipt, then save as a layout', async () => {
  const svc = await startTestService();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BROWSER_ARGS });
  try {
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Browser Shop', Ctry: 'AT', TaxId: 'ATU12345678' } } });
    const r = await post(`${svc.url}/register`, sale({}, [['A', '12.34']]));
    assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
    const fn = r.json.TraC.Fis.FN as string;

    const page = await browser.newPage();
    // errors of the editor's own script; the console shows the expected ones (a 400 preview, the blocked script)
    const problems: string[] = [];
    const consoleErrors: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(`${svc.url}/peri/pugedit`);
    const preview = page.frameLocator('#preview');

    // the sample template shows the last receipt
    await preview.locator('h2').getByText('Browser Shop').waitFor({ timeout: 10_000 });
    assert.match(await preview.locator('body').innerText(), /Total 12\.34/);
    assert.equal(await page.locator('#shown').innerText(), `showing receipt FN ${fn}`);

    // an edit changes the preview
    await page.locator('#template').fill('h1#total Sum: #{ESR.T} (FN #{Fis.FN})\n');
    await preview.locator('h1#total').waitFor({ timeout: 10_000 });
    assert.equal(await preview.locator('h1#total').innerText(), `Sum: 12.34 (FN ${fn})`);

    // a syntax error is named, the last good preview stays
    await page.locator('#template').fill('h1(class="x"\n');
    await page.locator('#message.error').waitFor({ timeout: 10_000 });
    assert.match(await page.locator('#message').innerText(), /#PUG_SYNTAX_ERROR/);

    // script in a template's output does not run: the preview is a sandboxed frame
    await page.locator('#template').fill('h1#s scripted\nscript.\n  document.getElementById("s").textContent = "ran"\n');
    await preview.locator('h1#s').waitFor({ timeout: 10_000 });
    await page.waitForTimeout(200);
    assert.equal(await preview.locator('h1#s').innerText(), 'scripted');

    // save: POST /peri/layout; the layout is listed and stored with the editor's text
    const template = 'h1#total Total #{ESR.T}\n';
    await page.locator('#template').fill(template);
    await preview.locator('h1#total').getByText('Total 12.34').waitFor({ timeout: 10_000 });
    await page.locator('#name').fill('shop-receipt');
    await page.locator('#save').click();
    await page.locator('#message.ok').waitFor({ timeout: 10_000 });
    assert.match(await page.locator('#message').innerText(), /Saved layouts\/def\/shop-receipt\.pug/);
    const listed = await get(`${svc.url}/peri/layout?RN=def`);
    assert.deepEqual(listed.json, { RN: 'def', layouts: [{ name: 'shop-receipt', filePath: 'layouts/def/shop-receipt.pug', layoutType: 'PUG' }] });
    assert.equal(readFileSync(join(svc.dataDir, 'layouts/def/shop-receipt.pug'), 'utf8'), template);

    // saving again replaces it (PUT after the 409 of POST)
    await page.locator('#template').fill('p changed #{ESR.T}\n');
    await preview.locator('p').getByText('changed 12.34').waitFor({ timeout: 10_000 });
    await page.locator('#save').click();
    const file = join(svc.dataDir, 'layouts/def/shop-receipt.pug');
    for (const deadline = Date.now() + 10_000; readFileSync(file, 'utf8') !== 'p changed #{ESR.T}\n'; ) {
      assert.ok(Date.now() < deadline, `not replaced: ${readFileSync(file, 'utf8')}`);
      await page.waitForTimeout(50);
    }
    assert.equal((await get(`${svc.url}/peri/layout`)).json.layouts.length, 1);
    assert.deepEqual(problems, []);
    assert.ok(consoleErrors.some((m) => /Blocked script execution in 'about:srcdoc'/.test(m)), consoleErrors.join('\n'));
  } finally {
    await browser.close();
    await svc.stop();
  }
});
