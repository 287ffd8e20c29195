/**
 * The fixed-width layout at its limits: a report's counts beside amounts longer than the count column leaves
 * room for, and an amount longer than the amount column; every line stays within the width, nothing runs together.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Obj } from '../codec/index.js';
import { WIDTHS } from './receipt-lines.js';
import { receiptText } from './receipt-text.js';
import { receiptView } from './receipt-view.js';

function text(data: Obj, width: number): string[] {
  return receiptText(receiptView({ record: { type: 'Tra', data }, cfg: {}, lang: 'de' }), width).split('\n');
}

function assertWithin(lines: readonly string[], width: number): void {
  for (const l of lines) assert.ok(Array.from(l).length <= width, `"${l}" is longer than ${width}`);
}

test("a report's count never runs into an amount longer than the count column's room: both stand apart, within the width", () => {
  const z: Obj = {
    BC: 'closing',
    ESR: { D: '2026-11-25T22:00:00' },
    Fis: { Z: { ZI: '7', ZFisTraA: [{ Dsc: 'sale', Cnt: '5', Amt: '12345678.90' }, { Dsc: 'return', Cnt: '12', Amt: '-1234567.89' }], T: '11111111.01', CreditCnt: '3', CreditAmt: '-123456789.12' } },
  };
  for (const width of WIDTHS) {
    const lines = text(z, width);
    assertWithin(lines, width);
    assert.match(lines.find((l) => l.startsWith('Verkäufe')) ?? '', / 5 +12345678,90$/, lines.join('\n'));
    assert.match(lines.find((l) => l.startsWith('Rückgaben')) ?? '', / 12 +-1234567,89$/, lines.join('\n'));
    assert.match(lines.find((l) => l.startsWith('Gutschriften')) ?? '', / 3 +-123456789,12$/, lines.join('\n'));
  }
});

test('an amount longer than the amount column is printed whole and within the width, not refused', () => {
  const amount = '-123456789012345678.12';
  const data: Obj = { ESR: { D: '2026-11-25T10:00:00', T: amount, PosA: [{ _: 'Pos', PN: '1', Dsc: 'Artikel', Amt: amount, TaxG: 'A B C D E F' }], PayA: [{ Dsc: 'Bar', Amt: amount }] } };
  for (const width of WIDTHS) {
    const lines = text(data, width);
    assertWithin(lines, width);
    assert.ok(lines.some((l) => l.includes('-123456789012345678,12')), lines.join('\n'));
  }
});

test('at 32 columns a non-VAT tax (TTY) has no gross: its block prints no gross label without a figure', () => {
  const data: Obj = { ESR: { D: '2026-11-25T10:00:00', T: '5.00', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Pfand', Amt: '5.00', TaxG: 'E' }], TaxA: [{ TaxG: 'A', Prc: '19', Net: '1.00', TAmt: '0.19', Amt: '1.19' }, { TaxG: 'E', TTY: 'Pfand', Prc: '5', Base: '100.00', Amt: '5.00' }] } };
  const lines = text(data, 32);
  assertWithin(lines, 32);
  const block = lines.slice(lines.findIndex((l) => l.startsWith('E Pfand')));
  assert.match(block[1] ?? '', /^ {2}Netto +100,00$/, lines.join('\n'));
  assert.match(block[2] ?? '', /^ {2}Steuer +5,00$/, lines.join('\n'));
  assert.ok(!lines.some((l) => /^ *Brutto$/.test(l)), lines.join('\n'));
});
