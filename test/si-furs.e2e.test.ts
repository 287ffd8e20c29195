/**
 * Slovenia through POST /register against the fake FURS (test/fake-furs.ts: verifies every JWS with the
 * certificate and checks the payload against FURS's JSON schema): the business premise registered once the
 * certificate and the Cfg are there, the ZOI reproduced with `openssl dgst -sha256 -sign` and `md5sum`, the
 * 60-digit QR code, the EOR online; FURS unreachable: RC OK with the ZOI only, queued, delivered later with
 * SubsequentSubmit, the EOR then in /find, /render and /last.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { get, post, startTestService, tempDir, until } from './helpers.js';
import { makeFursTestCertificate, startFakeFurs } from './fake-furs.js';

const TAX = '12345678';
const CFG = {
  Cfg: {
    Cmp: { Nam: 'Testno podjetje d.o.o.', Adr: 'Tržaška cesta', AdrNr: '24A', Zip: '1000', City: 'Ljubljana', Ctry: 'SI', TaxId: `SI${TAX}` },
    Loc: { TL: 'BP101', Nam: 'Trgovina', Adr: 'Tržaška cesta', AdrNr: '24A', Zip: '1000', City: 'Ljubljana', SI_CadastralNumber: '365', SI_BuildingNumber: '12', SI_BuildingSectionNumber: '3' },
    Trm: { TT: 'B1' },
  },
};

function sale(): { Tra: { ESR: Record<string, unknown> } } {
  return {
    Tra: {
      ESR: {
        TL: 'BP101',
        TT: 'B1',
        OprTIN: 'SI87654321',
        PosA: [
          { _: 'Pos', PN: '1', Dsc: 'Kava', TaxG: 'A', Amt: '3.50' },
          { _: 'Pos', PN: '2', Dsc: 'Kruh', TaxG: 'B', Amt: '1.20' },
        ],
        PayA: [{ _: 'Pay', Dsc: 'Gotovina', PayG: 'cash', Amt: '4.70' }],
      },
    },
  };
}

/** The ZOI recomputed outside the service: openssl signs with SHA-256, md5sum digests the signature. */
function opensslZoi(keyFile: string, d: string, number: string, amount: string): string {
  const [date, time] = d.split('T') as [string, string];
  const [y, m, day] = date.split('-');
  const input = `${TAX}${day}.${m}.${y} ${time.slice(0, 8)}${number}BP101B1${amount}`;
  const file = join(tempDir('si-zoi-'), 'in.txt');
  writeFileSync(file, input);
  const r = spawnSync('sh', ['-c', `openssl dgst -sha256 -sign "${keyFile}" "${file}" | md5sum`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split(' ')[0] ?? '';
}

test('Slovenia: premise registered, ZOI and EOR online, FURS away and the EOR delivered later with SubsequentSubmit', async () => {
  const cert = makeFursTestCertificate('TESTNO PODJETJE 1', TAX);
  const furs = await startFakeFurs({ certPems: [cert.certPem] });
  const svc = await startTestService({ dataDir: tempDir('efr-si-'), env: { EFR_FISCAL_RETRY_MS: '300' } });
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: `Fiscal_Test Fiscal_Url=${furs.url} Fiscal_Timeout=1500` })).status, 200);
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const up = await post(`${svc.url}/cer/fiscal`, { fiscalCert: cert.p12.toString('base64'), password: 'test' });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.json.CertificateC.Test, 'true', up.text);

    // the premise goes to FURS once certificate and Cfg are there, and is journaled
    const premise = await until('the premise registered', async () => furs.received.find((r) => r.path.endsWith('/invoices/register')), 10_000);
    assert.equal((premise.payload.BusinessPremiseRequest as { BusinessPremise: { BusinessPremiseID: string } }).BusinessPremise.BusinessPremiseID, 'BP101');
    await until('the premise registration journaled', async () => ((await get(`${svc.url}/find?_=log`)).json.Find.Records as Array<{ Event?: string; Result?: string }>).find((r) => r.Event === 'FiscalPremise' && r.Result === 'registered'), 10_000);

    const a = await post(`${svc.url}/register`, sale());
    assert.equal(a.status, 200, a.text);
    const fisA = a.json.TraC.Fis;
    assert.equal(a.json.TraC.Result.ErrorCode, undefined, a.text);
    assert.equal(fisA.FN, `BP101-B1-${a.json.TraC.ESR.TN}`);
    assert.equal(fisA.ZOI, opensslZoi(cert.keyFile, a.json.TraC.ESR.D, a.json.TraC.ESR.TN, '4.70'));
    assert.match(fisA.EOR, /^[0-9a-f]{8}-[0-9a-f]{4}-/);
    // the 60 digits: the ZOI in decimal (39), the tax number, yyMMddHHmmss, the control digit
    assert.match(fisA.Code, /^\d{60}$/);
    assert.equal(fisA.Code.slice(0, 39), BigInt(`0x${fisA.ZOI}`).toString(10).padStart(39, '0'));
    assert.equal(fisA.Code.slice(39, 47), TAX);
    const d: string = a.json.TraC.ESR.D;
    assert.equal(fisA.Code.slice(47, 59), `${d.slice(2, 4)}${d.slice(5, 7)}${d.slice(8, 10)}${d.slice(11, 13)}${d.slice(14, 16)}${d.slice(17, 19)}`);
    const sum = [...fisA.Code.slice(0, 59)].reduce((s: number, c: string) => s + Number(c), 0);
    assert.equal(Number(fisA.Code[59]), sum % 10);
    const invoice = furs.received.find((r) => r.answer.eor === fisA.EOR);
    assert.ok(invoice, 'FURS received the invoice');
    assert.equal(invoice.later, false);

    furs.setMode('down');
    const b = await post(`${svc.url}/register`, sale());
    assert.equal(b.status, 200, b.text);
    assert.equal(b.json.TraC.Result.ErrorCode, '#AUTHORITY_PENDING');
    assert.match(b.json.TraC.Result.UserMessage, /FURS/);
    assert.equal(b.json.TraC.Fis.EOR, undefined);
    assert.equal((await get(`${svc.url}/state`)).json.FiscalQueued, 1);

    furs.setMode('ok');
    await until('the EOR of the queued receipt', async () => ((await get(`${svc.url}/state`)).json.FiscalQueued === 0 ? true : undefined), 15_000);
    const later = furs.received.find((r) => (r.payload.InvoiceRequest as { Invoice?: { ProtectedID?: string } } | undefined)?.Invoice?.ProtectedID === b.json.TraC.Fis.ZOI && r.answer.eor);
    assert.ok(later, 'the queued receipt reached FURS');
    assert.equal(later.later, true);
    const found = (await get(`${svc.url}/find?fn=${encodeURIComponent(b.json.TraC.Fis.FN)}`)).json.Find.Records as Array<{ _: string; Fis?: { EOR?: string } }>;
    assert.equal(found.find((r) => r._ === 'Tra')?.Fis?.EOR, later.answer.eor);
    const html = await get(`${svc.url}/render?fn=${encodeURIComponent(b.json.TraC.Fis.FN)}`);
    assert.ok(html.text.includes(later.answer.eor ?? 'none'), 'the rendered receipt shows the EOR');
    assert.equal((await get(`${svc.url}/last`)).json.TraC.Fis.EOR, later.answer.eor);

    // FURS's own failure (S100) is no refusal: the receipt waits for a later delivery
    furs.setMode('error');
    const c = await post(`${svc.url}/register`, sale());
    assert.equal(c.json.TraC.Result.ErrorCode, '#AUTHORITY_PENDING', c.text);
    // a refusal: answered, journaled, sent again once the set-up changed
    furs.setMode('error', { code: 'S005', message: 'Davčna številka ni veljavna' });
    const refused = await post(`${svc.url}/register`, sale());
    assert.equal(refused.json.TraC.Result.ErrorCode, '#AUTHORITY_REFUSED', refused.text);
    assert.match(refused.json.TraC.Result.UserMessage, /S005/);
    furs.setMode('ok');
    await until('the S100 receipt delivered later', async () => furs.received.find((r) => (r.payload.InvoiceRequest as { Invoice?: { ProtectedID?: string } } | undefined)?.Invoice?.ProtectedID === c.json.TraC.Fis.ZOI && r.answer.eor), 15_000);
    assert.equal((await post(`${svc.url}/cfg`, { Cfg: { ...CFG.Cfg, Trm: { TT: 'B1', SW: 'POS 2' } } })).status, 200);
    await until('the refused receipt sent again', async () => furs.received.find((r) => (r.payload.InvoiceRequest as { Invoice?: { ProtectedID?: string } } | undefined)?.Invoice?.ProtectedID === refused.json.TraC.Fis.ZOI && r.answer.eor), 15_000);
    // every receipt has exactly one EOR
    for (const zoi of [fisA.ZOI, b.json.TraC.Fis.ZOI, c.json.TraC.Fis.ZOI, refused.json.TraC.Fis.ZOI]) {
      assert.equal(furs.received.filter((r) => (r.payload.InvoiceRequest as { Invoice?: { ProtectedID?: string } } | undefined)?.Invoice?.ProtectedID === zoi && r.answer.eor).length, 1, `one EOR for ZOI ${zoi}`);
    }
  } finally {
    await svc.close();
    await furs.close();
  }
});
