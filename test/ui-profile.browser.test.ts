/**
 * The Profile page (/) and the base-data page (/ui/cfg) in a real browser (Debian's chromium, headless): log in
 * with the profile password, change the profile and the base data and see the change through the API and in the
 * journal; a setting preset by an environment variable is read-only; a bad value is refused with the field named
 * and nothing saved; a form without the token or from another origin is refused; the pages speak de, fr, nl.
 * The README's screenshots come from test/ui-pages.browser.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type Page, chromium } from 'playwright-core';
import { get, http, post, startTestService } from './helpers.js';
import { unpackRecordText } from '../src/register/journal/record-text.js';

const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PASSWORD = 's3cret-Pages';
const basic = { authorization: `Basic ${Buffer.from(`x:${PASSWORD}`).toString('base64')}` };

function cfgRecords(dataDir: string): Array<Record<string, unknown>> {
  const db = new Database(join(dataDir, 'journal', 'journal.sqlite'), { readonly: true });
  try {
    const rows = db.prepare("SELECT data FROM journal WHERE type = 'Cfg' ORDER BY sq").all() as Array<{ data: Buffer }>;
    return rows.map((r) => JSON.parse(unpackRecordText(r.data)) as Record<string, unknown>);
  } finally {
    db.close();
  }
}

/** The profile as stored (the settings table), without the environment's settings laid over it. */
function storedProfile(dataDir: string, rn: string): { Attributes?: string; TaxId?: string } {
  const db = new Database(join(dataDir, 'journal', 'journal.sqlite'), { readonly: true });
  try {
    const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(`profile:${rn}`) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as { Attributes?: string; TaxId?: string }) : {};
  } finally {
    db.close();
  }
}

/** The value of a named input, as the page shows it. */
const valueOf = (page: Page, name: string): Promise<string> => page.locator(`[name="${name}"]`).first().inputValue();

test('profile and base-data pages: log in, change, refuse, translate', async () => {
  const svc = await startTestService({ env: { SVC_EFR_PROFILE_CFG__DOT__def__DOT__Proxy: 'http://proxy.example:3128' } });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BROWSER_ARGS });
  try {
    let r = await post(`${svc.url}/profile`, { Badge: 'BADGE-1', TaxId: 'ATU11111111', Password: PASSWORD, Attributes: 'Normalize_D=9 Fis_Tot' });
    assert.equal(r.status, 200, r.text);
    r = await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Old Shop', Adr: 'Old Street 1', Zip: '1010', City: 'Wien', Ctry: 'AT', TaxId: 'ATU11111111', Extra_Field: 'keep me' }, Dev: [{ Id: 'D1', HW: 'Scanner' }] } }, basic);
    assert.equal(r.status, 200, r.text);

    // a wrong password is refused; the right one opens the page
    const wrong = await browser.newContext({ httpCredentials: { username: 'x', password: 'wrong' } });
    const refused = await (await wrong.newPage()).goto(`${svc.url}/`);
    assert.equal(refused?.status(), 401);
    await wrong.close();
    const context = await browser.newContext({ httpCredentials: { username: 'x', password: PASSWORD }, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (res) => {
      if (res.status() === 404) problems.push(`404 ${res.url()}`);
    });
    page.on('console', (m) => {
      // the refused posts below answer 400 on purpose
      if (m.type() === 'error' && !/status of 400/.test(m.text())) problems.push(m.text());
    });
    const first = await page.goto(`${svc.url}/?lang=en`);
    assert.equal(first?.status(), 200);
    assert.match(first?.headers()['content-type'] ?? '', /^text\/html; charset=utf-8/);
    assert.equal(first?.headers()['cache-control'], 'no-store');
    assert.match(first?.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    assert.equal(await valueOf(page, 'Badge'), 'BADGE-1');
    assert.equal(await valueOf(page, 'TaxId'), 'ATU11111111');
    assert.equal(await page.locator('input[name="Password"]').inputValue(), '');
    assert.ok(!(await page.content()).includes(PASSWORD));

    // the blocked setting (Proxy by environment variable) is read-only with the spec's message
    const proxy = page.locator('input[name="Proxy"]');
    assert.equal(await proxy.getAttribute('readonly'), '');
    assert.equal(await proxy.inputValue(), 'http://proxy.example:3128');
    assert.match(await page.locator('#profile-form').innerText(), /Setting of Proxy for def is blocked/);
    // known attributes have help, an unknown one a note
    const rows = page.locator('table.attributes tbody tr');
    assert.match(await rows.filter({ has: page.locator('input[value="Normalize_D"]') }).innerText(), /Days for the ESR\.D validation/);

    // change TaxId and an attribute (Normalize_D 9 -> 5), add an unknown one
    await page.locator('input[name="TaxId"]').fill('ATU22222222');
    await rows.filter({ has: page.locator('input[value="Normalize_D"]') }).locator('input[name="attr.value"]').fill('5');
    const empty = rows.filter({ has: page.locator('input[name="attr.name"][value=""]') }).first();
    await empty.locator('input[name="attr.name"]').fill('My_Flag');
    await empty.locator('input[name="attr.value"]').fill('on');
    await page.locator('#profile-form button[type="submit"]').click();
    await page.locator('.notice.ok').waitFor();
    r = await get(`${svc.url}/profile`);
    assert.equal(r.json.Profile.TaxId, 'ATU22222222');
    assert.equal(r.json.Profile.Badge, 'BADGE-1');
    assert.equal(r.json.Profile.PasswordSet, true);
    assert.match(r.json.Profile.Attributes, /(^| )Normalize_D=5( |$)/i);
    assert.match(r.json.Profile.Attributes, /(^| )Fis_Tot( |$)/i);
    assert.match(r.json.Profile.Attributes, /(^| )My_Flag=on( |$)/i);
    // what the page wrote (the stored list, not GET /profile, which lays the environment's Proxy over it): the
    // blocked Proxy was not sent, the rest was
    const stored = storedProfile(svc.dataDir, 'def');
    assert.match(stored.Attributes ?? '', /(^| )Normalize_D=5( |$)/i);
    assert.match(stored.Attributes ?? '', /(^| )My_Flag=on( |$)/i);
    assert.doesNotMatch(stored.Attributes ?? '', /proxy/i);
    assert.match(r.json.Profile.Attributes, /Proxy=http:\/\/proxy\.example:3128/i); // the environment's, laid over
    assert.match(await rows.filter({ has: page.locator('input[value="My_Flag" i]') }).innerText(), /Not an attribute of the specification/);

    // an invalid port is refused, naming the field; nothing is saved (TaxId typed at the same time stays old)
    const before = (await get(`${svc.url}/profile`)).json.Profile;
    await page.locator('input[name="HttpServer_Port"]').fill('70000');
    await page.locator('input[name="TaxId"]').fill('ATU99999999');
    const [bad] = await Promise.all([page.waitForResponse((res) => res.request().method() === 'POST'), page.locator('#profile-form button[type="submit"]').click()]);
    assert.equal(bad.status(), 400);
    await page.locator('.notice.error').waitFor();
    assert.match(await page.locator('.notice.error').innerText(), /Attributes\.HttpServer_Port/);
    assert.match(await page.locator('.field-error').first().innerText(), /port number 1-65535/);
    assert.equal(await valueOf(page, 'HttpServer_Port'), '70000'); // as typed
    assert.equal(await valueOf(page, 'TaxId'), 'ATU99999999');
    assert.deepEqual((await get(`${svc.url}/profile`)).json.Profile, before);


    // the base-data page: every field, including one the form does not know
    await page.goto(`${svc.url}/ui/cfg?lang=en`);
    assert.equal(await valueOf(page, 'Cmp.Nam'), 'Old Shop');
    assert.equal(await valueOf(page, 'Dev.0.Id'), 'D1');
    assert.equal(await page.locator('input[name="Cmp.+name"]').first().inputValue(), 'Extra_Field');
    const cfgBefore = cfgRecords(svc.dataDir).length;
    await page.locator('input[name="Cmp.Nam"]').fill('New Shop GmbH');
    await page.locator('input[name="Cmp.Adr"]').fill('Neue Gasse 7');
    await page.locator('#cfg-form button[type="submit"]').click();
    await page.locator('.notice.ok').waitFor();
    r = await get(`${svc.url}/cfg`, basic);
    assert.equal(r.json.Cfg.Cmp.Nam, 'New Shop GmbH');
    assert.equal(r.json.Cfg.Cmp.Adr, 'Neue Gasse 7');
    assert.equal(r.json.Cfg.Cmp.Extra_Field, 'keep me');
    assert.deepEqual(r.json.Cfg.Dev, [{ Id: 'D1', HW: 'Scanner' }]);
    const records = cfgRecords(svc.dataDir);
    assert.equal(records.length, cfgBefore + 1);
    assert.deepEqual((records.at(-1)?.Cfg as { Cmp: Record<string, string> }).Cmp.Nam, 'New Shop GmbH');

    // saving unchanged records nothing
    await page.locator('#cfg-form button[type="submit"]').click();
    await page.locator('.notice.ok').getByText('No change').waitFor();
    assert.equal(cfgRecords(svc.dataDir).length, cfgBefore + 1);

    // a bad country code is refused with the field named; nothing is recorded
    await page.locator('input[name="Cmp.Ctry"]').fill('Austria');
    await page.locator('input[name="Cmp.City"]').fill('Graz');
    const [badCfg] = await Promise.all([page.waitForResponse((res) => res.request().method() === 'POST'), page.locator('#cfg-form button[type="submit"]').click()]);
    assert.equal(badCfg.status(), 400);
    assert.match(await page.locator('.notice.error').innerText(), /Cfg\.Cmp\.Ctry/);
    assert.match(await page.locator('.field-error').innerText(), /ISO 3166/);
    assert.equal(await valueOf(page, 'Cmp.City'), 'Graz');
    assert.equal(cfgRecords(svc.dataDir).length, cfgBefore + 1);
    assert.equal((await get(`${svc.url}/cfg`, basic)).json.Cfg.Cmp.City, 'Wien');


    // the pages in de, fr and nl
    const labels: Record<string, [RegExp, RegExp]> = {
      de: [/Neues Passwort/, /Unternehmen \(Cmp\)/],
      fr: [/Nouveau mot de passe/, /Entreprise \(Cmp\)/],
      nl: [/Nieuw wachtwoord/, /Bedrijf \(Cmp\)/],
    };
    for (const [lang, [profileLabel, cfgLabel]] of Object.entries(labels)) {
      await page.goto(`${svc.url}/?lang=${lang}`);
      assert.equal(await page.locator('html').getAttribute('lang'), lang);
      const text = await page.locator('main').innerText();
      assert.match(text, profileLabel);
      assert.doesNotMatch(text, /New password|Setting of Proxy/);
      await page.goto(`${svc.url}/ui/cfg?lang=${lang}`);
      assert.match(await page.locator('main').innerText(), cfgLabel);
    }
    assert.match(await (await page.goto(`${svc.url}/?lang=de`))!.text(), /Die Einstellung Proxy für def ist gesperrt/);
    assert.deepEqual(problems, []);
    await context.close();

    // forms without the token, or from another origin, are refused and change nothing
    const token = /name="_token" value="([^"]+)"/.exec((await get(`${svc.url}/ui/cfg`, basic)).text)?.[1];
    assert.ok(token);
    const form = { 'content-type': 'application/x-www-form-urlencoded', ...basic };
    const profileBefore = (await get(`${svc.url}/profile`)).json.Profile;
    for (const [path, body] of [['/', 'Badge=BADGE-1&TaxId=EVIL'], ['/ui/cfg', 'Cmp.Nam=Evil&Cmp.Ctry=AT']] as const) {
      const noToken = await http('POST', `${svc.url}${path}`, body, form);
      assert.equal(noToken.status, 403, noToken.text);
      assert.match(noToken.text, /not sent from this service/);
      const foreign = await http('POST', `${svc.url}${path}`, `${body}&_token=${encodeURIComponent(token)}`, { ...form, origin: 'http://evil.example' });
      assert.equal(foreign.status, 403, foreign.text);
    }
    assert.deepEqual((await get(`${svc.url}/profile`)).json.Profile, profileBefore);
    assert.equal((await get(`${svc.url}/cfg`, basic)).json.Cfg.Cmp.Nam, 'New Shop GmbH');
    // with the token and our own origin the same kind of post is taken
    const ours = await http('POST', `${svc.url}/`, `Badge=BADGE-1&TaxId=ATU33333333&_token=${encodeURIComponent(token)}`, { ...form, origin: svc.url });
    assert.equal(ours.status, 200, ours.text);
    assert.equal((await get(`${svc.url}/profile`)).json.Profile.TaxId, 'ATU33333333');
  } finally {
    await browser.close();
    await svc.stop();
  }
});
