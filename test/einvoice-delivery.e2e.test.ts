/**
 * Delivery of e-invoices through the running service against two fake service providers
 * (test/fake-einvoice-provider.ts: real HTTP servers on free ports, a production and a test system): the
 * e-invoice sent after journaling with the bearer token and headers of docs/einvoicing.md, the provider's id
 * in the answer's Fis.EInvoice, in /find and in the journal as a record of its own; the test system chosen by
 * DD -TEST and by ESR.Test; a rejection journaled and not sent again; the provider away: RC OK with a warning,
 * queued in /state, delivered later once it answers, also after a restart of the service; no endpoint: nothing
 * sent, said so in the answer and the journal.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestService, freePort, get, post, spawnService, startTestService, tempDir, until } from './helpers.js';
import { type FakeProvider, startFakeProvider } from './fake-einvoice-provider.js';
import { makeDemoCertificate, startFakeCis } from './fake-cis.js';

const CFG = {
  Cfg: {
    Cmp: { Nam: 'Bakkerij Jansen B.V.', Adr: 'Dorpsstraat', AdrNr: '12', Zip: '1234 AB', City: 'Utrecht', Ctry: 'NL', TaxId: 'NL123456789B01' },
    Doc: { ContactName: 'Anna Jansen', ContactTelephone: '+31 30 1234567', ContactElectronicMail: 'factuur@jansen.example', PaymentTerms: 'Payable within 14 days', AccountName: 'Bakkerij Jansen', AccountIBAN: 'NL91ABNA0417164300', AccountBIC: 'ABNANL2A', PaymentPeriod: '14' },
  },
};
const CUSTOMER = { Nam: 'Hotel De Linde', Adr: 'Lindelaan', AdrNr: '3', Zip: '3511 AA', City: 'Utrecht', Ctry: 'NL', TaxId: 'NL987654321B01', BuyerReference: 'PO-17' };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let prod: FakeProvider;
let testSystem: FakeProvider;
let dataDir: string;
let svc: TestService;
const env = { EFR_FISCAL_RETRY_MS: '300' };

function invoice(extra: Record<string, unknown> = {}): object {
  return {
    Tra: {
      ESR: {
        TL: '1', TT: '1', DD: 'NL', DDto: '9944:NL987654321B01', Ctm: CUSTOMER,
        PosA: [{ _: 'Pos', PN: '1', Dsc: 'Catering', TaxG: '21%', Amt: '121.00' }, { _: 'Pos', PN: '2', Dsc: 'Bread', TaxG: '9%', Amt: '32.70' }],
        PayA: [{ _: 'Pay', Dsc: 'On account', PayG: 'open', Amt: '153.70' }],
        ...extra,
      },
    },
  };
}

async function register(extra: Record<string, unknown> = {}): Promise<Json> {
  const res = await post(`${svc.url}/register`, invoice(extra));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.TraC.Result.RC, 'OK', res.text);
  return res.json.TraC as Json;
}

async function found(fn: string): Promise<Json> {
  const res = await get(`${svc.url}/find?_=Tra&fn=${encodeURIComponent(fn)}`);
  assert.equal(res.status, 200, res.text);
  const record = (res.json.Find.Records as Json[])[0];
  assert.ok(record, `FN ${fn} in /find`);
  return record;
}

/** The delivery records the journal holds for the invoice with SQ `sq`. */
async function answers(sq: string | number): Promise<Json[]> {
  // as docs/einvoicing.md shows it with curl
  const res = await get(`${svc.url}/find?_=log&rsq=${sq}`);
  assert.equal(res.status, 200, res.text);
  const records = res.json.Find.Records as Json[];
  for (const r of records) assert.match(String(r.Event), /^Einvoice/);
  return records;
}

async function setProfile(attributes: string): Promise<void> {
  const res = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: attributes });
  assert.equal(res.status, 200, res.text);
}

const delivering = (): string => `eDoc_Url=${prod.url} eDoc_Token=prod-secret eDoc_TestUrl=${testSystem.url} eDoc_TestToken=test-secret eDoc_Timeout=2500`;

before(async () => {
  prod = await startFakeProvider('prod-secret', 'PROD');
  testSystem = await startFakeProvider('test-secret', 'TEST');
  dataDir = tempDir('efr-einvoice-delivery-');
  svc = await startTestService({ dataDir, env });
  await setProfile(delivering());
  const cfg = await post(`${svc.url}/cfg`, CFG);
  assert.equal(cfg.status, 200, cfg.text);
});

after(async () => {
  await svc.stop();
  await prod.close();
  await testSystem.close();
});

test('delivered in time: the e-invoice reaches the production provider with its token; its id is in Fis, /find, /render and the journal', async () => {
  const before = prod.received.length;
  const tra = await register();
  assert.equal(prod.received.length, before + 1);
  const got = prod.received.at(-1);
  assert.ok(got);
  assert.equal(got.headers.authorization, 'Bearer prod-secret');
  assert.match(String(got.headers['content-type']), /^application\/xml; charset=utf-8$/);
  assert.equal(got.headers['x-efr-destination'], 'NL');
  assert.equal(got.headers['x-efr-receiver'], '9944:NL987654321B01');
  assert.equal(got.headers['x-efr-invoice'], tra.ESR.FN);
  assert.match(String(got.headers['idempotency-key']), new RegExp(`^def/${tra.SQ}/[0-9a-f]{32}$`));
  // what was sent is the e-invoice kept for GET /export
  const exported = await get(`${svc.url}/export?type=einvoice&fn=${encodeURIComponent(tra.ESR.FN)}`);
  assert.equal(exported.status, 200);
  assert.equal(got.xml, exported.text);
  assert.match(got.answered ?? '', /^PROD-/);
  assert.deepEqual(tra.Fis.EInvoice, { Status: 'accepted', Id: got.answered });
  assert.equal(tra.Result.Warning, undefined, JSON.stringify(tra.Result));
  assert.equal(testSystem.received.length, 0, 'nothing went to the test system');
  const record = await found(tra.ESR.FN);
  assert.deepEqual(record.Fis.EInvoice, { Status: 'accepted', Id: got.answered });
  const journaled = await answers(tra.SQ);
  assert.equal(journaled.length, 1);
  assert.equal(journaled[0]?.Event, 'EinvoiceAnswer');
  assert.equal(journaled[0]?.Id, got.answered);
  assert.equal(journaled[0]?.Endpoint, 'eDoc_Url');
  assert.equal(journaled[0]?.Later, undefined);
  // the receipt drawn by /render names the delivery
  const rendered = await get(`${svc.url}/render/text?fn=${encodeURIComponent(tra.ESR.FN)}`);
  assert.equal(rendered.status, 200, rendered.text);
  assert.match(rendered.text, new RegExp(`E-invoice\\s+accepted\\s+${got.answered}`));
  // in XML the delivery is an element of Fis with attributes
  const xmlBody = '<Tra><ESR TL="1" TT="1" DD="NL" DDto="9944:NL987654321B01"><Ctm Nam="Hotel De Linde" Adr="Lindelaan 3" Zip="3511 AA" City="Utrecht" Ctry="NL" TaxId="NL987654321B01" BuyerReference="PO-18"/>'
    + '<PosA><Pos PN="1" Dsc="Catering" TaxG="21%" Amt="121.00"/></PosA><PayA><Pay Dsc="Card" PayG="debitcard" Amt="121.00"/></PayA></ESR></Tra>';
  const inXml = await post(`${svc.url}/register`, xmlBody, { 'content-type': 'application/xml', accept: 'application/xml' });
  assert.equal(inXml.status, 200, inXml.text);
  assert.match(inXml.text, new RegExp(`<Fis [^>]*><EInvoice Status="accepted" Id="${prod.received.at(-1)?.answered ?? 'none'}"/>`));
  // a request sent again is a duplicate: nothing is sent again, the answer carries the delivery of the original
  const first = await register({ TN: '9001', D: tra.ESR.D });
  const sent = prod.received.length;
  const again = await post(`${svc.url}/register`, invoice({ TN: '9001', D: tra.ESR.D }));
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.TraC.Result.ErrorCode, '#DUPLICATE');
  assert.deepEqual(again.json.TraC.Fis.EInvoice, first.Fis.EInvoice);
  assert.equal(prod.received.length, sent);
});

test('two shops with one provider account, both with register def: each invoice is delivered, none answered with the other\'s id', async () => {
  const shops: TestService[] = [];
  try {
    const tras: Json[] = [];
    for (const name of ['a', 'b']) {
      const shop = await startTestService({ dataDir: tempDir(`efr-einvoice-shop-${name}-`), env });
      shops.push(shop);
      assert.equal((await post(`${shop.url}/profile`, { Badge: 'B1', Attributes: delivering() })).status, 200);
      assert.equal((await post(`${shop.url}/cfg`, CFG)).status, 200);
      const res = await post(`${shop.url}/register`, invoice());
      assert.equal(res.json.TraC.Result.RC, 'OK', res.text);
      tras.push(res.json.TraC as Json);
    }
    const [a, b] = tras;
    assert.ok(a && b);
    // the same register, SQ and FN in both shops: the case a key made of them alone cannot tell apart
    assert.equal(a.SQ, b.SQ);
    assert.equal(a.ESR.FN, b.ESR.FN);
    const sent = prod.received.slice(-2);
    assert.notEqual(sent[0]?.headers['idempotency-key'], sent[1]?.headers['idempotency-key']);
    assert.notEqual(a.Fis.EInvoice.Id, b.Fis.EInvoice.Id);
    assert.equal(b.Fis.EInvoice.Id, sent[1]?.answered);
  } finally {
    for (const shop of shops) await shop.stop();
  }
});

test('the test system: DD NL-TEST and a test transaction (ESR.Test 1) go to eDoc_TestUrl with its token, never to production', async () => {
  const prodBefore = prod.received.length;
  const suffixed = await register({ DD: 'NL-TEST' });
  const got = testSystem.received.at(-1);
  assert.ok(got);
  assert.equal(got.headers.authorization, 'Bearer test-secret');
  assert.equal(got.headers['x-efr-destination'], 'NL-TEST');
  assert.deepEqual(suffixed.Fis.EInvoice, { Status: 'accepted', Id: got.answered, Test: '1' });
  assert.match(got.answered ?? '', /^TEST-/);
  const trial = await register({ Test: '1' });
  assert.equal(testSystem.received.at(-1)?.headers['x-efr-invoice'], trial.ESR.FN);
  assert.equal(trial.Fis.EInvoice.Test, '1');
  assert.equal(prod.received.length, prodBefore, 'the production provider got nothing');
  assert.equal((await answers(trial.SQ))[0]?.Test, '1');
  // a test endpoint of its own for one destination wins over eDoc_TestUrl
  const own = await startFakeProvider('own-secret', 'OWN');
  try {
    await setProfile(`${delivering()} eDoc_Url_NL-TEST=${own.url} eDoc_Token_NL-TEST=own-secret`);
    const third = await register({ DD: 'NL-TEST' });
    assert.match(third.Fis.EInvoice.Id, /^OWN-/);
    assert.equal(own.received.length, 1);
  } finally {
    await setProfile(delivering());
    await own.close();
  }
});

test('a rejection is journaled with its reason, shown in Fis and /find, and not sent again', async () => {
  prod.setMode('reject');
  try {
    const before = prod.received.length;
    const tra = await register();
    assert.equal(tra.Fis.EInvoice.Status, 'rejected');
    assert.match(tra.Fis.EInvoice.Reason, /receiver unknown/);
    assert.ok((tra.Result.Warning as string[]).some((w) => /rejected the e-invoice: receiver unknown/.test(w)), JSON.stringify(tra.Result));
    const journaled = await answers(tra.SQ);
    assert.equal(journaled.length, 1);
    assert.equal(journaled[0]?.Event, 'EinvoiceRejected');
    assert.equal(journaled[0]?.HttpStatus, '422');
    assert.equal((await found(tra.ESR.FN)).Fis.EInvoice.Status, 'rejected');
    // several retry pauses later: still sent once
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(prod.received.length, before + 1);
    assert.equal((await get(`${svc.url}/state`)).json.EinvoiceQueued, 0);
  } finally {
    prod.setMode('ok');
  }
});

test('the provider away: RC OK with a warning, queued in /state, delivered later once it answers, the later answer journaled', async () => {
  prod.setMode('down');
  let tra: Json;
  try {
    tra = await register();
    assert.deepEqual(tra.Fis.EInvoice, { Status: 'pending' });
    assert.ok((tra.Result.Warning as string[]).some((w) => /did not answer the e-invoice.*queued/.test(w)), JSON.stringify(tra.Result));
    const state = await get(`${svc.url}/state`);
    assert.equal(state.json.EinvoiceQueued, 1);
    assert.equal(state.json.EinvoiceQueue.def.OldestFN, tra.ESR.FN);
    assert.equal((await found(tra.ESR.FN)).Fis.EInvoice.Status, 'pending');
    assert.equal((await answers(tra.SQ)).length, 0);
    // tried again while it is away
    const tries = prod.received.length;
    await until('a second attempt', async () => (prod.received.length > tries ? true : undefined), 10_000);
  } finally {
    prod.setMode('ok');
  }
  await until('the queued e-invoice delivered', async () => ((await get(`${svc.url}/state`)).json.EinvoiceQueued === 0 ? true : undefined), 10_000);
  const journaled = await answers(tra.SQ);
  assert.equal(journaled.length, 1);
  assert.equal(journaled[0]?.Later, '1');
  const id = journaled[0]?.Id;
  assert.match(id, /^PROD-/);
  assert.deepEqual((await found(tra.ESR.FN)).Fis.EInvoice, { Status: 'accepted', Id: id });
  // GET /last, the answer a POS asks for again, has the later delivery too
  const last = await get(`${svc.url}/last`);
  assert.equal(last.json.TraC.SQ, tra.SQ, last.text);
  assert.deepEqual(last.json.TraC.Fis.EInvoice, { Status: 'accepted', Id: id });
});

test('an answer slower than eDoc_Timeout: queued, and the later delivery gets the same id (Idempotency-Key)', async () => {
  prod.setMode('slow', 4000);
  let tra: Json;
  try {
    tra = await register();
    assert.equal(tra.Fis.EInvoice.Status, 'pending');
    assert.ok((tra.Result.Warning as string[]).some((w) => /no answer within 2500 ms/.test(w)), JSON.stringify(tra.Result));
  } finally {
    prod.setMode('ok');
  }
  await until('the slow e-invoice delivered later', async () => ((await answers(tra.SQ)).length > 0 ? true : undefined), 10_000);
  const sent = prod.received.filter((r) => r.headers['x-efr-invoice'] === tra.ESR.FN);
  assert.ok(sent.length >= 2);
  assert.equal(new Set(sent.map((r) => r.answered).filter((a) => a !== undefined)).size, 1, 'one id for both deliveries');
  assert.equal((await answers(tra.SQ))[0]?.Id, sent[0]?.answered);
});

test('queued when the service stops: found in the journal after the restart and delivered', async () => {
  prod.setMode('down');
  const tra = await register();
  assert.equal(tra.Fis.EInvoice.Status, 'pending');
  await svc.stop();
  prod.setMode('ok');
  svc = await startTestService({ dataDir, env });
  await until('the e-invoice queued before the restart delivered', async () => ((await answers(tra.SQ)).length > 0 ? true : undefined), 10_000);
  const journaled = await answers(tra.SQ);
  assert.equal(journaled.length, 1);
  assert.equal(journaled[0]?.Later, '1');
  assert.equal((await found(tra.ESR.FN)).Fis.EInvoice.Id, journaled[0]?.Id);
  assert.equal((await get(`${svc.url}/state`)).json.EinvoiceQueued, 0);
});

test('no endpoint for the destination: nothing is sent, the answer and the journal say so and name the attribute', async () => {
  await setProfile(`eDoc_Url_DE=${prod.url} eDoc_Token=prod-secret`);
  try {
    const before = prod.received.length + testSystem.received.length;
    const tra = await register();
    assert.equal(tra.Fis.EInvoice.Status, 'not sent');
    assert.ok((tra.Result.Warning as string[]).some((w) => /not delivered to NL: no endpoint .*eDoc_Url_NL or eDoc_Url/.test(w) && /GET \/export\?type=einvoice/.test(w)), JSON.stringify(tra.Result));
    const journaled = await answers(tra.SQ);
    assert.equal(journaled[0]?.Event, 'EinvoiceNotSent');
    // a test with only production endpoints is not sent to them
    await setProfile(`eDoc_Url=${prod.url} eDoc_Token=prod-secret`);
    const trial = await register({ Test: '1' });
    assert.equal(trial.Fis.EInvoice.Status, 'not sent');
    assert.ok((trial.Result.Warning as string[]).some((w) => /never sent to a production system.*eDoc_Url_NL-TEST or eDoc_TestUrl/.test(w)), JSON.stringify(trial.Result));
    assert.equal(prod.received.length + testSystem.received.length, before);
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(prod.received.length + testSystem.received.length, before, 'not queued either');
  } finally {
    await setProfile(delivering());
  }
});

test('the profile refuses an endpoint in clear text to another machine and a timeout that is no number', async () => {
  const clear = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: 'eDoc_Url=http://provider.example/invoices' });
  assert.equal(clear.status, 400, clear.text);
  assert.match(clear.text, /eDoc_Url/i);
  const timeout = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: `eDoc_Url=${prod.url} eDoc_Timeout=soon` });
  assert.equal(timeout.status, 400, timeout.text);
  assert.match(timeout.text, /eDoc_Timeout/);
});

test('an invoice whose e-invoice waits for the tax authority (Croatia) when the queue first looks at its register: sent once, by the online delivery', async () => {
  const oib = '12345678903';
  const cis = await startFakeCis();
  const shop = await startTestService({ dataDir: tempDir('efr-einvoice-hr-'), env: { EFR_FISCAL_RETRY_MS: '200' } });
  try {
    assert.equal((await post(`${shop.url}/profile`, { Badge: 'B1', Attributes: `Fiscal_Test Fiscal_Url=${cis.url} Fiscal_Timeout=4000 eDoc_TestUrl=${testSystem.url} eDoc_TestToken=test-secret` })).status, 200);
    const cert = makeDemoCertificate(oib);
    assert.equal((await post(`${shop.url}/cer/fiscal`, { fiscalCert: cert.p12.toString('base64'), password: cert.password })).status, 200);
    const cfg = { Cfg: { Cmp: { Nam: 'Demo Trgovina d.o.o.', Adr: 'Ilica 1', Zip: '10000', City: 'Zagreb', Ctry: 'HR', TaxId: `HR${oib}` }, Loc: { TL: 'POSL1', Nam: 'Trgovina Ilica' }, Trm: { TT: '1' } } };
    // the register is made now, after the start: the queue's first look at it falls into the CIS's 1.5 s
    cis.delayMs = 1500;
    assert.equal((await post(`${shop.url}/cfg?rn=R2`, cfg)).status, 200);
    const res = await post(`${shop.url}/register?rn=R2`, { Tra: { ESR: {
      TL: 'POSL1', TT: '1', OprTIN: oib, OprN: 'Ana', DD: 'PEPPOL', DDto: '9934:HR98765432106',
      Ctm: { Nam: 'Hotel Lipa d.o.o.', Adr: 'Vukovarska 5', Zip: '10000', City: 'Zagreb', Ctry: 'HR', TaxId: 'HR98765432106', BuyerReference: 'PO-5' },
      PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kava', TaxG: 'A', Amt: '12.50' }],
      PayA: [{ _: 'Pay', Dsc: 'Gotovina', PayG: 'cash', Amt: '12.50' }],
    } } });
    assert.equal(res.status, 200, res.text);
    const tra = res.json.TraC as Json;
    assert.equal(tra.Result.RC, 'OK', res.text);
    assert.equal(tra.Fis.EInvoice.Status, 'accepted', res.text);
    await new Promise((r) => setTimeout(r, 1500));
    const fn = String(tra.Fis.FN ?? tra.ESR.FN);
    assert.equal(testSystem.received.filter((r) => r.headers['x-efr-invoice'] === encodeURIComponent(fn) || r.headers['x-efr-invoice'] === fn).length, 1, 'sent once');
    const journaled = ((await get(`${shop.url}/find?rn=R2&_=log&rsq=${tra.SQ}`)).json.Find.Records as Json[]).filter((r) => /^Einvoice/.test(String(r.Event)));
    assert.equal(journaled.length, 1, JSON.stringify(journaled));
  } finally {
    await shop.stop();
    await cis.close();
  }
});

test('GET /export of an e-invoice whose file is gone is the document delivered, made with the Cfg in force at the invoice, not today\'s', async () => {
  const tra = await register();
  const delivered = prod.received.at(-1);
  assert.ok(delivered);
  assert.equal(delivered.headers['x-efr-invoice'], tra.ESR.FN);
  rmSync(join(dataDir, 'einvoice', 'def', `${tra.SQ}.xml`));
  const renamed = await post(`${svc.url}/cfg`, { Cfg: { ...CFG.Cfg, Cmp: { ...CFG.Cfg.Cmp, Nam: 'Bakkerij Jansen & Zonen B.V.' } } });
  assert.equal(renamed.status, 200, renamed.text);
  try {
    const exported = await get(`${svc.url}/export?type=einvoice&fn=${encodeURIComponent(tra.ESR.FN)}`);
    assert.equal(exported.status, 200, exported.text);
    assert.equal(exported.text, delivered.xml);
  } finally {
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
  }
});

test('the service killed between the journaling of the first invoice of a register made since the start and its delivery: sent after the restart', async () => {
  const oib = '12345678903';
  const cis = await startFakeCis();
  const dir = tempDir('efr-einvoice-kill-');
  const proc = await spawnService(dir, await freePort());
  let shop: TestService | undefined;
  try {
    assert.equal((await post(`${proc.url}/profile`, { Badge: 'B1', Attributes: `Fiscal_Test Fiscal_Url=${cis.url} Fiscal_Timeout=8000 eDoc_TestUrl=${testSystem.url} eDoc_TestToken=test-secret` })).status, 200);
    const cert = makeDemoCertificate(oib);
    assert.equal((await post(`${proc.url}/cer/fiscal`, { fiscalCert: cert.p12.toString('base64'), password: cert.password })).status, 200);
    const cfg = { Cfg: { Cmp: { Nam: 'Demo Trgovina d.o.o.', Adr: 'Ilica 1', Zip: '10000', City: 'Zagreb', Ctry: 'HR', TaxId: `HR${oib}` }, Loc: { TL: 'POSL1', Nam: 'Trgovina Ilica' }, Trm: { TT: '1' } } };
    assert.equal((await post(`${proc.url}/cfg?rn=R3`, cfg)).status, 200);
    // journaled, then waiting for the CIS (and so not yet handed to the e-invoice delivery) when the service is killed
    cis.delayMs = 6000;
    const sent = testSystem.received.length;
    const pending = post(`${proc.url}/register?rn=R3`, { Tra: { ESR: {
      TL: 'POSL1', TT: '1', OprTIN: oib, OprN: 'Ana', DD: 'PEPPOL', DDto: '9934:HR98765432106',
      Ctm: { Nam: 'Hotel Lipa d.o.o.', Adr: 'Vukovarska 5', Zip: '10000', City: 'Zagreb', Ctry: 'HR', TaxId: 'HR98765432106', BuyerReference: 'PO-6' },
      PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kava', TaxG: 'A', Amt: '12.50' }],
      PayA: [{ _: 'Pay', Dsc: 'Gotovina', PayG: 'cash', Amt: '12.50' }],
    } } }).catch(() => undefined);
    // arrived, not answered: the CIS holds it for delayMs, so the e-invoice cannot have been handed over yet
    await until('the invoice at the CIS', async () => (cis.arrived > 0 ? true : undefined), 10_000);
    proc.child.kill('SIGKILL');
    await proc.exited;
    await pending;
    assert.equal(testSystem.received.length, sent, 'not delivered before the kill');
    cis.delayMs = 0;
    shop = await startTestService({ dataDir: dir, env: { EFR_FISCAL_RETRY_MS: '300' } });
    const s = shop;
    const invoices = (await get(`${s.url}/find?rn=R3&_=Tra`)).json.Find.Records as Json[];
    const invoice = invoices.find((r) => r.ESR?.DD === 'PEPPOL');
    assert.ok(invoice, JSON.stringify(invoices));
    await until('the e-invoice delivered after the restart', async () => (testSystem.received.length > sent ? true : undefined), 10_000);
    assert.equal(testSystem.received.at(-1)?.headers['x-efr-receiver'], '9934:HR98765432106');
  } finally {
    if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await shop?.stop();
    await cis.close();
  }
});
