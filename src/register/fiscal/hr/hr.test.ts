/**
 * Croatia: the ZKI reproduced with openssl and md5sum, the OIB check digit, the QR code, the payment methods,
 * the CIS invoice of a receipt (VAT per rate, consumption tax, exempt amount), the signed request against the
 * official schema (xmllint) and its signature, the reading of CIS answers, and the module's validation and Fis.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeDemoCertificate, verifyRacunZahtjev, xmllintCis, type DemoCertificateFiles } from '../../../../test/fake-cis.js';
import { tempDir } from '../../../../test/helpers.js';
import { FiscalError } from '../../../shared/errors.js';
import type { Obj } from '../../codec/index.js';
import { classify } from '../../esr/business-case.js';
import type { AuthorityCertificate } from '../authority.js';
import { fiscalCertificate, storeFiscalCertificate } from '../certificate-store.js';
import { cisDateTime } from './cis-date.js';
import { CIS_PRODUCTION_URL, CIS_TEST_URL, endpointOf } from './endpoint.js';
import { HrModule } from './index.js';
import { racunOf } from './invoice.js';
import { isValidOib } from './oib.js';
import { nacinPlacOf } from './payment.js';
import { qrAmount, qrUrl } from './qr.js';
import { CisTransientError, cisRequest, parseCisAnswer } from './request-xml.js';
import { zkiInput, zkiOf } from './zki.js';

const OIB = '12345678903';
const OPER = '69435151530';

function receipt(extra: Obj = {}): Obj {
  return {
    D: '2026-01-21T14:30:05', TL: 'POS1', TT: '2', TN: '17', T: '22.58', OprTIN: OPER, OprN: 'Ana',
    PosA: [{ _: 'Pos', Dsc: 'Kava', Amt: '12.50', TaxG: 'A' }, { _: 'Pos', Dsc: 'Knjiga', Amt: '10.08', TaxG: 'D' }],
    PayA: [{ _: 'Pay', PayG: 'cash', Amt: '22.58' }],
    TaxA: [
      { _: 'Tax', TaxG: 'A', Prc: '25', Net: '10.00', TAmt: '2.50', Amt: '12.50' },
      { _: 'Tax', TaxG: 'D', Prc: '0', Net: '10.08', TAmt: '0.00', Amt: '10.08' },
      { _: 'Tax', TaxG: 'P', Prc: '3', TTY: 'CT', Base: '9.71', Amt: '0.29' },
    ],
    ...extra,
  };
}

const CFG: Obj = { Cmp: { Nam: 'Demo Trgovina', Ctry: 'HR', TaxId: `HR${OIB}` } };

let files: DemoCertificateFiles;
let dataDir: string;
let cert: AuthorityCertificate;

before(() => {
  files = makeDemoCertificate(OIB);
  dataDir = tempDir('hr-unit-');
  cert = storeFiscalCertificate(dataDir, 'def', files.p12, files.password);
});
after(() => {
  rmSync(files.dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('ZKI', () => {
  it('is the MD5 of the RSA-SHA1 signature, as openssl dgst -sha1 -sign | md5sum computes it', () => {
    const fields = { oib: OIB, issued: '2026-01-21T14:30:05', number: '17', premise: 'POS1', device: '2', total: '22.58' };
    assert.equal(zkiInput(fields), `${OIB}21.01.2026 14:30:0517POS1222.58`);
    const input = join(files.dir, 'zki-input.txt');
    writeFileSync(input, `${OIB}21.01.2026 14:30:0517POS1222.58`);
    const r = spawnSync('sh', ['-c', `openssl dgst -sha1 -sign "${files.keyFile}" "${input}" | md5sum`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const expected = r.stdout.split(/\s/)[0];
    assert.match(expected ?? '', /^[0-9a-f]{32}$/);
    assert.equal(zkiOf(files.keyPem, fields), expected);
    // the same with the stored (sealed, read back) key and a Date as issue time
    assert.equal(zkiOf(cert.keyPem, { ...fields, issued: new Date(2026, 0, 21, 14, 30, 5) }), expected);
    // any other field changes it
    assert.notEqual(zkiOf(files.keyPem, { ...fields, total: '22.59' }), expected);
  });
});

describe('OIB, QR code, payment method, endpoint', () => {
  it('checks the ISO 7064 MOD 11,10 check digit', () => {
    assert.equal(isValidOib('12345678903'), true);
    assert.equal(isValidOib('12345678904'), false);
    assert.equal(isValidOib('1234567890'), false);
    assert.equal(isValidOib('1234567890a'), false);
  });
  it('writes the QR code with the ZKI or the JIR, the time to the minute and the amount in cents', () => {
    assert.equal(qrUrl({ zki: 'abc' }, '2026-01-21T14:30:05', '22.58'), 'https://porezna.gov.hr/rn?zki=abc&datv=20260121_1430&izn=2258');
    assert.equal(qrUrl({ jir: 'j-1' }, '2026-01-21T09:05:59', '0.05'), 'https://porezna.gov.hr/rn?jir=j-1&datv=20260121_0905&izn=5');
    assert.equal(qrAmount('-3.00'), '-300');
    assert.equal(qrAmount('1234.5'), '123450');
  });
  it('maps the payments to G, K, C, T, O (mixed: O; change belongs to cash)', () => {
    const pay = (...g: string[]): Obj => ({ PayA: g.map((PayG) => ({ _: 'Pay', PayG, Amt: '1.00' })) });
    assert.equal(nacinPlacOf(pay('cash', 'change')), 'G');
    assert.equal(nacinPlacOf(pay('debitcard')), 'K');
    assert.equal(nacinPlacOf(pay('creditcard', 'mobile')), 'K');
    assert.equal(nacinPlacOf(pay('check')), 'C');
    assert.equal(nacinPlacOf(pay('T')), 'T');
    assert.equal(nacinPlacOf(pay('cash', 'creditcard')), 'O');
    assert.equal(nacinPlacOf(pay('voucher-xyz')), 'O');
  });
  it('chooses the endpoint by Fiscal_Test and Fiscal_Url', () => {
    assert.equal(endpointOf(new Map()), CIS_PRODUCTION_URL);
    assert.equal(endpointOf(new Map([['fiscal_test', '1']])), CIS_TEST_URL);
    assert.equal(endpointOf(new Map([['fiscal_test', '1'], ['fiscal_url', 'http://127.0.0.1:1/x']])), 'http://127.0.0.1:1/x');
  });
});

describe('CIS invoice and request', () => {
  it('maps VAT per rate, the consumption tax, the exempt amount, the operator and the subsequent delivery', () => {
    const r = racunOf({ esr: receipt({ HR_SpecNamj: 'x&y' }), fis: { ZKI: 'a'.repeat(32) }, cfg: CFG, attributes: new Map(), later: true });
    assert.equal(r.oib, OIB);
    assert.equal(r.uSustPdv, true);
    assert.equal(r.datVrijeme, '21.01.2026T14:30:05');
    assert.deepEqual([r.brOznRac, r.oznPosPr, r.oznNapUr, r.oznSlijed], ['17', 'POS1', '2', 'N']);
    assert.deepEqual(r.pdv, [{ stopa: '25.00', osnovica: '10.00', iznos: '2.50' }]);
    assert.deepEqual(r.pnp, [{ stopa: '3.00', osnovica: '9.71', iznos: '0.29' }]);
    assert.equal(r.iznosOslobPdv, '10.08');
    assert.equal(r.iznosUkupno, '22.58');
    assert.equal(r.nacinPlac, 'G');
    assert.equal(r.oibOper, OPER);
    assert.equal(r.nakDost, true);
    assert.equal(r.specNamj, 'x&y');
    const outside = racunOf({ esr: receipt(), fis: { ZKI: 'a'.repeat(32) }, cfg: CFG, attributes: new Map([['hr_usustpdv', '0']]), later: false });
    assert.equal(outside.uSustPdv, false);
    assert.deepEqual(outside.pdv, []);
    assert.equal(outside.iznosOslobPdv, undefined);
  });

  it('signs a request that is valid against the official schema (xmllint) and verifies with the certificate', () => {
    const racun = racunOf({ esr: receipt({ HR_SpecNamj: '<special> & "text"' }), fis: { ZKI: zkiOf(cert.keyPem, { oib: OIB, issued: '2026-01-21T14:30:05', number: '17', premise: 'POS1', device: '2', total: '22.58' }) }, cfg: CFG, attributes: new Map(), later: false });
    const { xml, messageId } = cisRequest({ racun, certificate: cert, sentAt: cisDateTime('2026-01-21T14:30:06') });
    assert.match(messageId, /^[0-9a-f-]{36}$/);
    const zahtjev = /<tns:RacunZahtjev[\s\S]*<\/tns:RacunZahtjev>/.exec(xml)?.[0] ?? '';
    const file = join(files.dir, 'request.xml');
    writeFileSync(file, zahtjev);
    const lint = xmllintCis(file);
    assert.equal(lint.ok, true, lint.output);
    const sig = verifyRacunZahtjev(zahtjev);
    assert.equal(sig.valid, true, sig.detail);
    // KeyInfo carries the register's own certificate, and its issuer and serial number
    assert.equal(sig.certificate?.fingerprint256, new X509Certificate(cert.certPem).fingerprint256);
    assert.match(zahtjev, new RegExp(`<X509SerialNumber>${cert.serialDecimal}</X509SerialNumber>`));
    assert.match(zahtjev, /<X509IssuerSerial><X509IssuerName>[^<]*CN=FISKAL 1 Demo/);
    // tampering after signing is detected
    const tampered = zahtjev.replace('<tns:IznosUkupno>22.58<', '<tns:IznosUkupno>2.58<');
    assert.notEqual(tampered, zahtjev);
    assert.equal(verifyRacunZahtjev(tampered).valid, false);
  });

  it('reads the JIR, refusals and transient errors of CIS answers', () => {
    const wrap = (body: string): string => `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><tns:RacunOdgovor xmlns:tns="http://www.apis-it.hr/fin/2012/types/f73"><tns:Zaglavlje><tns:IdPoruke>x</tns:IdPoruke><tns:DatumVrijeme>21.01.2026T14:30:06</tns:DatumVrijeme></tns:Zaglavlje>${body}</tns:RacunOdgovor></soap:Body></soap:Envelope>`;
    assert.deepEqual(parseCisAnswer(wrap('<tns:Jir>8ce8d1f4-7d2a-4b8a-9f3e-1c2b3a4d5e6f</tns:Jir>')), { ok: true, id: '8ce8d1f4-7d2a-4b8a-9f3e-1c2b3a4d5e6f' });
    const refused = parseCisAnswer(wrap('<tns:Greske><tns:Greska><tns:SifraGreske>s005</tns:SifraGreske><tns:PorukaGreske>OIB iz poruke zahtjeva nije jednak OIB-u iz certifikata.</tns:PorukaGreske></tns:Greska></tns:Greske>'));
    assert.equal(refused.ok, false);
    assert.equal(refused.ok === false && refused.code, 's005');
    assert.throws(() => parseCisAnswer(wrap('<tns:Greske><tns:Greska><tns:SifraGreske>s006</tns:SifraGreske><tns:PorukaGreske>Sistemska pogreška</tns:PorukaGreske></tns:Greska></tns:Greske>')), CisTransientError);
    assert.throws(() => parseCisAnswer('<html>bad gateway</html>'), CisTransientError);
    assert.throws(() => parseCisAnswer('not xml at all <'), CisTransientError);
  });
});

describe('HrModule', () => {
  const hr = new HrModule();
  const fail = (esr: Obj, field: string): void => {
    assert.throws(() => hr.validate(esr, classify(esr)), (e: unknown) => e instanceof FiscalError && e.params.field === field);
  };
  it('validates premise, device, number, operator OIB and taxes of reported receipts only', () => {
    hr.validate(receipt(), classify(receipt()));
    fail(receipt({ TL: undefined as never }), 'ESR.TL');
    fail(receipt({ TL: 'POS-1' }), 'ESR.TL');
    fail(receipt({ TT: 'A1' }), 'ESR.TT');
    fail(receipt({ TN: '017' }), 'ESR.TN');
    fail(receipt({ OprTIN: undefined as never }), 'ESR.OprTIN');
    fail(receipt({ OprTIN: '12345678904' }), 'ESR.OprTIN');
    fail(receipt({ TaxA: [{ _: 'Tax', TaxG: 'S', Prc: '1', TTY: 'SVAT', Base: '1.00', Amt: '0.01' }] }), 'ESR.TaxA[0].TTY');
    // training and non-fiscal records are not reported: no operator needed
    const training = receipt({ Test: '1', OprTIN: undefined as never });
    hr.validate(training, classify(training));
  });

  it('fiscalizes with FN TN/TL/TT, the ZKI, the QR code and printed tags; withId adds the JIR', () => {
    const esr = receipt();
    const state = { rn: 'def', cfg: CFG, fn: 0, tid: 0, country: {} } as never;
    const input = { rn: 'def', sq: 1, prevHash: '', now: new Date(2026, 0, 21, 14, 30, 6), type: 'Tra', esr, bc: classify(esr), state, signer: {} as never, dataDir, attributes: new Map([['fiscal_test', 'true']]), tnGenerated: false } as const;
    const fis = hr.fiscalize(input);
    const zki = zkiOf(files.keyPem, { oib: OIB, issued: '2026-01-21T14:30:05', number: '17', premise: 'POS1', device: '2', total: '22.58' });
    assert.equal(fis.FN, '17/POS1/2');
    assert.equal(fis.ZKI, zki);
    assert.equal(fis.Code, `https://porezna.gov.hr/rn?zki=${zki}&datv=20260121_1430&izn=2258`);
    assert.deepEqual((fis.Tag as Obj[]).map((t) => t.Name), ['ZKI', 'Operater', 'NacinPlac']);
    const data = { _: 'Tra', ESR: esr, Fis: fis };
    assert.equal(hr.authority.reports(data), true);
    const withJir = hr.authority.withId(fis, 'a1b2c3d4-0000-4000-8000-000000000001', data);
    assert.equal(withJir.JIR, 'a1b2c3d4-0000-4000-8000-000000000001');
    assert.equal(withJir.Code, 'https://porezna.gov.hr/rn?jir=a1b2c3d4-0000-4000-8000-000000000001&datv=20260121_1430&izn=2258');
    assert.deepEqual((withJir.Tag as Obj[]).map((t) => t.Name), ['ZKI', 'Operater', 'NacinPlac', 'JIR']);
    // a training receipt: generic number and test tag, no ZKI, not reported
    const training = receipt({ Test: '1' });
    const tfis = hr.fiscalize({ ...input, esr: training, bc: classify(training) });
    assert.equal(tfis.ZKI, undefined);
    assert.equal(hr.authority.reports({ _: 'Tra', ESR: training, Fis: tfis }), false);
    assert.ok(fiscalCertificate(dataDir, 'def'));
  });

  it('refuses a receipt before it is journaled when the OIB is wrong or no certificate is installed', async () => {
    const esr = receipt();
    const state = (cfg: Obj, rn = 'def'): never => ({ rn, cfg, fn: 0, country: {} }) as never;
    await assert.rejects(async () => hr.prepare({ dataDir, state: state({ Cmp: { TaxId: 'HR12345678904' } }), attributes: new Map(), esr }), (e: unknown) => e instanceof FiscalError && e.params.field === 'Cfg.Cmp.TaxId');
    const empty = tempDir('hr-empty-');
    try {
      await assert.rejects(async () => hr.prepare({ dataDir: empty, state: state(CFG), attributes: new Map(), esr }), (e: unknown) => e instanceof FiscalError && e.code === '#FISCAL_CERTIFICATE');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    await hr.prepare({ dataDir, state: state(CFG), attributes: new Map([['fiscal_test', 'true']]), esr });
  });
});
