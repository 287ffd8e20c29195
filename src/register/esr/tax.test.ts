import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fmt } from '../../shared/money.js';
import type { Obj } from '../codec/index.js';
import { taxLettersFor } from '../fiscal/registry.js';
import { amountsPerTax, analyzePositions, completeTax, generateTaxA, isMod, isPos, resolveWithTaxA, resolveWithoutTaxA, sumOf } from './tax.js';
import { fiscalError } from '../../shared/testing.js';

const AT_LETTERS = taxLettersFor('AT');
const DE_LETTERS = taxLettersFor('DE');


const pos = (pn: string, taxG: string, amt: string): Obj => ({ _: 'Pos', PN: pn, Dsc: 'x', TaxG: taxG, Amt: amt });
const mod = (pn: string | undefined, amt: string): Obj => (pn === undefined ? { _: 'Mod', Amt: amt } : { _: 'Mod', PN: pn, Amt: amt });

describe('line kinds', () => {
  test('isPos and isMod', () => {
    assert.ok(isPos({ _: 'Pos' }));
    assert.ok(isPos({ _: 'Pos', PTY: 'Vou' }));
    assert.ok(!isPos({ _: 'Pos', PTY: 'Mod' }));
    assert.ok(isMod({ _: 'Pos', PTY: 'Mod' }));
    assert.ok(isMod({ _: 'Mod' }));
    assert.ok(!isPos({ _: 'Lin' }) && !isMod({ _: 'Lin' }));
  });
});

describe('analyzePositions', () => {
  test('assigns Mods by PN forms and keeps amounts exact', () => {
    const posA = [pos('1', 'A', '10.00'), pos('2', 'B', '5.00'), pos('3', 'A', '2.50'), mod('1-2', '-1.50'), mod('3', '-0.50'), mod('1 3', '0.25'), mod(undefined, '-0.10')];
    const info = analyzePositions(posA);
    assert.deepEqual(info.map((p) => [p.index, p.pn, fmt(p.amt), fmt(p.modified), p.groups]), [
      [0, '1', '10.00', '9.20', ['A']], // -1.00 (range), +0.20 (list)
      [1, '2', '5.00', '4.50', ['B']], // -0.50 (range)
      [2, '3', '2.50', '1.95', ['A']], // -0.50, +0.05 (list), -0.10 (previous)
    ]);
  });

  test('PN matching: 01 names position 1, non-numeric PNs match exactly', () => {
    const a = analyzePositions([pos('1', 'A', '4.00'), mod('01', '-1.00')]);
    assert.equal(fmt(a[0]?.modified ?? { v: 0n, s: 0 }), '3.00');
    const b = analyzePositions([pos('A1', 'A', '4.00'), pos('B2', 'A', '2.00'), mod('B2', '-1.00')]);
    assert.deepEqual(b.map((p) => fmt(p.modified)), ['4.00', '1.00']);
  });

  test('Lin lines are ignored and several tax groups are split on spaces', () => {
    const info = analyzePositions([{ _: 'Lin', Dsc: 'x', LAmt: '100' }, { _: 'Pos', PN: '1', TaxG: ' A  CT ', Amt: '1.00' }]);
    assert.equal(info.length, 1);
    assert.deepEqual(info[0]?.groups, ['A', 'CT']);
    assert.equal(info[0]?.index, 1);
  });

  test('a Mod naming no position is #MOD_TARGET', () => {
    for (const spec of ['4', '3-9', '1 4', 'X']) {
      const e = fiscalError(() => analyzePositions([pos('1', 'A', '1.00'), pos('2', 'A', '1.00'), mod(spec, '-0.10')]));
      assert.equal(e.code, '#MOD_TARGET', spec);
      assert.equal(e.params.field, 'ESR.PosA[2].PN');
    }
  });
});

describe('resolving tax groups', () => {
  test('without TaxA: letter, percentage mapped to a letter, other percentage kept', () => {
    assert.deepEqual(resolveWithoutTaxA('B', AT_LETTERS, 'f'), { taxG: 'B', prc: '10' });
    assert.deepEqual(resolveWithoutTaxA('20%', AT_LETTERS, 'f'), { taxG: 'A', prc: '20' });
    assert.deepEqual(resolveWithoutTaxA('10.7%', DE_LETTERS, 'f'), { taxG: 'C', prc: '10.7' });
    assert.equal(resolveWithoutTaxA('20.00%', AT_LETTERS, 'f').taxG, 'A');
    assert.equal(resolveWithoutTaxA('0%', AT_LETTERS, 'f').taxG, 'D');
    const e = fiscalError(() => resolveWithoutTaxA('Z', AT_LETTERS, 'ESR.PosA[3].TaxG'));
    assert.equal(e.code, '#TAX_GROUP');
    assert.equal(e.params.field, 'ESR.PosA[3].TaxG');
    assert.equal(fiscalError(() => resolveWithoutTaxA('7,5%', AT_LETTERS, 'f')).code, '#TAX_GROUP');
  });

  test('with TaxA: direct link first, then by rate of letter or percentage', () => {
    const taxA: Obj[] = [
      { _: 'Tax', TaxG: 'Food', Prc: '10', Amt: '1.00' },
      { _: 'Tax', TaxG: 'CT', TTY: 'CT', Prc: '20', Amt: '0.10' },
      { _: 'Tax', TaxG: 'Std', Prc: '20.00', Amt: '1.00' },
    ];
    assert.equal(resolveWithTaxA('Food', taxA, AT_LETTERS, 'f'), 0);
    assert.equal(resolveWithTaxA('CT', taxA, AT_LETTERS, 'f'), 1);
    assert.equal(resolveWithTaxA('A', taxA, AT_LETTERS, 'f'), 2, 'letter A (20) matches the VAT element with Prc 20, not the CT one');
    assert.equal(resolveWithTaxA('20%', taxA, AT_LETTERS, 'f'), 2);
    assert.equal(resolveWithTaxA('B', taxA, AT_LETTERS, 'f'), 0);
    assert.equal(fiscalError(() => resolveWithTaxA('C', taxA, AT_LETTERS, 'f')).code, '#TAX_GROUP');
    assert.equal(fiscalError(() => resolveWithTaxA('Drinks', taxA, AT_LETTERS, 'f')).code, '#TAX_GROUP');
  });
});

describe('generateTaxA, completeTax, amountsPerTax, sumOf', () => {
  test('generateTaxA groups by resolved letter in order of first use', () => {
    const out = generateTaxA([pos('1', 'B', '1.10'), pos('2', '20%', '1.20'), pos('3', 'A', '2.40')], AT_LETTERS, false);
    assert.deepEqual(out, [
      { _: 'Tax', TaxG: 'B', Prc: '10.00', Net: '1.00', TAmt: '0.10', Amt: '1.10' },
      { _: 'Tax', TaxG: 'A', Prc: '20.00', Net: '3.00', TAmt: '0.60', Amt: '3.60' },
    ]);
  });

  test('generateTaxA keeps a finer scale of the amounts', () => {
    const [t] = generateTaxA([pos('1', 'A', '1.205')], AT_LETTERS, false);
    assert.equal(t?.Amt, '1.205');
    assert.equal(t?.TAmt, '0.201');
    assert.equal(t?.Net, '1.004');
  });

  test('generateTaxA with DE letters uses decimal rates', () => {
    const [t] = generateTaxA([pos('1', 'C', '110.70')], DE_LETTERS, false);
    assert.deepEqual(t, { _: 'Tax', TaxG: 'C', Prc: '10.70', Net: '100.00', TAmt: '10.70', Amt: '110.70' });
  });

  test('completeTax fills Net and TAmt, leaves TTY elements and complete ones alone', () => {
    const a: Obj = { _: 'Tax', TaxG: 'A', Prc: '20', Amt: '3.15' };
    completeTax(a);
    assert.equal(a.TAmt, '0.53');
    assert.equal(a.Net, '2.62');
    const b: Obj = { _: 'Tax', TaxG: 'A', Prc: '20', Amt: '12.00', Net: '10.00', TAmt: '2.00' };
    completeTax(b);
    assert.deepEqual(b, { _: 'Tax', TaxG: 'A', Prc: '20', Amt: '12.00', Net: '10.00', TAmt: '2.00' });
    const c: Obj = { _: 'Tax', TaxG: 'CT', TTY: 'CT', Prc: '3', Base: '10.00', Amt: '0.30' };
    completeTax(c);
    assert.equal(c.Net, undefined);
    assert.equal(c.TAmt, undefined);
  });

  test('amountsPerTax sums the modified positions per element', () => {
    const posA = [pos('1', 'X', '10.00'), pos('2', 'Y', '5.00'), mod('*', '-3.00')];
    const taxA: Obj[] = [{ _: 'Tax', TaxG: 'X', Prc: '20', Amt: '8.00' }, { _: 'Tax', TaxG: 'Y', Prc: '10', Amt: '4.00' }];
    assert.deepEqual(amountsPerTax(analyzePositions(posA), taxA, AT_LETTERS).map((d) => fmt(d)), ['8.00', '4.00']);
  });

  test('sumOf with a filter', () => {
    const taxA: Obj[] = [{ Amt: '1.10' }, { Amt: '2.2', TTY: 'CT' }, { Amt: '-0.05' }];
    assert.equal(fmt(sumOf(taxA, 'Amt')), '3.25');
    assert.equal(fmt(sumOf(taxA, 'Amt', (t) => t.TTY === undefined)), '1.05');
  });
});
