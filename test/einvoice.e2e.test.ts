/**
 * E-invoices of invoices with ESR.DD, through the running service: registered, made after journaling with the
 * FN as invoice number, answered by GET /export?type=einvoice&fn=…, and valid by the official EN 16931 rules
 * (and XRechnung's for DD DE) run by Saxon-HE. What cannot make a valid e-invoice is refused before journaling
 * with the rule id and the field to fix.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestService, get, post, startTestService } from './helpers.js';
import { EN16931_UBL, XRECHNUNG_UBL_SCH, type Failure, fatal, saxonAvailable, schematronToXslt, validateAll } from './einvoice-schematron.js';

const CFG = {
  Cfg: {
    Cmp: { Nam: 'Bakkerij Jansen B.V.', Adr: 'Dorpsstraat', AdrNr: '12', Zip: '1234 AB', City: 'Utrecht', Ctry: 'NL', TaxId: 'NL123456789B01' },
    Loc: { TL: '1', Nam: 'Utrecht', Adr: 'Dorpsstraat 12', Zip: '1234 AB', City: 'Utrecht', Ctry: 'NL' },
    Trm: { TT: '1', SW: 'POS', HW: 'PC', Serial: 'S1' },
    Doc: { ContactName: 'Anna Jansen', ContactTelephone: '+31 30 1234567', ContactElectronicMail: 'factuur@jansen.example', PaymentTerms: 'Payable within 14 days', AccountName: 'Bakkerij Jansen', AccountIBAN: 'NL91ABNA0417164300', AccountBIC: 'ABNANL2A', PaymentPeriod: '14' },
  },
};

const CUSTOMER = { Nam: 'Hotel De Linde', Adr: 'Lindelaan', AdrNr: '3', Zip: '3511 AA', City: 'Utrecht', Ctry: 'NL', TaxId: 'NL987654321B01', BuyerReference: 'PO-2026-17', CN: 'K-42' };
const GERMAN_BUYER = { Nam: 'Stadtverwaltung Musterstadt', Adr: 'Rathausplatz', AdrNr: '1', Zip: '12345', City: 'Musterstadt', Ctry: 'DE' };

let svc: TestService;
let work: string;
/** the e-invoices exported, by file name, validated together at the end of each group */
const made: Record<string, string> = {};

before(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'efr-einvoice-'));
  const cfg = await post(`${svc.url}/cfg`, CFG);
  assert.equal(cfg.status, 200, cfg.text);
});

after(async () => {
  await svc.stop();
  if (!process.env.KEEP_EINVOICE) rmSync(work, { recursive: true, force: true });
});

async function register(esr: Record<string, unknown>): Promise<{ status: number; json: Record<string, Record<string, Record<string, unknown>>>; text: string }> {
  return post(`${svc.url}/register`, { Tra: { ESR: { TL: '1', TT: '1', D: '2026-11-25T10:00:00', ...esr } } });
}

async function einvoiceOf(fn: string): Promise<string> {
  const res = await get(`${svc.url}/export?type=einvoice&fn=${encodeURIComponent(fn)}`);
  assert.equal(res.status, 200, res.text);
  return res.text;
}

/** A sale at 21 % and 9 % with a 10 % discount on one line and a service line with its period, on account. */
const SALE = {
  TN: '1', DD: 'NL', Ctm: CUSTOMER, OrderReference: 'ORD-1',
  PosA: [
    { _: 'Pos', PN: '1', Dsc: 'Catering service', TaxG: '21%', Qty: '2', Pri: '60.50', Amt: '121.00', SKU: 'CAT-1', SvcStartD: '2026-11-01', SvcEndD: '2026-11-30' },
    { _: 'Pos', PN: '2', Dsc: 'Bread', TaxG: '9%', Qty: '10', Pri: '3.27', Amt: '32.70', IN: '8712345678906' },
    { _: 'Mod', PN: '2', Dsc: 'Discount 10 %', Amt: '-3.27' },
    { _: 'Pos', PN: '3', Dsc: 'Cake', TaxG: '9%', Amt: '12.50', QtyU: 'kg', Qty: '1.25', Pri: '10.00' },
  ],
  PayA: [{ _: 'Pay', Dsc: 'On account', PayG: 'open', Amt: '162.93' }],
};

let saleFn = '';

test('an invoice with DD NL is registered and its Peppol BIS 3.0 e-invoice carries the FN, both rates, the discount and the line period', async () => {
  const res = await register(SALE);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.TraC?.Result?.RC, 'OK');
  saleFn = String(res.json.TraC?.ESR?.FN);
  const xml = await einvoiceOf(saleFn);
  made['sale.xml'] = xml;
  assert.match(xml, /<cbc:CustomizationID>urn:cen\.eu:en16931:2017#compliant#urn:fdc:peppol\.eu:2017:poacc:billing:3\.0<\/cbc:CustomizationID>/);
  assert.match(xml, /<cbc:ProfileID>urn:fdc:peppol\.eu:2017:poacc:billing:01:1\.0<\/cbc:ProfileID>/);
  assert.match(xml, new RegExp(`<cbc:ID>${saleFn}</cbc:ID><cbc:IssueDate>2026-11-25</cbc:IssueDate><cbc:DueDate>2026-12-09</cbc:DueDate><cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>`));
  assert.match(xml, /<cbc:Percent>21\.00<\/cbc:Percent>/);
  assert.match(xml, /<cbc:Percent>9\.00<\/cbc:Percent>/);
  assert.match(xml, /<cac:InvoicePeriod><cbc:StartDate>2026-11-01<\/cbc:StartDate><cbc:EndDate>2026-11-30<\/cbc:EndDate><\/cac:InvoicePeriod>/);
  assert.match(xml, /<cbc:ChargeIndicator>false<\/cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>95<\/cbc:AllowanceChargeReasonCode>/);
  assert.match(xml, /<cbc:TaxInclusiveAmount currencyID="EUR">162\.93<\/cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">162\.93<\/cbc:PayableAmount>/);
  assert.match(xml, /<cbc:PaymentMeansCode>58<\/cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>NL91ABNA0417164300<\/cbc:ID>/);
  assert.match(xml, /<cbc:EndpointID schemeID="9944">NL987654321B01<\/cbc:EndpointID>/);
  assert.match(xml, /<cbc:InvoicedQuantity unitCode="KGM">1\.25<\/cbc:InvoicedQuantity>/);

  // also by TL/TT/TN; and made again from the journal when its file is gone
  assert.equal((await get(`${svc.url}/export?type=einvoice&tl=1&tt=1&tn=1`)).text, xml);
  const folder = join(svc.dataDir, 'einvoice', 'def');
  for (const f of readdirSync(folder)) rmSync(join(folder, f));
  assert.equal(await einvoiceOf(saleFn), xml);
});

test('a return with DD is a CreditNote referring to the invoice by its FN; a paid invoice to a Peppol id in DDto', async () => {
  const ret = await register({
    TN: '2', DD: 'NL-TEST', Ctm: CUSTOMER, RFN: saleFn, RD: '2026-11-25', Rsn: 'Returned goods',
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Bread', TaxG: '9%', Qty: '-2', Pri: '3.27', Amt: '-6.54', IN: '8712345678906' }],
    PayA: [{ _: 'Pay', Dsc: 'Refund', PayG: 'refund', Amt: '-6.54' }],
  });
  assert.equal(ret.status, 200, ret.text);
  const xml = await einvoiceOf(String(ret.json.TraC?.ESR?.FN));
  made['credit-note.xml'] = xml;
  assert.match(xml, /<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/);
  assert.match(xml, /<cbc:CreditNoteTypeCode>381<\/cbc:CreditNoteTypeCode>/);
  assert.match(xml, new RegExp(`<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>${saleFn}</cbc:ID><cbc:IssueDate>2026-11-25</cbc:IssueDate>`));
  assert.match(xml, /<cbc:CreditedQuantity unitCode="C62">2<\/cbc:CreditedQuantity><cbc:LineExtensionAmount currencyID="EUR">6\.00<\/cbc:LineExtensionAmount>/);
  assert.match(xml, /<cbc:PrepaidAmount currencyID="EUR">6\.54<\/cbc:PrepaidAmount><cbc:PayableAmount currencyID="EUR">0\.00<\/cbc:PayableAmount>/);

  // a credit note over two VAT rates, one line with the share of the discount the invoice gave (a line allowance)
  const rates = await register({
    TN: '20', DD: 'NL', Ctm: CUSTOMER, RFN: saleFn, RD: '2026-11-25', Rsn: 'Cancelled order',
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Catering service', TaxG: '21%', Qty: '-1', Pri: '60.50', Amt: '-60.50', SKU: 'CAT-1' },
      { _: 'Pos', PN: '2', Dsc: 'Bread', TaxG: '9%', Qty: '-3', Pri: '3.27', Amt: '-9.81', IN: '8712345678906' },
      { _: 'Mod', PN: '2', Dsc: 'Discount 10 %', Amt: '0.98' },
    ],
    PayA: [{ _: 'Pay', Dsc: 'Refund', PayG: 'refund', Amt: '-69.33' }],
  });
  assert.equal(rates.status, 200, rates.text);
  const ratesXml = await einvoiceOf(String(rates.json.TraC?.ESR?.FN));
  made['credit-note-rates.xml'] = ratesXml;
  assert.match(ratesXml, /<cbc:CreditNoteTypeCode>381<\/cbc:CreditNoteTypeCode>/);
  assert.equal(ratesXml.match(/<cac:TaxSubtotal>/g)?.length, 2, 'one VAT breakdown per rate');
  assert.match(ratesXml, /<cbc:Percent>21(\.00)?<\/cbc:Percent>/);
  assert.match(ratesXml, /<cbc:Percent>9(\.00)?<\/cbc:Percent>/);
  assert.match(ratesXml, /<cac:AllowanceCharge><cbc:ChargeIndicator>false<\/cbc:ChargeIndicator>/);
  assert.match(ratesXml, /<cbc:TaxInclusiveAmount currencyID="EUR">69\.33<\/cbc:TaxInclusiveAmount>/);

  // a credit note over two VAT rates with a discount of the whole receipt (PN *): a document level allowance per rate
  const whole = await register({
    TN: '21', DD: 'NL', Ctm: CUSTOMER, RFN: saleFn, RD: '2026-11-25', Rsn: 'Order cancelled',
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Catering service', TaxG: '21%', Qty: '-1', Pri: '60.50', Amt: '-60.50', SKU: 'CAT-1' },
      { _: 'Pos', PN: '2', Dsc: 'Bread', TaxG: '9%', Qty: '-2', Pri: '3.27', Amt: '-6.54', IN: '8712345678906' },
      { _: 'Mod', PN: '*', Dsc: 'Customer discount 5 %', Amt: '3.35' },
    ],
    PayA: [{ _: 'Pay', Dsc: 'Refund', PayG: 'refund', Amt: '-63.69' }],
  });
  assert.equal(whole.status, 200, whole.text);
  const wholeXml = await einvoiceOf(String(whole.json.TraC?.ESR?.FN));
  made['credit-note-document-allowance.xml'] = wholeXml;
  assert.equal(wholeXml.match(/<cac:AllowanceCharge><cbc:ChargeIndicator>false<\/cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>95<\/cbc:AllowanceChargeReasonCode><cbc:AllowanceChargeReason>Customer discount 5 %<\/cbc:AllowanceChargeReason>/g)?.length, 2, 'one allowance per rate');
  assert.match(wholeXml, /<cbc:AllowanceTotalAmount currencyID="EUR">/);
  assert.match(wholeXml, /<cbc:TaxInclusiveAmount currencyID="EUR">63\.69<\/cbc:TaxInclusiveAmount>/);
  // the lines keep their whole amounts: the discount is on the document
  assert.match(wholeXml, /<cbc:CreditedQuantity unitCode="C62">1<\/cbc:CreditedQuantity><cbc:LineExtensionAmount currencyID="EUR">50\.00<\/cbc:LineExtensionAmount><cac:Item>/);

  // exempt (E) with its VATEX code and reason beside a standard rated line, and a reverse charge (AE) to a Belgian business
  const exempt = await register({
    TN: '22', DD: 'NL', Ctm: CUSTOMER,
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'First aid course', TaxG: '0%', Amt: '80.00', TaxExemptionCode: 'VATEX-EU-132-1J', TaxExemptionReason: 'Exempt: school or university education (Art. 132(1)(j) Directive 2006/112/EC)' },
      { _: 'Pos', PN: '2', Dsc: 'Course book', TaxG: '9%', Amt: '21.80' },
    ],
    PayA: [{ _: 'Pay', Dsc: 'On account', PayG: 'open', Amt: '101.80' }],
  });
  assert.equal(exempt.status, 200, exempt.text);
  const exemptXml = await einvoiceOf(String(exempt.json.TraC?.ESR?.FN));
  made['exempt.xml'] = exemptXml;
  assert.match(exemptXml, /<cac:TaxCategory><cbc:ID>E<\/cbc:ID><cbc:Percent>0(\.00)?<\/cbc:Percent><cbc:TaxExemptionReasonCode>VATEX-EU-132-1J<\/cbc:TaxExemptionReasonCode><cbc:TaxExemptionReason>Exempt: school/);
  assert.match(exemptXml, /<cac:ClassifiedTaxCategory><cbc:ID>E<\/cbc:ID>/);
  const belgian = { Nam: 'Brasserie Lambiek BV', Adr: 'Grote Markt 1', Zip: '1000', City: 'Brussel', Ctry: 'BE', TaxId: 'BE0123456749', BuyerReference: 'BE-77' };
  const reverse = await register({
    TN: '23', DD: 'PEPPOL', DDto: '9925:BE0123456749', Ctm: belgian,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Bakery consulting', TaxG: '0%', Amt: '500.00', TaxExemptionCode: 'VATEX-EU-AE' }],
    PayA: [{ _: 'Pay', Dsc: 'On account', PayG: 'open', Amt: '500.00' }],
  });
  assert.equal(reverse.status, 200, reverse.text);
  const reverseXml = await einvoiceOf(String(reverse.json.TraC?.ESR?.FN));
  made['reverse-charge.xml'] = reverseXml;
  assert.match(reverseXml, /<cac:TaxCategory><cbc:ID>AE<\/cbc:ID><cbc:Percent>0(\.00)?<\/cbc:Percent><cbc:TaxExemptionReasonCode>VATEX-EU-AE<\/cbc:TaxExemptionReasonCode><cbc:TaxExemptionReason>Reverse charge<\/cbc:TaxExemptionReason>/);
  // refused before journaling: an exemption at a rate with VAT, and a reverse charge to a buyer without a VAT number
  const rated = await register({ TN: '24', DD: 'NL', Ctm: CUSTOMER, PosA: [{ _: 'Pos', PN: '1', Dsc: 'Course', TaxG: '21%', Amt: '12.10', TaxExemptionCode: 'VATEX-EU-132-1J' }], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '12.10' }] });
  assert.equal(rated.status, 400, rated.text);
  assert.match(String(rated.json.TraC?.Result?.UserMessage), /ESR\.PosA\[0\]\.TaxExemptionCode: \[BR-E-05\]/);
  const noVat = await register({ TN: '25', DD: 'PEPPOL', DDto: '9925:BE0123456749', Ctm: { ...belgian, TaxId: undefined }, PosA: [{ _: 'Pos', PN: '1', Dsc: 'Consulting', TaxG: '0%', Amt: '5.00', TaxExemptionCode: 'VATEX-EU-AE' }], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '5.00' }] });
  assert.equal(noVat.status, 400, noVat.text);
  assert.match(String(noVat.json.TraC?.Result?.UserMessage), /ESR\.Ctm\.TaxId: \[BR-AE-02\]/);

  const paid = await register({
    TN: '3', DD: 'PEPPOL', DDto: '0106:12345678', Ctm: { ...CUSTOMER, TaxId: undefined },
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Coffee', TaxG: '21%', Amt: '3.63' }],
    PayA: [{ _: 'Pay', Dsc: 'Card', PayG: 'debitcard', Amt: '3.63' }],
  });
  assert.equal(paid.status, 200, paid.text);
  const paidXml = await einvoiceOf(String(paid.json.TraC?.ESR?.FN));
  made['paid.xml'] = paidXml;
  assert.match(paidXml, /<cbc:EndpointID schemeID="0106">12345678<\/cbc:EndpointID>/);
  // paid at the POS: nothing left to pay, no payment instructions (a Dutch seller may name only transfer, card or debit codes)
  assert.doesNotMatch(paidXml, /<cac:PaymentMeans>/);
  assert.match(paidXml, /<cbc:PrepaidAmount currencyID="EUR">3\.63<\/cbc:PrepaidAmount><cbc:PayableAmount currencyID="EUR">0\.00<\/cbc:PayableAmount>/);
});

test('DD DE makes an XRechnung 3.0 (UBL) with DDto as the buyer reference (Leitweg-ID, BT-10), and a CreditNote for its return', async () => {
  const res = await register({
    TN: '4', DD: 'DE', DDto: '04011000-12345-03', Ctm: GERMAN_BUYER,
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Beratung', TaxG: '21%', Qty: '3', Pri: '121.00', Amt: '363.00', SvcStartD: '2026-11-02', SvcEndD: '2026-11-06' },
      { _: 'Pos', PN: '2', Dsc: 'Fachbuch', TaxG: '9%', Amt: '54.50' },
    ],
    PayA: [{ _: 'Pay', Dsc: 'Rechnung', PayG: 'open', Amt: '417.50' }],
  });
  assert.equal(res.status, 200, res.text);
  const xml = await einvoiceOf(String(res.json.TraC?.ESR?.FN));
  made['xrechnung.xml'] = xml;
  assert.match(xml, /<cbc:CustomizationID>urn:cen\.eu:en16931:2017#compliant#urn:xeinkauf\.de:kosit:xrechnung_3\.0<\/cbc:CustomizationID>/);
  assert.match(xml, /<cbc:BuyerReference>04011000-12345-03<\/cbc:BuyerReference>/);
  assert.match(xml, /<cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="0204">04011000-12345-03<\/cbc:EndpointID>/);
  // the return of one book: an XRechnung credit note referring to the invoice
  const ret = await register({
    TN: '5', DD: 'DE', DDto: '04011000-12345-03', Ctm: GERMAN_BUYER, RFN: String(res.json.TraC?.ESR?.FN), Rsn: 'Rückgabe',
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Fachbuch', TaxG: '9%', Amt: '-54.50' }],
    PayA: [{ _: 'Pay', Dsc: 'Gutschrift', PayG: 'open', Amt: '-54.50' }],
  });
  assert.equal(ret.status, 200, ret.text);
  const cn = await einvoiceOf(String(ret.json.TraC?.ESR?.FN));
  made['xrechnung-credit-note.xml'] = cn;
  assert.match(cn, /<cbc:CustomizationID>urn:cen\.eu:en16931:2017#compliant#urn:xeinkauf\.de:kosit:xrechnung_3\.0<\/cbc:CustomizationID>/);
  assert.match(cn, /<cbc:CreditNoteTypeCode>381<\/cbc:CreditNoteTypeCode><cbc:Note>Rückgabe<\/cbc:Note>/);
  assert.match(cn, /<cbc:PayableAmount currencyID="EUR">54\.50<\/cbc:PayableAmount>/);
  assert.match(xml, /<cac:Contact><cbc:Name>Anna Jansen<\/cbc:Name><cbc:Telephone>\+31 30 1234567<\/cbc:Telephone><cbc:ElectronicMail>factuur@jansen\.example<\/cbc:ElectronicMail><\/cac:Contact>/);
});

test('what cannot make a valid e-invoice is refused before journaling with the rule id and the field to fix', async () => {
  const base = { Ctm: GERMAN_BUYER, PosA: [{ _: 'Pos', PN: '1', Dsc: 'Item', TaxG: '21%', Amt: '12.10' }], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '12.10' }] };
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ TN: '10', DD: 'DE' }, /ESR\.DDto: \[BR-DE-15\] Buyer reference \(BT-10\) is missing/],
    [{ TN: '11', DD: 'IT' }, /ESR\.DD: e-invoices for IT \(FatturaPA.*\) are not supported yet/],
    [{ TN: '12', DD: 'PL-TEST' }, /ESR\.DD: e-invoices for PL \(KSeF/],
    [{ TN: '13', DD: 'NOWHERE.1' }, /ESR\.DD: "NOWHERE\.1" is not a delivery system/],
    [{ TN: '14', DD: 'DE', DDto: '991-1', Ctm: { ...GERMAN_BUYER, Zip: undefined } }, /ESR\.Ctm\.Zip: \[BR-DE-9\] Buyer post code \(BT-53\) is missing/],
    [{ TN: '15', DD: 'NL', Ctm: { ...CUSTOMER, BuyerReference: undefined } }, /ESR\.Ctm\.BuyerReference: \[PEPPOL-EN16931-R003\]/],
    [{ TN: '16', DD: 'NL', Ctm: CUSTOMER, PosA: [{ _: 'Pos', PN: '1', Dsc: 'Item', TaxG: '21%', Amt: '12.10', SvcStartD: '2026-11-10', SvcEndD: '2026-11-01' }] }, /ESR\.PosA\[0\]\.SvcEndD: \[BR-30\]/],
    [{ TN: '17', DD: 'NL', Ctm: { ...CUSTOMER, TaxId: '987654321' } }, /ESR\.Ctm\.TaxId: \[BR-CO-9\]/],
    [{ TN: '19', DD: 'NL', Ctm: { ...CUSTOMER, Ctry: 'Holland' } }, /ESR\.Ctm\.Ctry: \[BR-CL-14\] "Holland" is no country code/],
  ];
  for (const [esr, expected] of cases) {
    const res = await register({ ...base, ...esr });
    assert.equal(res.status, 400, `${JSON.stringify(esr)}: ${res.text}`);
    assert.equal(res.json.TraC?.Result?.RC, 'BAD');
    assert.equal(res.json.TraC?.Result?.ErrorCode, '#INVALID_VALUE');
    assert.match(String(res.json.TraC?.Result?.UserMessage), expected);
    // nothing journaled: the TN is free
    assert.equal((await get(`${svc.url}/tra?TL=1&TT=1&TN=${String(esr.TN)}`)).status, 404, String(esr.TN));
  }
  // a DD on a sale without customer makes no e-invoice and says so
  const sale = await register({ TN: '18', DD: 'NL', PosA: base.PosA, PayA: base.PayA });
  assert.equal(sale.status, 200, sale.text);
  assert.match(sale.text, /ESR\.DD: no e-invoice is made for a sale without ESR\.Ctm/);
  const none = await get(`${svc.url}/export?type=einvoice&fn=${String(sale.json.TraC?.ESR?.FN)}`);
  assert.equal(none.status, 404, none.text);
  assert.equal((await get(`${svc.url}/export?type=einvoice&fn=999999`)).status, 404);
});

test('the official EN 16931 rules (and XRechnung for DD DE) find nothing to report in the e-invoices made; a broken one fails by rule id', () => {
  const missing = saxonAvailable();
  assert.equal(missing, undefined, missing);
  assert.deepEqual(Object.keys(made).sort(), ['credit-note-document-allowance.xml', 'credit-note-rates.xml', 'credit-note.xml', 'exempt.xml', 'paid.xml', 'reverse-charge.xml', 'sale.xml', 'xrechnung-credit-note.xml', 'xrechnung.xml']);
  const sale = made['sale.xml'] as string;
  const broken = sale.replace(/<cbc:PayableAmount currencyID="EUR">162\.93</, '<cbc:PayableAmount currencyID="EUR">170.00<');
  assert.notEqual(broken, sale);
  const withoutId = sale.replace(/<cbc:ID>[^<]*<\/cbc:ID><cbc:IssueDate>/, '<cbc:IssueDate>');
  const en = validateAll(EN16931_UBL, { ...made, 'broken-total.xml': broken, 'broken-id.xml': withoutId }, join(work, 'en16931'));
  const show = (f: Failure[] | undefined): string => JSON.stringify(f?.filter((x) => x.flag === 'fatal'));
  // not even a warning or an information
  const all = (f: Failure[] | undefined): string[] => (f ?? []).map((x) => `${x.id} ${x.flag}`);
  for (const name of Object.keys(made)) assert.deepEqual(all(en[name]), [], `${name}: ${show(en[name])}`);
  assert.deepEqual(fatal(en['broken-total.xml']), ['BR-CO-16']);
  assert.deepEqual(fatal(en['broken-id.xml']), ['BR-02']);

  const xsl = join(work, 'xrechnung-ubl.xsl');
  writeFileSync(xsl, schematronToXslt(XRECHNUNG_UBL_SCH));
  const xrechnung = made['xrechnung.xml'] as string;
  const noLeitweg = xrechnung.replace(/<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, '');
  const xr = validateAll(xsl, { 'xrechnung.xml': xrechnung, 'xrechnung-credit-note.xml': made['xrechnung-credit-note.xml'] as string, 'no-bt-10.xml': noLeitweg }, join(work, 'xrechnung'));
  assert.deepEqual(all(xr['xrechnung.xml']), []);
  assert.deepEqual(all(xr['xrechnung-credit-note.xml']), []);
  assert.deepEqual(fatal(xr['no-bt-10.xml']), ['BR-DE-15']);
});
