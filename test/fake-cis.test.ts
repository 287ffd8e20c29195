/**
 * The fake CIS and the Croatian delivery against it over HTTP: a receipt delivered by the module is valid
 * against the official schema (also checked here with xmllint directly), its signature verifies and it gets a
 * JIR; a request changed after signing is answered s004, one against the schema s001, a foreign OIB s005; a
 * system error (s006) and a CIS that is down throw, so the pipeline delivers the receipt later.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Obj } from '../src/register/codec/index.js';
import type { AuthorityCertificate, DeliveryInput } from '../src/register/fiscal/authority.js';
import { storeFiscalCertificate } from '../src/register/fiscal/certificate-store.js';
import { cisDateTime } from '../src/register/fiscal/hr/cis-date.js';
import { HrModule } from '../src/register/fiscal/hr/index.js';
import { racunOf } from '../src/register/fiscal/hr/invoice.js';
import { cisRequest, parseCisAnswer } from '../src/register/fiscal/hr/request-xml.js';
import { zkiOf } from '../src/register/fiscal/hr/zki.js';
import { type DemoCertificateFiles, type FakeCis, makeDemoCertificate, startFakeCis, xmllintCis } from './fake-cis.js';
import { tempDir } from './helpers.js';

const OIB = '12345678903';
const ESR: Obj = {
  D: '2026-01-21T14:30:05', TL: 'POS1', TT: '2', TN: '18', T: '-4.00', OprTIN: '69435151530',
  PosA: [{ _: 'Pos', Dsc: 'Povrat', Amt: '-4.00', TaxG: 'B' }],
  PayA: [{ _: 'Pay', PayG: 'debitcard', Amt: '-4.00' }],
  TaxA: [{ _: 'Tax', TaxG: 'B', Prc: '13', Net: '-3.54', TAmt: '-0.46', Amt: '-4.00' }],
};

let files: DemoCertificateFiles;
let dataDir: string;
let cert: AuthorityCertificate;
let cis: FakeCis;
const hr = new HrModule();

function record(oib = OIB): Obj {
  const zki = zkiOf(cert.keyPem, { oib, issued: '2026-01-21T14:30:05', number: '18', premise: 'POS1', device: '2', total: '-4.00' });
  return { _: 'Tra', SQ: '5', RN: 'def', TS: '2026-01-21T14:30:06', ESR, Fis: { D: '2026-01-21T14:30:06', FN: '18/POS1/2', ZKI: zki } };
}

function input(extra: Partial<DeliveryInput> = {}): DeliveryInput {
  return {
    rn: 'def', data: record(), cfg: { Cmp: { TaxId: `HR${OIB}` } }, attributes: new Map([['fiscal_test', '1'], ['fiscal_url', cis.url]]),
    certificate: cert, later: false, signal: AbortSignal.timeout(5000), now: new Date(2026, 0, 21, 14, 30, 6), ...extra,
  };
}

async function post(xml: string): Promise<string> {
  const res = await fetch(cis.url, { method: 'POST', body: xml, headers: { 'content-type': 'text/xml' } });
  return res.text();
}

before(async () => {
  files = makeDemoCertificate(OIB);
  dataDir = tempDir('hr-cis-');
  cert = storeFiscalCertificate(dataDir, 'def', files.p12, files.password);
  cis = await startFakeCis();
});
after(async () => {
  await cis.close();
  rmSync(files.dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('fake CIS', () => {
  it('accepts a delivered receipt with a JIR; the request is valid against the XSD (xmllint) and carries NakDost', async () => {
    cis.setMode('ok');
    const result = await hr.authority.deliver(input());
    assert.equal(result.ok, true, JSON.stringify(result));
    const got = cis.received.at(-1);
    assert.ok(got);
    assert.equal(result.ok && result.id, got.jir);
    assert.match(got.jir ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(got.oib, OIB);
    assert.equal(got.total, '-4.00');
    assert.equal(got.later, false);
    assert.match(got.xml, /<tns:NacinPlac>K<\/tns:NacinPlac>/);
    const file = join(files.dir, 'received.xml');
    writeFileSync(file, got.xml);
    const lint = xmllintCis(file);
    assert.equal(lint.ok, true, lint.output);

    const later = await hr.authority.deliver(input({ later: true }));
    assert.equal(later.ok, true);
    assert.equal(cis.received.at(-1)?.later, true);
    assert.match(cis.received.at(-1)?.xml ?? '', /<tns:NakDost>true<\/tns:NakDost>/);
  });

  it('answers s004 to a request changed after signing and s001 to one against the schema', async () => {
    cis.setMode('ok');
    const racun = racunOf({ esr: ESR, fis: record().Fis as Obj, cfg: { Cmp: { TaxId: OIB } }, attributes: new Map(), later: false });
    const { xml } = cisRequest({ racun, certificate: cert, sentAt: cisDateTime('2026-01-21T14:30:06') });
    const good = parseCisAnswer(await post(xml));
    assert.equal(good.ok, true);
    const tampered = xml.replace('<tns:IznosUkupno>-4.00</tns:IznosUkupno>', '<tns:IznosUkupno>-1.00</tns:IznosUkupno>');
    assert.notEqual(tampered, xml);
    const s004 = parseCisAnswer(await post(tampered));
    assert.equal(s004.ok === false && s004.code, 's004');
    const invalid = xml.replace('<tns:NacinPlac>K</tns:NacinPlac>', '<tns:NacinPlac>X</tns:NacinPlac>');
    const s001 = parseCisAnswer(await post(invalid));
    assert.equal(s001.ok === false && s001.code, 's001');
    assert.match(s001.ok === false ? s001.message : '', /NacinPlac/);
  });

  it('refuses (s005) a receipt of another OIB than the certificate', async () => {
    cis.setMode('ok');
    const result = await hr.authority.deliver(input({ data: record('94577403194'), cfg: { Cmp: { TaxId: '94577403194' } } }));
    assert.deepEqual(result.ok === false && result.code, 's005');
  });

  it('throws for a system error (s006) and when the CIS is down, so the receipt is delivered later', async () => {
    cis.setMode('error', { code: 's006', message: 'Sistemska pogreška prilikom obrade zahtjeva.' });
    await assert.rejects(hr.authority.deliver(input()), /s006/);
    cis.setMode('error', { code: 's005', message: 'OIB iz poruke zahtjeva nije jednak OIB-u iz certifikata.' });
    const refused = await hr.authority.deliver(input());
    assert.equal(refused.ok === false && refused.code, 's005');
    cis.setMode('down');
    await assert.rejects(hr.authority.deliver(input()));
    cis.setMode('ok');
  });
});
