import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalError } from '../../shared/errors.js';
import { dec, fmt } from '../../shared/money.js';
import type { Obj } from '../codec/index.js';
import { GENERIC_LETTERS } from '../fiscal/tax-letters.js';
import { buildEinvoice } from './build.js';
import { checkCalculations } from './check.js';
import { destinationOf } from './destination.js';
import { toUbl } from './ubl.js';
import type { Einvoice } from './model.js';

const CFG: Obj = {
  Cmp: { Nam: 'Seller AS', Adr: 'Gate', AdrNr: '1', Zip: '0150', City: 'Oslo', Ctry: 'NO', TaxId: 'NO999999999MVA' },
  Doc: { ContactElectronicMail: 'post@seller.example', PaymentTerms: '10 days', PaymentPeriod: '10' },
};
const CTM: Obj = { Nam: 'Buyer AS', Adr: 'Vei 2', City: 'Bergen', Zip: '5003', BuyerReference: 'REF' };

function esr(extra: Obj): Obj {
  return { D: '2026-11-25T09:00:00', TL: '1', TT: '2', TN: '7', DD: 'NO', DDto: '0192:999999999', Ctm: CTM, ...extra };
}

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof FiscalError, String(e));
    return `${String(e.params.field)}: ${String(e.params.detail)}`;
  }
  return 'no error';
}

test('destinations: DE is XRechnung, PEPPOL and other countries Peppol BIS, suffixes select the test system, national systems not built yet are refused', () => {
  assert.deepEqual(destinationOf('DE'), { syntax: 'xrechnung', system: 'DE', test: false });
  assert.deepEqual(destinationOf('nl-TEST'), { syntax: 'peppol', system: 'NL', test: true });
  assert.deepEqual(destinationOf('PEPPOL'), { syntax: 'peppol', system: 'PEPPOL', test: false });
  assert.deepEqual(destinationOf('AT-DEMO'), { syntax: 'peppol', system: 'AT', test: true });
  assert.match(message(() => destinationOf('IT-TEST')), /^ESR\.DD: e-invoices for IT \(FatturaPA.* are not supported yet/);
  assert.match(message(() => destinationOf('HR')), /^ESR\.DD: e-invoices for HR/);
  assert.match(message(() => destinationOf('SMTP mail')), /^ESR\.DD: "SMTP mail" is not a delivery system/);
});

test('net positions (TaxN), a markup as a line charge, two tax groups of one rate in one breakdown, a zero rate as Z, NOK', () => {
  const inv = buildEinvoice({
    destination: destinationOf('NO'), cfg: CFG, letters: GENERIC_LETTERS, id: 'FN-1',
    esr: esr({
      TaxN: '1',
      PosA: [
        { _: 'Pos', PN: '1', Dsc: 'Room', TaxG: 'X', Amt: '100.00' },
        { _: 'Mod', PN: '1', Dsc: 'Late checkout', Amt: '10.00' },
        { _: 'Pos', PN: '2', Dsc: 'Minibar', TaxG: 'Y', Amt: '20.00' },
        { _: 'Pos', PN: '3', Dsc: 'Newspaper', TaxG: 'Z0', Amt: '5.00' },
      ],
      TaxA: [
        { _: 'Tax', TaxG: 'X', Prc: '12', Net: '110.00', TAmt: '13.20', Amt: '123.20' },
        { _: 'Tax', TaxG: 'Y', Prc: '12.00', Net: '20.00', TAmt: '2.40', Amt: '22.40' },
        { _: 'Tax', TaxG: 'Z0', Prc: '0', Net: '5.00', TAmt: '0.00', Amt: '5.00' },
      ],
      PayA: [{ _: 'Pay', Dsc: 'Invoice', PayG: 'open', Amt: '150.60' }],
    }),
  });
  checkCalculations(inv);
  assert.equal(inv.currency, 'NOK');
  assert.equal(inv.dueDate, '2026-12-05');
  assert.deepEqual(inv.lines.map((l) => [fmt(l.net), fmt(l.price), fmt(l.allowance), l.category]), [['110.00', '100.00', '-10.00', 'S'], ['20.00', '20.00', '0.00', 'S'], ['5.00', '5.00', '0.00', 'Z']]);
  assert.deepEqual(inv.vat.map((b) => [b.category, fmt(b.rate), fmt(b.taxable), fmt(b.tax)]), [['S', '12', '130.00', '15.60'], ['Z', '0', '5.00', '0.00']]);
  assert.equal(fmt(inv.totals.payable), '150.60');
  const xml = toUbl(inv);
  assert.match(xml, /<cac:AllowanceCharge><cbc:ChargeIndicator>true<\/cbc:ChargeIndicator><cbc:AllowanceChargeReason>Surcharge<\/cbc:AllowanceChargeReason><cbc:Amount currencyID="NOK">10\.00<\/cbc:Amount><\/cac:AllowanceCharge>/);
  assert.match(xml, /<cbc:EndpointID schemeID="0192">999999999<\/cbc:EndpointID>/);
  // Peppol addresses a Norwegian seller by the organisation number in its VAT number
  assert.match(xml, /<cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0192">999999999<\/cbc:EndpointID>/);
  assert.match(xml, /<cac:PaymentMeans><cbc:PaymentMeansCode>1<\/cbc:PaymentMeansCode><\/cac:PaymentMeans>/);
  // the tampered model is caught by the calculation rules
  assert.match(message(() => checkCalculations({ ...inv, totals: { ...inv.totals, taxInclusive: dec('1.00') } })), /^ESR\.T: \[BR-CO-15\]/);
});

test('a return is a CreditNote with positive amounts, its due date in the payment means and no seller account', () => {
  const inv = buildEinvoice({
    destination: destinationOf('NO'), cfg: { ...CFG, Doc: { ...(CFG.Doc as Obj), AccountIBAN: 'NO9386011117947' } }, letters: GENERIC_LETTERS, id: 'FN-2',
    esr: esr({
      RTL: '1', RTT: '2', RTN: '6',
      PosA: [{ _: 'Pos', PN: '1', Dsc: 'Room', TaxG: 'X', Qty: '-1', Amt: '-112.00' }],
      TaxA: [{ _: 'Tax', TaxG: 'X', Prc: '12', Net: '-100.00', TAmt: '-12.00', Amt: '-112.00' }],
      PayA: [{ _: 'Pay', Dsc: 'Credit', PayG: 'open', Amt: '-112.00' }],
    }),
  });
  checkCalculations(inv);
  assert.equal(inv.creditNote, true);
  assert.deepEqual(inv.preceding, { id: '1/2/6' });
  const xml = toUbl(inv);
  assert.match(xml, /<cbc:ID>FN-2<\/cbc:ID><cbc:IssueDate>2026-11-25<\/cbc:IssueDate><cbc:CreditNoteTypeCode>381<\/cbc:CreditNoteTypeCode>/);
  assert.match(xml, /<cac:PaymentMeans><cbc:PaymentMeansCode>1<\/cbc:PaymentMeansCode><cbc:PaymentDueDate>2026-12-05<\/cbc:PaymentDueDate><\/cac:PaymentMeans>/);
  assert.match(xml, /<cbc:CreditedQuantity unitCode="C62">1<\/cbc:CreditedQuantity><cbc:LineExtensionAmount currencyID="NOK">100\.00<\/cbc:LineExtensionAmount>/);
  assert.doesNotMatch(xml, /NO9386011117947|<cbc:DueDate>/);
});

test('missing seller or buyer data is refused with the rule and the field', () => {
  const base = { destination: destinationOf('DE'), letters: GENERIC_LETTERS, id: '1', esr: esr({ DDto: '04011000-12345-03', PosA: [{ _: 'Pos', PN: '1', Dsc: 'A', TaxG: 'X', Amt: '1.19' }], TaxA: [{ _: 'Tax', TaxG: 'X', Prc: '19', Net: '1.00', TAmt: '0.19', Amt: '1.19' }], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '1.19' }] }) };
  assert.match(message(() => buildEinvoice({ ...base, cfg: {} })), /^Cfg\.Cmp\.Nam: \[BR-6\]/);
  assert.match(message(() => buildEinvoice({ ...base, cfg: CFG })), /^Cfg\.Doc\.ContactName: \[BR-DE-5\]/);
  const doc = { ContactName: 'A', ContactTelephone: '+49 30 123', ContactElectronicMail: 'a@b.example' };
  assert.match(message(() => buildEinvoice({ ...base, cfg: { ...CFG, Cmp: { Nam: 'X', Ctry: 'DE', City: 'Berlin', Zip: '10115' }, Doc: doc } })), /^Cfg\.Cmp\.TaxId: \[BR-S-02\]/);
  const xr = buildEinvoice({ ...base, cfg: { ...CFG, Doc: doc } });
  assert.equal(xr.buyerReference, '04011000-12345-03');
  assert.deepEqual(xr.buyer.endpoint, { scheme: '0204', id: '04011000-12345-03' });
});

test('a line given back on the same invoice keeps its own net amount: a group of lines of both signs is no discount of one and a surcharge of the other', () => {
  const inv = buildEinvoice({
    destination: destinationOf('NO'), cfg: CFG, letters: GENERIC_LETTERS, id: 'FN-3',
    esr: esr({
      PosA: [
        { _: 'Pos', PN: '1', Dsc: 'TV', TaxG: 'A', Amt: '100.00' },
        { _: 'Pos', PN: '2', Dsc: 'TV given back', TaxG: 'A', Qty: '-1', Amt: '-100.00' },
        { _: 'Pos', PN: '3', Dsc: 'Cable', TaxG: 'B', Amt: '1.00' },
        { _: 'Pos', PN: '4', Dsc: 'Radio', TaxG: 'A', Amt: '1000.00' },
        { _: 'Pos', PN: '5', Dsc: 'Radio given back', TaxG: 'A', Qty: '-1', Amt: '-999.99' },
      ],
      TaxA: [
        { _: 'Tax', TaxG: 'A', Prc: '25', Net: '0.01', TAmt: '0.00', Amt: '0.01' },
        { _: 'Tax', TaxG: 'B', Prc: '15', Net: '0.87', TAmt: '0.13', Amt: '1.00' },
      ],
      PayA: [{ _: 'Pay', Dsc: 'Invoice', PayG: 'open', Amt: '1.01' }],
    }),
  });
  checkCalculations(inv);
  const rows = inv.lines.map((l) => [l.name, fmt(l.net), fmt(l.allowance)]);
  assert.deepEqual(rows, [
    ['TV', '80.00', '0.00'],
    ['TV given back', '-80.00', '0.00'],
    ['Cable', '0.87', '0.00'],
    ['Radio', '800.00', '0.00'],
    ['Radio given back', '-799.99', '0.00'],
  ]);
  assert.equal(fmt(inv.totals.lineNet), '0.88');
});

test('the item net price is written with the decimals it needs, so that quantity × price gives the line net amount (PEPPOL-EN16931-R120)', () => {
  const inv = buildEinvoice({
    destination: destinationOf('NO'), cfg: CFG, letters: GENERIC_LETTERS, id: 'FN-4',
    esr: esr({
      TaxN: '1',
      PosA: [{ _: 'Pos', PN: '1', Dsc: 'Screw', TaxG: 'A', Qty: '1000', Amt: '10.05' }],
      TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '25', Net: '10.05', TAmt: '2.51', Amt: '12.56' }],
      PayA: [{ _: 'Pay', Dsc: 'Invoice', PayG: 'open', Amt: '12.56' }],
    }),
  });
  checkCalculations(inv);
  const xml = toUbl(inv);
  const price = /<cbc:PriceAmount currencyID="NOK">([^<]+)</.exec(xml)?.[1];
  assert.equal(price, '0.01005');
  assert.match(xml, /<cbc:LineExtensionAmount currencyID="NOK">10\.05</);
});

test('an amount of more than two decimals is refused naming the rule and the field, not written rounded so that the totals no longer add up', () => {
  const make = (taxA: Obj, pay: string): Einvoice => buildEinvoice({
    destination: destinationOf('NO'), cfg: CFG, letters: GENERIC_LETTERS, id: 'FN-5',
    esr: esr({ TaxN: '1', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Fuel', TaxG: 'A', Amt: taxA.Net }], TaxA: [taxA], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: pay }, { _: 'Pay', Dsc: 'Invoice', PayG: 'open', Amt: '1.00' }] }),
  });
  const paidInPart = make({ _: 'Tax', TaxG: 'A', Prc: '25', Net: '8.00', TAmt: '2.00', Amt: '10.00' }, '3.335');
  assert.match(message(() => checkCalculations(paidInPart)), /^ESR\.PayA: \[BR-DEC-16\]/);
  const net = make({ _: 'Tax', TaxG: 'A', Prc: '25', Net: '8.005', TAmt: '2.00', Amt: '10.005' }, '9.005');
  assert.match(message(() => checkCalculations(net)), /^ESR\.PosA\[0\]: \[BR-DEC-23\]/);
  // trailing zeros are no decimals
  checkCalculations(make({ _: 'Tax', TaxG: 'A', Prc: '25', Net: '8.000', TAmt: '2.000', Amt: '10.000' }, '9.000'));
});

test('a refusal of a line names its position in ESR.PosA, counting the Mod lines before it', () => {
  const inv = buildEinvoice({
    destination: destinationOf('NO'), cfg: CFG, letters: GENERIC_LETTERS, id: 'FN-6',
    esr: esr({
      TaxN: '1',
      PosA: [
        { _: 'Pos', PN: '1', Dsc: 'Coffee', TaxG: 'A', Amt: '3.00' },
        { _: 'Mod', PN: '1', Dsc: 'Refill', Amt: '-1.00' },
        { _: 'Pos', PN: '2', Dsc: 'Fuel', TaxG: 'B', Amt: '8.005' },
      ],
      TaxA: [
        { _: 'Tax', TaxG: 'A', Prc: '25', Net: '2.00', TAmt: '0.50', Amt: '2.50' },
        { _: 'Tax', TaxG: 'B', Prc: '25', Net: '8.005', TAmt: '2.00', Amt: '10.005' },
      ],
      PayA: [{ _: 'Pay', Dsc: 'Invoice', PayG: 'open', Amt: '12.505' }],
    }),
  });
  assert.match(message(() => checkCalculations(inv)), /^ESR\.PosA\[2\]: \[BR-DEC-23\]/);
});

test('a Mod of the whole receipt (PN *) is a document level allowance per VAT rate (BG-20), not spread on the lines', () => {
  const inv = buildEinvoice({
    destination: destinationOf('NO'), cfg: CFG, letters: GENERIC_LETTERS, id: 'FN-2',
    esr: esr({
      PosA: [
        { _: 'Pos', PN: '1', Dsc: 'Room', TaxG: 'X', Amt: '112.00' },
        { _: 'Pos', PN: '2', Dsc: 'Dinner', TaxG: 'Y', Amt: '125.00' },
        { _: 'Mod', PN: '2', Dsc: 'Wine on the house', Amt: '-25.00' },
        { _: 'Mod', PN: '*', Dsc: 'Loyalty 10 %', Amt: '-21.20' },
      ],
      // 21.20 split by the amounts before Mods: room 112.00 - 10.02 = 101.98 at 12 %, dinner 125.00 - 25.00 - 11.18 = 88.82 at 25 %
      TaxA: [
        { _: 'Tax', TaxG: 'X', Prc: '12', Net: '91.05', TAmt: '10.93', Amt: '101.98' },
        { _: 'Tax', TaxG: 'Y', Prc: '25', Net: '71.06', TAmt: '17.76', Amt: '88.82' },
      ],
      PayA: [{ _: 'Pay', Dsc: 'Invoice', PayG: 'open', Amt: '190.80' }],
    }),
  });
  checkCalculations(inv);
  // the lines keep their own Mods only: the room its whole amount, the dinner its own discount as a line allowance
  assert.deepEqual(inv.lines.map((l) => [fmt(l.net), fmt(l.allowance)]), [['100.00', '0.00'], ['80.00', '20.00']]);
  assert.deepEqual(inv.allowances.map((a) => [a.charge, fmt(a.amount), a.reason, a.category, fmt(a.rate)]), [[false, '8.95', 'Loyalty 10 %', 'S', '12'], [false, '8.94', 'Loyalty 10 %', 'S', '25']]);
  assert.equal(fmt(inv.totals.lineNet), '180.00');
  assert.equal(fmt(inv.totals.allowances), '17.89');
  assert.equal(fmt(inv.totals.taxExclusive), '162.11');
  assert.equal(fmt(inv.totals.taxInclusive), '190.80');
  const xml = toUbl(inv);
  assert.match(xml, /<cac:AllowanceCharge><cbc:ChargeIndicator>false<\/cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>95<\/cbc:AllowanceChargeReasonCode><cbc:AllowanceChargeReason>Loyalty 10 %<\/cbc:AllowanceChargeReason><cbc:Amount currencyID="NOK">8\.95<\/cbc:Amount><cac:TaxCategory><cbc:ID>S<\/cbc:ID><cbc:Percent>12\.00<\/cbc:Percent>/);
  assert.match(xml, /<cbc:TaxInclusiveAmount currencyID="NOK">190\.80<\/cbc:TaxInclusiveAmount><cbc:AllowanceTotalAmount currencyID="NOK">17\.89<\/cbc:AllowanceTotalAmount>/);
  // document level before the tax total, as UBL orders them
  assert.ok(xml.indexOf('<cbc:AllowanceTotalAmount') > xml.indexOf('<cac:TaxTotal>'));
  assert.ok(xml.lastIndexOf('<cac:AllowanceCharge>', xml.indexOf('<cac:TaxTotal>')) > 0);
});

test('exemptions: one per tax group, VATEX codes of categories not made refused, a zero rate without one stays Z', () => {
  const base = (posA: Obj[], taxA: Obj[]): Einvoice => buildEinvoice({
    destination: destinationOf('NO'), cfg: CFG, letters: GENERIC_LETTERS, id: 'FN-3',
    esr: esr({ PosA: posA, TaxA: taxA, PayA: [{ _: 'Pay', Dsc: 'Invoice', PayG: 'open', Amt: '30.00' }] }),
  });
  const zero = [{ _: 'Tax', TaxG: 'Z0', Prc: '0', Net: '30.00', TAmt: '0.00', Amt: '30.00' }];
  const two = (a: Obj, b: Obj): Obj[] => [{ _: 'Pos', PN: '1', Dsc: 'A', TaxG: 'Z0', Amt: '10.00', ...a }, { _: 'Pos', PN: '2', Dsc: 'B', TaxG: 'Z0', Amt: '20.00', ...b }];
  assert.deepEqual(base(two({}, {}), zero).vat.map((b) => b.category), ['Z']);
  const exempt = base(two({ TaxExemptionCode: 'vatex-eu-132-1i' }, { TaxExemptionCode: 'VATEX-EU-132-1I' }), zero);
  assert.deepEqual(exempt.vat.map((b) => [b.category, b.exemptionCode, b.exemptionReason]), [['E', 'VATEX-EU-132-1I', undefined]]);
  assert.deepEqual(exempt.lines.map((l) => l.category), ['E', 'E']);
  assert.match(message(() => base(two({ TaxExemptionCode: 'VATEX-EU-132-1I' }, {}), zero)), /^ESR\.PosA\[1\]\.TaxExemptionCode: \[BR-E-01\]/);
  assert.match(message(() => base(two({ TaxExemptionCode: 'VATEX-EU-AE' }, { TaxExemptionCode: 'VATEX-EU-132-1I' }), zero)), /^ESR\.PosA\[1\]\.TaxExemptionCode: \[BR-AE-01\]/);
  assert.match(message(() => base(two({ TaxExemptionCode: 'VATEX-EU-IC' }, { TaxExemptionCode: 'VATEX-EU-IC' }), zero)), /^ESR\.PosA\[0\]\.TaxExemptionCode: \[BR-CL-22\] "VATEX-EU-IC" is not an exemption this version makes/);
  // a text alone is an exemption too
  assert.deepEqual(base(two({ TaxExemptionReason: 'Exempt' }, { TaxExemptionReason: 'Exempt' }), zero).vat.map((b) => [b.category, b.exemptionReason]), [['E', 'Exempt']]);
});
