/**
 * An invoice's e-invoice delivery on the receipt (Fis.EInvoice, journaled after the invoice): the provider's
 * status and id, or in the receipt's language that it waits, was rejected (with the reason) or not delivered;
 * the test system is named. A receipt without an e-invoice has no such line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lang } from '../../shared/errors.js';
import type { Obj } from '../codec/index.js';
import { receiptText } from './receipt-text.js';
import { receiptView } from './receipt-view.js';

function text(einvoice: Obj | undefined, lang: Lang = 'en'): string {
  const data: Obj = {
    BC: 'invoice', BCF: 'invoice einvoice',
    ESR: { D: '2026-11-25T10:00:00', DD: 'NL', PosA: [{ _: 'Pos', Dsc: 'Catering', TaxG: '21%', Amt: '121.00' }], T: '121.00' },
    Fis: { FN: '17', ...(einvoice ? { EInvoice: einvoice } : {}) },
  };
  return receiptText(receiptView({ record: { type: 'Tra', data }, cfg: {}, lang }), 48);
}

test('the delivery of the e-invoice is a line of the receipt, in its language', () => {
  assert.match(text({ Status: 'accepted', Id: 'P-1' }), /^E-invoice +accepted P-1$/m);
  assert.match(text({ Status: 'pending' }, 'de'), /^E-Rechnung +wartet auf Zustellung$/m);
  assert.match(text({ Status: 'rejected', Reason: 'unknown receiver' }, 'nl'), /^E-factuur +geweigerd: unknown receiver$/m);
  assert.match(text({ Status: 'not sent', Reason: 'no endpoint' }, 'fr'), /^Facture électronique +non transmise$/m);
  assert.match(text({ Status: 'accepted', Id: 'T-9', Test: '1' }), /^E-invoice +accepted T-9 \(test system\)$/m);
  assert.doesNotMatch(text(undefined), /E-invoice/);
});
