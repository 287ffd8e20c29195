import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalError } from '../../shared/errors.js';
import type { Obj } from '../codec/index.js';
import { GENERIC_LETTERS } from '../fiscal/tax-letters.js';
import { buildEinvoice } from './build.js';
import { destinationOf } from './destination.js';
import { checkPeppol } from './peppol-rules.js';

const NL: Obj = { Cmp: { Nam: 'Winkel B.V.', Adr: 'Straat 1', Zip: '1011 AA', City: 'Amsterdam', Ctry: 'NL', TaxId: 'NL123456789B01' }, Doc: { PaymentTerms: '14 days' } };

function esr(extra: Obj): Obj {
  return {
    D: '2026-11-25T09:00:00', DD: 'PEPPOL', DDto: '0088:7300010000001', Ctm: { Nam: 'Klant', Adr: 'Weg 2', City: 'Delft', Zip: '2611 AA', BuyerReference: 'R' },
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'A', TaxG: 'X', Amt: '12.10' }],
    TaxA: [{ _: 'Tax', TaxG: 'X', Prc: '21', Net: '10.00', TAmt: '2.10', Amt: '12.10' }],
    PayA: [{ _: 'Pay', Dsc: 'Pin', PayG: 'debitcard', Amt: '12.10' }],
    ...extra,
  };
}

function refusal(cfg: Obj, e: Obj): string {
  try {
    checkPeppol(buildEinvoice({ destination: destinationOf(String(e.DD)), cfg, letters: GENERIC_LETTERS, id: '1', esr: e }));
  } catch (err) {
    assert.ok(err instanceof FiscalError, String(err));
    return `${String(err.params.field)}: ${String(err.params.detail)}`;
  }
  return 'accepted';
}

test('the receiver\'s Peppol id: a scheme of the EAS list, with its check digits', () => {
  assert.equal(refusal(NL, esr({})), 'accepted');
  assert.match(refusal(NL, esr({ DDto: '0088:7300010000002' })), /^ESR\.DDto: \[PEPPOL-COMMON-R040\] GLN 7300010000002/);
  assert.match(refusal(NL, esr({ DDto: 'EM:klant@example.org' })), /^ESR\.DDto: \[PEPPOL-EN16931-CL008\]/);
  assert.match(refusal(NL, esr({ DDto: '0192:123456789' })), /^ESR\.DDto: \[PEPPOL-COMMON-R041\]/);
  assert.match(refusal(NL, esr({ DDto: '0007:5560360793' })), /accepted/);
  assert.match(refusal(NL, esr({ DDto: '0007:5560360794' })), /^ESR\.DDto: \[PEPPOL-COMMON-R049\]/);
});

test('national rules: a Dutch seller names an account for what is left to pay, a Norwegian VAT number its check digit, a Swedish seller its rates, a Danish seller is addressed by its CVR', () => {
  const open = { PayA: [{ _: 'Pay', Dsc: 'Op rekening', PayG: 'open', Amt: '12.10' }] };
  assert.match(refusal(NL, esr(open)), /^Cfg\.Doc\.AccountIBAN: \[NL-R-008\]/);
  assert.equal(refusal({ ...NL, Doc: { PaymentTerms: '14 days', AccountIBAN: 'NL91ABNA0417164300' } }, esr(open)), 'accepted');
  const { Adr: _, ...withoutStreet } = NL.Cmp as Obj;
  assert.match(refusal({ ...NL, Cmp: withoutStreet }, esr({})), /^Cfg\.Cmp\.Adr: \[NL-R-002\]/);
  const no = { Cmp: { Nam: 'AS', Adr: 'Gate 1', Zip: '0150', City: 'Oslo', Ctry: 'NO', TaxId: 'NO123456789MVA' } };
  assert.match(refusal(no, esr({})), /^Cfg\.Cmp\.TaxId: \[NO-R-001\]/);
  assert.equal(refusal({ Cmp: { ...no.Cmp, TaxId: 'NO999999999MVA' } }, esr({})), 'accepted');
  const se = { Cmp: { Nam: 'AB', Adr: 'Gatan 1', Zip: '111 22', City: 'Stockholm', Ctry: 'SE', TaxId: 'SE556036079301' } };
  assert.match(refusal(se, esr({})), /^ESR\.TaxA: \[SE-R-006\] Swedish sellers use the VAT rates 25, 12 and 6, not 21/);
  const dk = { Cmp: { Nam: 'ApS', Adr: 'Vej 1', Zip: '1000', City: 'København', Ctry: 'DK', TaxId: '12345678' } };
  assert.match(refusal(dk, esr({})), /^Cfg\.Cmp\.TaxId: \[PEPPOL-EN16931-R020\]/);
  assert.equal(refusal({ Cmp: { ...dk.Cmp, TaxId: 'DK12345678' } }, esr({})), 'accepted');
});
