import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Dec, dec, fmt } from '../../../shared/money.js';
import type { Obj } from '../../codec/index.js';
import { type ReportVat, reportOf } from './report.js';

/** A signed sale of 11.20 with 1.20 VAT at 12 % and 8.00 at 0 %. */
const SALE: Obj = {
  _: 'Tra', SQ: '1', BC: 'sale',
  ESR: {
    T: '11.20',
    PosA: [{ _: 'Pos', PN: '1', Amt: '11.20', Qty: '1', TaxG: 'A', Cat: 'Food' }],
    TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '12', Net: '10.00', TAmt: '1.20', Amt: '11.20' }],
    PayA: [{ _: 'Pay', PayG: 'cash', Amt: '11.20' }],
  },
  Fis: { FN: '1', Signature: 'c2ln', AmntIn: '11.20' },
};
const CLOSING: Obj = { _: 'Tra', SQ: '2', BC: 'closing' };

const meta = { kind: 'Z report' as const, reportId: '1', company: { ident: '1', name: 'C' }, registerId: 'R', date: '2025-01-01', time: '12:00:00' };
const vatOf = (baseRates: string[]): ReportVat => ({ baseRates: baseRates.map(dec), vatCode: (rate: Dec) => ({ code: `V${fmt(rate)}` }) });

describe('the VAT of a report is the country\'s', () => {
  test('its base rates are always listed, a rate used is added, in rate order, each with the country\'s code', () => {
    const report = reportOf({ ...meta, records: [SALE, CLOSING], from: 0 }, vatOf(['0', '25']));
    assert.deepEqual(report.vat.map((v) => [v.code, v.perc, v.base, v.vat]), [['V0', '0.00', '0.00', '0.00'], ['V12', '12.00', '10.00', '1.20'], ['V25', '25.00', '0.00', '0.00']]);
  });

  test('another country\'s base rates give another list from the same records', () => {
    const report = reportOf({ ...meta, records: [SALE, CLOSING], from: 0 }, vatOf(['12', '15']));
    assert.deepEqual(report.vat.map((v) => v.code), ['V12', 'V15']);
    assert.equal(report.totalCashSale, '11.20');
  });
});
