/**
 * The Slovenian module: validation of TL/TT/TN/OprTIN, the Fis of a receipt (FN, ZOI reproduced, the 60
 * digits), training receipts without ZOI, and the InvoiceRequest mapping (exact decimals, VAT per rate,
 * 0 % as exempt or non-taxable, other taxes, the reference of a void) valid against FURS's schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { fursSchemaValidator, makeFursTestCertificate } from '../../../../test/fake-furs.js';
import { tempDir } from '../../../../test/helpers.js';
import { FiscalError } from '../../../shared/errors.js';
import type { Obj } from '../../codec/index.js';
import { classify } from '../../esr/business-case.js';
import type { FiscalInput } from '../module.js';
import { storeFiscalCertificate } from '../certificate-store.js';
import { SiModule } from './index.js';
import { invoiceRequest, jsonText } from './invoice.js';
import { zoiQrCode } from './qr.js';
import { zoiOf } from './zoi.js';

const ESR: Obj = { D: '2026-03-01T10:13:32', TL: 'BP101', TT: 'B1', TN: '11', T: '19.15', OprTIN: 'SI87654321', TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '22', Net: '12.30', TAmt: '2.71', Amt: '15.01' }, { _: 'Tax', TaxG: 'B', Prc: '9.5', Net: '3.78', TAmt: '0.36', Amt: '4.14' }] };

function field(f: () => void): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof FiscalError) return String((e as unknown as { params: { field?: string } }).params.field);
    throw e;
  }
  return undefined;
}

test('validate: TL required and 1-20 alphanumerics, TT likewise, TN digits without leading zeros, OprTIN required', () => {
  const m = new SiModule();
  const sale = classify(ESR);
  assert.equal(field(() => m.validate(ESR, sale)), undefined);
  assert.equal(field(() => m.validate({ ...ESR, TL: undefined } as unknown as Obj, sale)), 'ESR.TL');
  assert.equal(field(() => m.validate({ ...ESR, TL: 'BP-1' }, sale)), 'ESR.TL');
  assert.equal(field(() => m.validate({ ...ESR, TT: 'B 1' }, sale)), 'ESR.TT');
  assert.equal(field(() => m.validate({ ...ESR, TN: '011' }, sale)), 'ESR.TN');
  const { OprTIN: _, ...noOpr } = ESR;
  assert.equal(field(() => m.validate(noOpr, sale)), 'ESR.OprTIN');
  // training and non-fiscal records are not reported: no FURS rules
  assert.equal(field(() => m.validate({ ...noOpr, Test: '1' }, classify({ ...noOpr, Test: '1' }))), undefined);
});

test('fiscalize: FN TL-TT-TN, the ZOI of the fields, the 60 digits, a ZOI tag; a test receipt has none', () => {
  const made = makeFursTestCertificate();
  const dataDir = tempDir();
  try {
    storeFiscalCertificate(dataDir, 'def', made.p12, 'test');
    const m = new SiModule();
    const input = (esr: Obj): FiscalInput => ({ rn: 'def', sq: 1, prevHash: '', now: new Date(2026, 2, 1, 10, 13, 33), type: 'Tra', esr, bc: classify(esr), state: { cfg: { Cmp: { TaxId: 'SI12345678' } }, fn: 0, tid: 0, country: {} } as unknown as FiscalInput['state'], signer: {} as FiscalInput['signer'], dataDir, attributes: new Map([['fiscal_test', 'true']]), tnGenerated: false });
    const fis = m.fiscalize(input(ESR));
    const zoi = zoiOf(made.keyPem, { taxNumber: '12345678', issued: '2026-03-01T10:13:32', number: '11', premise: 'BP101', device: 'B1', amount: '19.15' });
    assert.equal(fis.FN, 'BP101-B1-11');
    assert.equal(fis.ZOI, zoi);
    assert.equal(fis.Code, zoiQrCode(zoi, '12345678', '2026-03-01T10:13:32'));
    assert.deepEqual(fis.Tag, [{ Name: 'ZOI', Label: 'ZOI:', Value: zoi }]);
    const training = m.fiscalize(input({ ...ESR, Test: '1' }));
    assert.equal(training.ZOI, undefined);
    assert.equal(m.authority.reports({ _: 'Tra', BCF: 'test', Fis: training }), false);
    assert.equal(m.authority.reports({ _: 'Tra', BC: 'sale', Fis: fis }), true);
  } finally {
    rmSync(made.dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the InvoiceRequest: exact two-decimal numbers, VAT per rate, 0 % exempt or non-taxable, other taxes, reference; schema-valid', () => {
  const zoi = '0123456789abcdef0123456789abcdef';
  const esr: Obj = {
    ...ESR, T: '-25.20', TN: '12', OprTIN: 'DE123456789', RTL: 'BP101', RTT: 'B1', RTN: '11', RD: '2026-03-01T10:13:32',
    TaxA: [
      { _: 'Tax', TaxG: 'A', Prc: '22', Amt: '-12.20' },
      { _: 'Tax', TaxG: 'A2', Prc: '22.0', Net: '-8.20', TAmt: '-1.80', Amt: '-10.00' },
      { _: 'Tax', TaxG: 'D', Prc: '0', Amt: '-3.00' },
      { _: 'Tax', TaxG: 'X', TTY: 'CT', Prc: '3', Base: '-0.00', Amt: '-0.00' },
    ],
  };
  const data: Obj = { ESR: esr, Fis: { D: '2026-03-02T08:00:00', ZOI: zoi } };
  const now = new Date(2026, 2, 2, 8, 0, 1);
  const req = invoiceRequest({ data, cfg: { Cmp: { TaxId: 'SI12345678' } }, later: true, now, messageId: '11111111-2222-3333-4444-555555555555' });
  const text = jsonText(req);
  assert.match(text, /"InvoiceAmount":-25\.20,"PaymentAmount":-25\.20,/);
  // 22 % merged: -10.00 net + -8.20, tax -2.20 + -1.80
  assert.match(text, /"VAT":\[\{"TaxRate":22\.00,"TaxableAmount":-18\.20,"TaxAmount":-4\.00\}\],"ExemptVATTaxableAmount":-3\.00,"OtherTaxesAmount":0\.00\}/);
  assert.match(text, /"ForeignOperator":true,"ProtectedID":"0123456789abcdef0123456789abcdef","SubsequentSubmit":true,"ReferenceInvoice":\[\{"ReferenceInvoiceIdentifier":\{"BusinessPremiseID":"BP101","ElectronicDeviceID":"B1","InvoiceNumber":"11"\},"ReferenceInvoiceIssueDateTime":"2026-03-01T10:13:32"\}\]/);
  assert.match(text, /"TaxNumber":12345678,"IssueDateTime":"2026-03-01T10:13:32","NumberingStructure":"B"/);
  const validate = fursSchemaValidator();
  assert.equal(validate(JSON.parse(text)), true, JSON.stringify(validate.errors));
  // not identified for VAT (no SI prefix): 0 % is non-taxable
  const plain = jsonText(invoiceRequest({ data: { ESR: { ...ESR, T: '3.00', TaxA: [{ _: 'Tax', TaxG: 'D', Prc: '0', Amt: '3.00' }] }, Fis: { ZOI: zoi } }, cfg: { Cmp: { TaxId: '12345678' } }, later: false, now }));
  assert.match(plain, /"TaxesPerSeller":\[\{"NontaxableAmount":3\.00\}\],"OperatorTaxNumber":87654321/);
  assert.equal(validate(JSON.parse(plain)), true, JSON.stringify(validate.errors));
  assert.throws(() => invoiceRequest({ data, cfg: { Cmp: { TaxId: 'DE123' } }, later: false, now }), FiscalError);
});

test('endpointOf: production, Fiscal_Test, Fiscal_Url; the paths', async () => {
  const { endpointOf, invoiceUrl, premiseUrl } = await import('./endpoint.js');
  assert.equal(endpointOf(new Map()), 'https://blagajne.fu.gov.si:9003/v1/cash_registers');
  assert.equal(endpointOf(new Map([['fiscal_test', '1']])), 'https://blagajne-test.fu.gov.si:9002/v1/cash_registers');
  assert.equal(endpointOf(new Map([['fiscal_test', '0']])), 'https://blagajne.fu.gov.si:9003/v1/cash_registers');
  const own = endpointOf(new Map([['fiscal_url', 'http://127.0.0.1:9/v1/cash_registers/'], ['fiscal_test', '1']]));
  assert.equal(invoiceUrl(own), 'http://127.0.0.1:9/v1/cash_registers/invoices');
  assert.equal(premiseUrl(own), 'http://127.0.0.1:9/v1/cash_registers/invoices/register');
});
