/** The Swedish X/Z figures kept in the register's state: exact sums, what each kind of receipt counts in, the day closed by a Z while the grand totals go on. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Obj } from '../../codec/index.js';
import { addCopy, addReceipt, closeDay, dayOf, grandOf, reportTags } from './day-figures.js';

const receipt = (t: string, pay: string, extra: Obj = {}): Obj => ({
  T: t, PayA: [{ _: 'Pay', PayG: pay, Amt: t }], TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '25', Amt: t, TAmt: '0.02', Net: '0.08' }], ...extra,
});

test('sums are exact, each receipt counts where the rules put it, a Z closes the day and not the grand totals', () => {
  const country: Record<string, string> = {};
  // ten receipts of 0.10: 1.00 exactly (never 0.9999999999999999)
  for (let i = 0; i < 10; i += 1) addReceipt(country, receipt('0.10', 'cash'), 'sale');
  addReceipt(country, receipt('0.20', 'creditcard', { PosA: [{ _: 'Pos', Amt: '0.30' }, { _: 'Mod', Amt: '-0.10' }] }), 'sale');
  addReceipt(country, receipt('-0.10', 'refund'), 'return');
  addReceipt(country, receipt('5.00', 'cash'), 'training');
  addReceipt(country, { T: '100.00' }, 'payin');
  addReceipt(country, { T: '-20.00' }, 'payout');
  addCopy(country, '0.20');
  const day = dayOf(country);
  assert.equal(day.receipts, 11);
  assert.equal(day.net, '1.10');
  assert.deepEqual(day.returns, { n: 1, amt: '0.10' });
  assert.deepEqual(day.discounts, { n: 1, amt: '0.10' });
  assert.deepEqual(day.training, { n: 1, amt: '5.00' });
  assert.deepEqual(day.copies, { n: 1, amt: '0.20' });
  assert.deepEqual(day.payIns, { n: 1, amt: '100.00' });
  assert.deepEqual(day.payOuts, { n: 1, amt: '20.00' });
  assert.equal(day.drawer, 13, 'ten cash receipts, the refund, the pay-in and the pay-out');
  assert.deepEqual(day.pay, { cash: '1.00', creditcard: '0.20', refund: '-0.10' });
  assert.deepEqual(day.vat, { '25.00': '0.24' });
  assert.deepEqual(grandOf(country), { sales: '1.20', returns: '0.10' });
  const tags = Object.fromEntries(reportTags(day, grandOf(country)).map((t) => [t.Label, t.Value]));
  assert.equal(tags['Grand total netto'], '1.10');
  assert.equal(tags['Kreditkort'], '0.20');
  assert.equal(tags['Moms 25.00 %'], '0.24');

  closeDay(country);
  assert.equal(dayOf(country).receipts, 0);
  assert.deepEqual(dayOf(country).copies, { n: 0, amt: '0.00' });
  addReceipt(country, receipt('2.00', 'cash'), 'sale');
  assert.deepEqual(grandOf(country), { sales: '3.20', returns: '0.10' });
});

test('a receipt outside the sales paid in cash (an invoice paid at the register) opens the drawer, and is no sale', () => {
  const country: Record<string, string> = {};
  addReceipt(country, receipt('250.00', 'cash'), 'other');
  addReceipt(country, receipt('80.00', 'creditcard'), 'other');
  const day = dayOf(country);
  assert.equal(day.drawer, 1);
  assert.equal(day.receipts, 0);
  assert.equal(day.net, '0.00');
});
