/**
 * Digital receipts between a real register service and a real portal (SQLite; PostgreSQL with
 * EFR_TEST_PG): Tra_DH in the /register answer only when online, the portal's activation with the register
 * handle, the archive with transaction handles (taken from the service's real journal through
 * archiveRecordExtras), and the receipt page /r/<DH> drawn with the register service's template and the Cfg in
 * force at the receipt's time. The recorder is driven by hand here (the recorder's own e2e covers the wiring).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { request } from 'undici';
import { ACTIVATION_KEY } from '../src/register/recorder/keys.js';
import { activationHandleFields, archiveRecordExtras } from '../src/register/recorder/receipt-handles.js';
import { get, post, sale, startTestService } from './helpers.js';
import { STORE_NAME, startTestPortal, companyWithLocation } from './portal-helpers.js';
import type { TestService } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

/** Everything the service's journal holds for `def`, archived at the portal as the recorder sends it. */
async function archiveAll(service: TestService, portalUrl: string, token: string, fromSq: number): Promise<number> {
  const reg = service.ctx.registers.get('def');
  assert.ok(reg);
  const records: Array<Record<string, unknown>> = [];
  for await (const r of service.ctx.store.range(reg.state.rid, fromSq)) {
    records.push({ sq: r.sq, data: r.data, hash: r.hash.toString('hex'), d: r.d, ...archiveRecordExtras(r) });
  }
  const a = await post(`${portalUrl}/api/v1/recorder/archive`, { records }, { authorization: `Bearer ${token}` });
  assert.equal(a.status, 200, a.text);
  return reg.state.sq;
}

async function page(url: string): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const res = await request(url);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = String(v);
  return { status: res.statusCode, headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

test(`Tra_DH, activation with the register handle, archive with transaction handles, the receipt page (${STORE_NAME})`, async () => {
  const portal = await startTestPortal();
  cleanup.push(() => portal.stop());
  const company = await companyWithLocation(portal);
  const service = await startTestService();
  cleanup.push(() => service.stop());

  const cfg1 = await post(`${service.url}/cfg`, { Cfg: { Cmp: { Nam: 'Old Name KG', Adr: 'Altgasse 1', City: 'Wien', Ctry: 'NL', TaxId: 'NL123456789B01' } } });
  assert.equal(cfg1.status, 200, cfg1.text);
  const prof = await post(`${service.url}/profile`, { Badge: `${company.badge}/Shop-1/POS-1`, Attributes: 'Tra_DH' });
  assert.equal(prof.status, 200, prof.text);

  // not activated: no handle (the portal could not show the receipt)
  const offline = await post(`${service.url}/register`, sale({ TN: '1' }, [['A', '3.50'], ['B', '1.20']]));
  assert.equal(offline.status, 200, offline.text);
  assert.equal(offline.json.TraC.Fis?.DH, undefined, offline.text);

  // activated (the recorder's setting; the recorder itself is not started by a badge here)
  await service.ctx.store.putSetting(ACTIVATION_KEY, JSON.stringify({ portalUrl: portal.url, token: 'x', registerNumber: 'r', badge: 'b', at: new Date().toISOString() }));
  const first = await post(`${service.url}/register`, sale({ TN: '2' }, [['A', '7.00'], ['B', '2.40']]));
  assert.equal(first.status, 200, first.text);
  const dh1 = first.json.TraC.Fis.DH as string;
  assert.match(dh1, /^[A-Z2-7]{21}$/);
  const fn1 = first.json.TraC.ESR.FN as string;
  const last = await get(`${service.url}/recorder/lastdh`);
  assert.equal(last.json.LastDH.DH, dh1, 'the answer names the handle /recorder/lastdh names');
  assert.equal(dh1.slice(0, 16), activationHandleFields(service.ctx, 'def').registerHandle);
  // the same receipt sent again (#DUPLICATE) answers the same handle
  const again = await post(`${service.url}/register`, sale({ TN: '2' }, [['A', '7.00'], ['B', '2.40']]));
  assert.equal(again.json.TraC.Result.ErrorCode, '#DUPLICATE', again.text);
  assert.equal(again.json.TraC.Fis.DH, dh1);

  // the base data change; the next receipt is printed with the new ones, the one before keeps the old ones
  const cfg2 = await post(`${service.url}/cfg`, { Cfg: { Cmp: { Nam: 'New Name GmbH', Adr: 'Neugasse 2', City: 'Wien', Ctry: 'NL', TaxId: 'NL123456789B01' } } });
  assert.equal(cfg2.status, 200, cfg2.text);
  const xmlBody = '<Tra><ESR TL="1" TT="1" TN="3" T="5.00"><PosA><Pos PN="1" Dsc="Melange" TaxG="A" Amt="5.00"/></PosA><PayA><Pay Dsc="Cash" PayG="cash" Amt="5.00"/></PayA></ESR></Tra>';
  const second = await post(`${service.url}/register`, xmlBody, { 'content-type': 'application/xml' });
  assert.equal(second.status, 200, second.text);
  const dh2 = /<Fis\b[^>]*\bDH="([A-Z2-7]{21})"/.exec(second.text)?.[1];
  assert.ok(dh2, `the XML answer carries Fis DH: ${second.text}`);
  assert.equal((await get(`${service.url}/recorder/lastdh`)).json.LastDH.DH, dh2);
  assert.equal(dh2.slice(0, 16), dh1.slice(0, 16), 'one register handle');

  // Tra_DH off: no handle
  assert.equal((await post(`${service.url}/profile`, { Badge: `${company.badge}/Shop-1/POS-1`, Attributes: 'Tra_DH=false' })).status, 200);
  const off = await post(`${service.url}/register`, sale({ TN: '4' }));
  assert.equal(off.json.TraC.Fis?.DH, undefined, off.text);

  // the portal: activation with the register handle, then the archive with the transaction handles
  const act = await post(`${portal.url}/api/v1/recorder/activate`, { badge: `${company.badge}/Shop-1/POS-1`, ...activationHandleFields(service.ctx, 'def') });
  assert.equal(act.status, 200, act.text);
  const token = act.json.token as string;
  const rn = act.json.registerNumber as string;
  assert.equal(await portal.store.registerOfHandle(dh1.slice(0, 16)), rn);
  await archiveAll(service, portal.url, token, 1);

  // a malformed handle, a wrong transaction handle, a handle sent with another record's signature: refused by schema or check
  const badTh = await post(`${portal.url}/api/v1/recorder/activate`, { badge: company.badge, registerNumber: 'X$1_1', registerHandle: 'abc' });
  assert.equal(badTh.status, 400, badTh.text);
  const taken = await post(`${portal.url}/api/v1/recorder/activate`, { badge: `${company.badge}/Shop-1/POS-9`, registerHandle: dh1.slice(0, 16) });
  assert.equal(taken.status, 409, `a register handle bound to another register: ${taken.text}`);

  // the receipt pages
  const p1 = await page(`${portal.url}/r/${dh1}`);
  assert.equal(p1.status, 200);
  assert.match(p1.headers['content-type'] ?? '', /^text\/html/);
  assert.match(p1.headers['cache-control'] ?? '', /private/);
  assert.equal(p1.headers['referrer-policy'], 'no-referrer');
  const html1 = p1.body.toString('utf8');
  assert.ok(html1.includes(fn1), `the FN ${fn1}`);
  assert.match(html1, /9[.,]40/, 'the total');
  assert.match(html1, /Article 1/);
  assert.match(html1, /Article 2/);
  assert.match(html1, /7[.,]00/);
  assert.match(html1, /Old Name KG/, 'the Cfg in force then');
  assert.doesNotMatch(html1, /New Name GmbH/);
  assert.match(html1, /data:image\/png;base64,/, 'Fis.Code as a QR image (made from the archived signature)');
  assert.doesNotMatch(html1, /fmt=einvoice/, 'a sale without ESR.DD links no e-invoice');
  assert.equal((await page(`${portal.url}/r/${dh1}?fmt=einvoice`)).status, 404);

  const p2 = await page(`${portal.url}/r/${dh2}`);
  assert.equal(p2.status, 200);
  const html2 = p2.body.toString('utf8');
  assert.match(html2, /Melange/);
  assert.match(html2, /5[.,]00/);
  assert.match(html2, /New Name GmbH/);
  assert.doesNotMatch(html2, /Old Name KG/);

  const pdf = await page(`${portal.url}/r/${dh1}?fmt=pdf`);
  assert.equal(pdf.status, 200);
  assert.equal(pdf.headers['content-type'], 'application/pdf');
  assert.equal(pdf.body.subarray(0, 5).toString('latin1'), '%PDF-');

  // not receipts: an unknown transaction handle, an unknown register handle, a malformed handle, lower case
  const other = dh1.slice(0, 16) + (dh1.endsWith('AAAAA') ? 'BBBBB' : 'AAAAA');
  for (const dh of [other, `AAAAAAAAAAAAAAAA${dh1.slice(16)}`, dh1.slice(0, 20), `${dh1}A`, dh1.toLowerCase(), '..%2F..%2Fetc']) {
    const miss = await page(`${portal.url}/r/${dh}`);
    assert.equal(miss.status, 404, dh);
    assert.match(miss.headers['content-type'] ?? '', /^text\/html/);
    assert.equal(miss.headers['cache-control'], 'no-store');
    assert.match(miss.body.toString('utf8'), /Receipt not found/);
  }
  assert.equal((await page(`${portal.url}/r/${dh1}?fmt=docx`)).status, 404);

  // the guess limit (30 misses per client and 10 minutes): beyond it misses are 429, a receipt that exists is shown
  let misses = 6;
  while (misses < 30) {
    assert.equal((await page(`${portal.url}/r/${other}`)).status, 404, `miss ${misses + 1}`);
    misses += 1;
  }
  const limited = await page(`${portal.url}/r/${other}`);
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.equal((await page(`${portal.url}/r/${dh1}`)).status, 200, 'a found receipt is never refused');
  assert.equal((await page(`${portal.url}/r/${dh2}?fmt=pdf`)).status, 200);

  // a deactivated company's receipts are still shown
  const d = await portal.call('POST', `/api/v1/companies/${company.id}/deactivate`);
  assert.equal(d.status, 200, d.text);
  assert.equal((await portal.store.getEntity(company.id))?.state, 'Deactivated');
  assert.equal((await page(`${portal.url}/r/${dh1}`)).status, 200, 'customers keep their receipts');

  // an archived receipt whose th does not match its signature is refused
  const reg = service.ctx.registers.get('def');
  assert.ok(reg);
  await post(`${service.url}/register`, sale({ TN: '5' }));
  const next: Array<Record<string, unknown>> = [];
  for await (const r of service.ctx.store.range(reg.state.rid, reg.state.sq)) next.push({ sq: r.sq, data: r.data, hash: r.hash.toString('hex'), d: r.d, ...archiveRecordExtras(r), th: 'AAAAA' });
  const wrong = await post(`${portal.url}/api/v1/recorder/archive`, { records: next }, { authorization: `Bearer ${token}` });
  assert.equal(wrong.status, 400, wrong.text);
  assert.match(wrong.text, /th/);
});

test(`the receipt page of an invoice links its e-invoice, the document the service made (${STORE_NAME})`, async () => {
  const portal = await startTestPortal();
  cleanup.push(() => portal.stop());
  const company = await companyWithLocation(portal);
  const service = await startTestService();
  cleanup.push(() => service.stop());
  const cfg = await post(`${service.url}/cfg`, { Cfg: {
    Cmp: { Nam: 'Bakkerij Jansen B.V.', Adr: 'Dorpsstraat', AdrNr: '12', Zip: '1234 AB', City: 'Utrecht', Ctry: 'NL', TaxId: 'NL123456789B01' },
    Trm: { Lang: 'nl' },
    Doc: { AccountIBAN: 'NL91ABNA0417164300', PaymentPeriod: '14' },
  } });
  assert.equal(cfg.status, 200, cfg.text);
  assert.equal((await post(`${service.url}/profile`, { Badge: `${company.badge}/Shop-1/POS-1`, Attributes: 'Tra_DH' })).status, 200);
  await service.ctx.store.putSetting(ACTIVATION_KEY, JSON.stringify({ portalUrl: portal.url, token: 'x', registerNumber: 'r', badge: 'b', at: new Date().toISOString() }));
  const inv = await post(`${service.url}/register`, { Tra: { ESR: {
    TL: '1', TT: '1', TN: '1', DD: 'NL', DDto: '9944:NL987654321B01',
    Ctm: { Nam: 'Hotel De Linde', Adr: 'Lindelaan 3', Zip: '3511 AA', City: 'Utrecht', Ctry: 'NL', TaxId: 'NL987654321B01', BuyerReference: 'PO-17' },
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Catering', TaxG: '21%', Amt: '121.00' }],
    PayA: [{ _: 'Pay', Dsc: 'On account', PayG: 'open', Amt: '121.00' }],
  } } });
  assert.equal(inv.status, 200, inv.text);
  const dh = inv.json.TraC.Fis.DH as string;
  const fn = inv.json.TraC.ESR.FN as string;
  // a training invoice with DD makes no e-invoice (it is not fiscal): its page links none
  const training = await post(`${service.url}/register`, { Tra: { ESR: {
    TL: '1', TT: '1', TN: '2', NFS: 'TRAINING', DD: 'NL', DDto: '9944:NL987654321B01',
    Ctm: { Nam: 'Hotel De Linde', Adr: 'Lindelaan 3', Zip: '3511 AA', City: 'Utrecht', Ctry: 'NL', TaxId: 'NL987654321B01', BuyerReference: 'PO-17' },
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Catering', TaxG: '21%', Amt: '121.00' }],
    PayA: [{ _: 'Pay', Dsc: 'On account', PayG: 'open', Amt: '121.00' }],
  } } });
  assert.equal(training.status, 200, training.text);
  const trainingDh = training.json.TraC.Fis.DH as string;
  assert.ok(trainingDh, training.text);
  const act = await post(`${portal.url}/api/v1/recorder/activate`, { badge: `${company.badge}/Shop-1/POS-1`, ...activationHandleFields(service.ctx, 'def') });
  assert.equal(act.status, 200, act.text);
  await archiveAll(service, portal.url, act.json.token as string, 1);

  const trainingPage = await page(`${portal.url}/r/${trainingDh}`);
  assert.equal(trainingPage.status, 200);
  assert.doesNotMatch(trainingPage.body.toString('utf8'), /fmt=einvoice/);
  const html = (await page(`${portal.url}/r/${dh}`)).body.toString('utf8');
  const href = /<a href="\?fmt=einvoice&amp;sq=(\d+)" download>E-factuur \(XML, EN 16931\)<\/a>/.exec(html);
  assert.ok(href, `the page links the e-invoice in the receipt's language: ${html.slice(-600)}`);
  const doc = await page(`${portal.url}/r/${dh}?fmt=einvoice&sq=${href[1]}`);
  assert.equal(doc.status, 200);
  assert.match(doc.headers['content-type'] ?? '', /^application\/xml/);
  assert.equal(doc.headers['content-disposition'], `attachment; filename="einvoice-${fn}.xml"`);
  // the same document the service keeps and answers by GET /export
  const exported = await get(`${service.url}/export?type=einvoice&fn=${encodeURIComponent(fn)}`);
  assert.equal(exported.status, 200, exported.text);
  assert.equal(doc.body.toString('utf8'), exported.text);
  assert.match(exported.text, new RegExp(`<cbc:ID>${fn}</cbc:ID>`));
});
