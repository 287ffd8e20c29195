import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { type Dec, add, dec, eq, fmt, parseDec, sub, taxOfGross, ZERO } from '../../shared/money.js';
import type { Obj } from '../codec/index.js';
import { taxLettersFor } from '../fiscal/registry.js';
import { GENERIC_LETTERS } from '../fiscal/tax-letters.js';
import { formatLocalDateTime } from './datetime.js';
import { identityOf, normalizeTra, type NormalizeContext, type Normalized } from './normalize.js';
import { analyzePositions } from './tax.js';
import { checkRules, checkShape } from './validate.js';
import { fiscalError } from '../../shared/testing.js';

const AT_LETTERS = taxLettersFor('AT');

const NOW = new Date(2026, 10, 21, 9, 5, 7); // local 2026-11-21T09:05:07

function context(calls: Array<[string, string, number]> = []): NormalizeContext {
  return {
    now: NOW,
    letters: AT_LETTERS,
    nextTn(tl, tt, year) {
      calls.push([tl, tt, year]);
      return '17';
    },
  };
}

/** Shape check, then normalization, as the pipeline does. */
function normalize(esr: Obj, ctx: NormalizeContext = context()): Normalized {
  return normalizeTra(checkShape('Tra', { ESR: esr }), ctx);
}

/** Normalizes and runs the validation rules; returns the normalized ESR. */
function valid(esr: Obj): Obj {
  const n = normalize(esr);
  checkRules(n.esr, { now: NOW, normalizeDays: 7, letters: AT_LETTERS, nonFiscal: false });
  return n.esr;
}


const pos = (extra: Obj): Obj => ({ _: 'Pos', Dsc: 'Article', ...extra });
const mod = (extra: Obj): Obj => ({ _: 'Mod', Dsc: 'Discount', ...extra });
const cash = (amt: string): Obj => ({ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: amt });

function taxA(esr: Obj): Obj[] {
  const t = esr.TaxA;
  assert.ok(Array.isArray(t), 'TaxA must be generated');
  return t as Obj[];
}

function taxByGroup(esr: Obj): Record<string, Obj> {
  return Object.fromEntries(taxA(esr).map((t) => [t.TaxG as string, t]));
}

/** Per tax group (letter), the sum of the Mod-modified position amounts. */
function modifiedPerGroup(esr: Obj): Map<string, Dec> {
  const out = new Map<string, Dec>();
  for (const p of analyzePositions(esr.PosA as Obj[])) {
    for (const g of p.groups) out.set(g, add(out.get(g) ?? ZERO, p.modified));
  }
  return out;
}

describe('identity and defaults', () => {
  test('D defaults to ctx.now formatted as local date-time and is marked generated', () => {
    const n = normalize({ PosA: [pos({ TaxG: 'A', Amt: '1.00' })], PayA: [cash('1.00')] });
    assert.equal(n.esr.D, '2026-11-21T09:05:07');
    assert.equal(n.esr.D, formatLocalDateTime(NOW));
    assert.equal(n.generated.D, true);
  });

  test('a given D and TN are kept', () => {
    const calls: Array<[string, string, number]> = [];
    const n = normalize({ D: '2026-11-20T08:00:00', TN: '5', PosA: [pos({ TaxG: 'A', Amt: '1.00' })] }, context(calls));
    assert.equal(n.esr.D, '2026-11-20T08:00:00');
    assert.equal(n.esr.TN, '5');
    assert.deepEqual(n.generated, { D: false, TN: false });
    assert.deepEqual(calls, []);
  });

  test('TT defaults to 1', () => {
    const n = normalize({ PosA: [pos({ TaxG: 'A', Amt: '1.00' })] });
    assert.equal(n.esr.TT, '1');
    assert.equal(n.esr.TL, undefined);
  });

  test('TL is split from TT written as TL/TT', () => {
    const n = normalize({ TT: '001/3', PosA: [pos({ TaxG: 'A', Amt: '1.00' })] });
    assert.equal(n.esr.TL, '001');
    assert.equal(n.esr.TT, '3');
    assert.deepEqual(identityOf({ TT: 'a/b/c' }), { tl: 'a/b', tt: 'c' });
    assert.deepEqual(identityOf({ TL: 'X', TT: '1/2' }), { tl: 'X', tt: '1/2' });
    assert.deepEqual(identityOf({}), { tl: '', tt: '1' });
  });

  test('TN comes from ctx.nextTn with TL, TT and the year of D', () => {
    const calls: Array<[string, string, number]> = [];
    const n = normalize({ TT: '7/2', D: '2025-12-31T23:59:59', PosA: [pos({ TaxG: 'A', Amt: '1.00' })] }, context(calls));
    assert.equal(n.esr.TN, '17');
    assert.equal(n.generated.TN, true);
    assert.deepEqual(calls, [['7', '2', 2025]]);
  });

  test('the year for TN is that of the generated D when D is missing', () => {
    const calls: Array<[string, string, number]> = [];
    normalize({ TL: 'L', PosA: [pos({ TaxG: 'A', Amt: '1.00' })] }, context(calls));
    assert.deepEqual(calls, [['L', '1', 2026]]);
  });
});

describe('positions', () => {
  test('Qty defaults to the sign of Amt and Pri is set when Qty is 1 or -1', () => {
    const n = normalize({ PosA: [pos({ TaxG: 'A', Amt: '3.50' }), pos({ TaxG: 'A', Amt: '-2.5' }), pos({ TaxG: 'A', Amt: '0.00' })] });
    const [a, b, c] = n.esr.PosA as Obj[];
    assert.equal(a?.Qty, '1');
    assert.equal(a?.Pri, '3.50');
    assert.equal(b?.Qty, '-1');
    assert.equal(b?.Pri, '2.50');
    assert.equal(c?.Qty, '1');
    assert.equal(c?.Pri, '0.00');
  });

  test('Pri is derived for a given Qty of 1 or -1 but not for other quantities', () => {
    const n = normalize({ PosA: [pos({ TaxG: 'A', Amt: '-4.00', Qty: '-1' }), pos({ TaxG: 'A', Amt: '6.00', Qty: '2' }), pos({ TaxG: 'A', Amt: '1.25', Qty: '1.000' })] });
    const [a, b, c] = n.esr.PosA as Obj[];
    assert.equal(a?.Pri, '4.00');
    assert.equal(b?.Qty, '2');
    assert.equal(b?.Pri, undefined);
    assert.equal(c?.Pri, '1.25');
  });

  test('a given Pri is not replaced', () => {
    const n = normalize({ PosA: [pos({ TaxG: 'A', Amt: '3.00', Qty: '1', Pri: '3.0000' })] });
    assert.equal((n.esr.PosA as Obj[])[0]?.Pri, '3.0000');
  });

  test('PN is numbered by the order of the positions when missing (Mod and Lin do not count)', () => {
    const n = normalize({
      PosA: [pos({ TaxG: 'A', Amt: '1.00' }), { _: 'Lin', Dsc: 'text' }, pos({ TaxG: 'A', Amt: '2.00' }), mod({ Amt: '-0.50' }), pos({ TaxG: 'B', Amt: '3.00' })],
    });
    const posA = n.esr.PosA as Obj[];
    assert.deepEqual(posA.map((l) => l.PN), ['1', undefined, '2', undefined, '3']);
  });

  test('a given PN is kept', () => {
    const n = normalize({ PosA: [pos({ PN: '10', TaxG: 'A', Amt: '1.00' }), pos({ TaxG: 'A', Amt: '2.00' })] });
    assert.equal((n.esr.PosA as Obj[])[0]?.PN, '10');
    assert.equal((n.esr.PosA as Obj[])[1]?.PN, '2');
  });
});

describe('payments, Head and Foot', () => {
  test('a Pay without PayG is cash, with a warning', () => {
    const n = normalize({ PosA: [pos({ TaxG: 'A', Amt: '5.00' })], PayA: [{ _: 'Pay', Dsc: 'Bar', Amt: '3.00' }, cash('2.00')] });
    const payA = n.esr.PayA as Obj[];
    assert.equal(payA[0]?.PayG, 'cash');
    assert.equal(payA[1]?.PayG, 'cash');
    assert.equal(n.warnings.length, 1);
    assert.match(n.warnings[0] ?? '', /PayA\[0\]/);
    assert.match(n.warnings[0] ?? '', /cash/);
  });

  test('no warnings when every Pay has PayG', () => {
    const n = normalize({ PosA: [pos({ TaxG: 'A', Amt: '5.00' })], PayA: [{ _: 'Pay', Dsc: 'Card', PayG: 'creditcard', Amt: '5.00' }] });
    assert.deepEqual(n.warnings, []);
    assert.equal((n.esr.PayA as Obj[])[0]?.PayG, 'creditcard');
  });

  test('Head and Foot in array form become {Txt}', () => {
    const n = normalize({ Head: [{ _: 'Txt', value: 'Welcome' }] as unknown as Obj[], Foot: [{ _: 'Txt', value: 'Thank you' }, { _: 'Txt', value: 'Bye' }] as unknown as Obj[], PosA: [pos({ TaxG: 'A', Amt: '1.00' })] });
    assert.deepEqual(n.esr.Head, { Txt: 'Welcome' });
    const foot = n.esr.Foot as Obj;
    assert.equal(typeof foot.Txt, 'string');
    assert.ok((foot.Txt as string).includes('Thank you') && (foot.Txt as string).includes('Bye'));
    assert.ok((foot.Txt as string).indexOf('Thank you') < (foot.Txt as string).indexOf('Bye'));
  });

  test('Head in object form is kept', () => {
    const n = normalize({ Head: { Txt: 'Hello' }, PosA: [pos({ TaxG: 'A', Amt: '1.00' })] });
    assert.deepEqual(n.esr.Head, { Txt: 'Hello' });
  });
});

describe('tax group letters', () => {
  test('the AT and DE tables match the compat notes', () => {
    assert.deepEqual(taxLettersFor('AT'), { A: '20', B: '10', C: '13', D: '0', E: '19', F: '7', G: '5' });
    assert.deepEqual(taxLettersFor('de'), { A: '19', B: '7', C: '10.7', D: '5.5', E: '0', H: '16', I: '5', J: '9.5' });
  });

  test('a register without a country, or of a country without a module, has the generic (Austrian) table', () => {
    assert.equal(taxLettersFor(''), GENERIC_LETTERS);
    assert.equal(taxLettersFor('IT'), GENERIC_LETTERS);
    assert.deepEqual(GENERIC_LETTERS, taxLettersFor('AT'));
  });
});

describe('TaxA generation', () => {
  test('method 1: by letter, one Tax per group with tax computed from the gross', () => {
    const esr = valid({
      PosA: [pos({ TaxG: 'A', Amt: '12.00' }), pos({ TaxG: 'B', Amt: '11.00' }), pos({ TaxG: 'C', Amt: '11.30' }), pos({ TaxG: 'D', Amt: '5.00' }), pos({ TaxG: 'A', Amt: '3.15' })],
      PayA: [cash('42.45')],
    });
    assert.equal(esr.T, '42.45');
    assert.deepEqual(taxA(esr), [
      { _: 'Tax', TaxG: 'A', Prc: '20.00', Net: '12.62', TAmt: '2.53', Amt: '15.15' },
      { _: 'Tax', TaxG: 'B', Prc: '10.00', Net: '10.00', TAmt: '1.00', Amt: '11.00' },
      { _: 'Tax', TaxG: 'C', Prc: '13.00', Net: '10.00', TAmt: '1.30', Amt: '11.30' },
      { _: 'Tax', TaxG: 'D', Prc: '0.00', Net: '5.00', TAmt: '0.00', Amt: '5.00' },
    ]);
  });

  test('every AT letter gives its rate', () => {
    for (const [letter, rate] of Object.entries(AT_LETTERS)) {
      const esr = valid({ PosA: [pos({ TaxG: letter, Amt: '100.00' })], PayA: [cash('100.00')] });
      const [t] = taxA(esr);
      assert.equal(t?.TaxG, letter);
      assert.ok(eq(dec(t?.Prc as string), dec(rate)), `${letter}: ${String(t?.Prc)} != ${rate}`);
      assert.equal(t?.TAmt, fmt(taxOfGross(dec('100.00'), dec(rate), 2)));
    }
  });

  test('method 2: by percentage, matched to the letter of that rate', () => {
    const esr = valid({ PosA: [pos({ TaxG: '20%', Amt: '12.00' }), pos({ TaxG: '13%', Amt: '11.30' }), pos({ TaxG: 'A', Amt: '6.00' })], PayA: [cash('29.30')] });
    const byG = taxByGroup(esr);
    assert.deepEqual(Object.keys(byG).sort(), ['A', 'C']);
    assert.equal(byG.A?.Amt, '18.00');
    assert.equal(byG.A?.TAmt, '3.00');
    assert.ok(eq(dec(byG.A?.Prc as string), dec('20')));
    assert.equal(byG.C?.TAmt, '1.30');
  });

  test('method 3: Pos.TaxG links to a TaxA element of any name; Net and TAmt are completed', () => {
    const esr = valid({
      PosA: [pos({ TaxG: 'Food7', Amt: '10.70' }), pos({ TaxG: 'Zero1', Amt: '2.00' }), pos({ TaxG: 'Zero2', Amt: '3.00' })],
      TaxA: [
        { _: 'Tax', TaxG: 'Food7', Prc: '7', Amt: '10.70' },
        { _: 'Tax', TaxG: 'Zero1', Prc: '0', Amt: '2.00' },
        { _: 'Tax', TaxG: 'Zero2', Prc: '0', Amt: '3.00' },
      ],
      PayA: [cash('15.70')],
    });
    assert.equal(esr.T, '15.70');
    const byG = taxByGroup(esr);
    assert.equal(byG.Food7?.TAmt, '0.70');
    assert.equal(byG.Food7?.Net, '10.00');
    assert.equal(byG.Zero1?.Net, '2.00');
    assert.equal(byG.Zero2?.TAmt, '0.00');
    assert.equal(taxA(esr).length, 3, 'two 0% groups stay separate');
  });

  test('method 3: a link named like a letter uses the rate of the TaxA element', () => {
    const esr = valid({ PosA: [pos({ TaxG: 'A', Amt: '11.00' })], TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '10', Amt: '11.00' }], PayA: [cash('11.00')] });
    assert.equal(taxA(esr)[0]?.TAmt, '1.00');
  });

  test('a given TaxA keeps given Net or TAmt and completes the other', () => {
    const esr = valid({
      PosA: [pos({ TaxG: 'X', Amt: '12.00' }), pos({ TaxG: 'Y', Amt: '11.00' })],
      TaxA: [{ _: 'Tax', TaxG: 'X', Prc: '20', Net: '10.00', Amt: '12.00' }, { _: 'Tax', TaxG: 'Y', Prc: '10', TAmt: '1.00', Amt: '11.00' }],
      PayA: [cash('23.00')],
    });
    assert.equal(taxByGroup(esr).X?.TAmt, '2.00');
    assert.equal(taxByGroup(esr).Y?.Net, '10.00');
  });

  test('an unknown letter is #TAX_GROUP naming the field', () => {
    const e = fiscalError(() => normalize({ PosA: [pos({ TaxG: 'A', Amt: '1.00' }), pos({ TaxG: 'Z', Amt: '1.00' })] }));
    assert.equal(e.code, '#TAX_GROUP');
    assert.match(e.message, /ESR\.PosA\[1\]\.TaxG/);
    assert.match(e.message, /"Z"/);
  });

  test('TaxN=1: positions are net and the tax is added', () => {
    const esr = valid({ TaxN: '1', PosA: [pos({ TaxG: 'A', Amt: '10.00' }), pos({ TaxG: '10%', Amt: '5.00' }), pos({ TaxG: 'B', Amt: '2.65' })], PayA: [cash('20.42')] });
    const byG = taxByGroup(esr);
    assert.deepEqual(byG.A, { _: 'Tax', TaxG: 'A', Prc: '20.00', Net: '10.00', TAmt: '2.00', Amt: '12.00' });
    assert.deepEqual(byG.B, { _: 'Tax', TaxG: 'B', Prc: '10.00', Net: '7.65', TAmt: '0.77', Amt: '8.42' });
    assert.equal(esr.T, '20.42');
  });

  test('TaxN=1: paying the net sum is refused', () => {
    const n = normalize({ TaxN: '1', PosA: [pos({ TaxG: 'A', Amt: '10.00' })], PayA: [cash('10.00')] });
    assert.equal(n.esr.T, '12.00');
    const e = fiscalError(() => checkRules(n.esr, { now: NOW, normalizeDays: 7, letters: AT_LETTERS, nonFiscal: false }));
    assert.equal(e.code, '#PAY_SUM');
  });
});

describe('Mods', () => {
  function check(esr: Obj, expected: Record<string, string>, total: string): void {
    const out = valid(esr);
    assert.equal(out.T, total);
    const byG = taxByGroup(out);
    assert.deepEqual(Object.fromEntries(Object.entries(byG).map(([g, t]) => [g, t.Amt])), expected);
    // the generated tax element amounts equal the modified position amounts per group
    for (const [g, amount] of modifiedPerGroup(out)) {
      assert.ok(eq(parseDec(byG[g]?.Amt as string) as Dec, amount), `group ${g}`);
    }
    // and Net + TAmt = Amt, TAmt = tax of the gross
    for (const t of taxA(out)) {
      const amt = dec(t.Amt as string);
      assert.ok(eq(add(dec(t.Net as string), dec(t.TAmt as string)), amt));
      assert.ok(eq(dec(t.TAmt as string), taxOfGross(amt, dec(t.Prc as string), 2)));
    }
  }

  test('single PN', () => {
    check({ PosA: [pos({ TaxG: 'A', Amt: '10.00' }), pos({ TaxG: 'B', Amt: '5.00' }), mod({ PN: '1', Amt: '-1.00' })], PayA: [cash('14.00')] }, { A: '9.00', B: '5.00' }, '14.00');
  });

  test('range 1-3 (proportional split, exact sum)', () => {
    check(
      { PosA: [pos({ TaxG: 'A', Amt: '10.00' }), pos({ TaxG: 'B', Amt: '5.00' }), pos({ TaxG: 'A', Amt: '2.00' }), pos({ TaxG: 'B', Amt: '7.00' }), mod({ PN: '1-3', Amt: '-1.70' })], PayA: [cash('22.30')] },
      { A: '10.80', B: '11.50' },
      '22.30',
    );
  });

  test('space separated list 1 3', () => {
    check({ PosA: [pos({ TaxG: 'A', Amt: '10.00' }), pos({ TaxG: 'B', Amt: '10.00' }), pos({ TaxG: 'B', Amt: '10.00' }), mod({ PN: '1 3', Amt: '-2.00' })], PayA: [cash('28.00')] }, { A: '9.00', B: '19.00' }, '28.00');
  });

  test('* applies to all positions', () => {
    check({ PosA: [pos({ TaxG: 'A', Amt: '10.00' }), pos({ TaxG: 'B', Amt: '5.00' }), mod({ PN: '*', Amt: '-1.00' })], PayA: [cash('14.00')] }, { A: '9.33', B: '4.67' }, '14.00');
  });

  test('default: the previous position', () => {
    check({ PosA: [pos({ TaxG: 'A', Amt: '10.00' }), pos({ TaxG: 'B', Amt: '5.00' }), mod({ Amt: '-1.00' })], PayA: [cash('14.00')] }, { A: '10.00', B: '4.00' }, '14.00');
  });

  test('a markup (positive Mod) and a Pos with PTY Mod', () => {
    check({ PosA: [pos({ TaxG: 'A', Amt: '10.00' }), mod({ Amt: '0.50' }), pos({ TaxG: 'B', Amt: '5.00' }), { _: 'Pos', PTY: 'Mod', PN: '2', Dsc: 'rebate', Amt: '-0.50' }], PayA: [cash('15.00')] }, { A: '10.50', B: '4.50' }, '15.00');
  });

  test('odd splits keep every cent: 3 equal positions, -1.00', () => {
    check({ PosA: [pos({ TaxG: 'A', Amt: '1.00' }), pos({ TaxG: 'B', Amt: '1.00' }), pos({ TaxG: 'C', Amt: '1.00' }), mod({ PN: '*', Amt: '-1.00' })], PayA: [cash('2.00')] }, { A: '0.66', B: '0.67', C: '0.67' }, '2.00');
  });

  test('a Mod may name a position that comes after it', () => {
    check({ PosA: [mod({ PN: '2', Amt: '-1.00' }), pos({ TaxG: 'A', Amt: '10.00' }), pos({ TaxG: 'B', Amt: '5.00' })], PayA: [cash('14.00')] }, { A: '10.00', B: '4.00' }, '14.00');
  });

  test('a Mod for all positions (*) without any position is refused, not dropped', () => {
    const esr: Obj = { PosA: [mod({ PN: '*', Amt: '-1.00' })], PayA: [cash('-1.00')] };
    const e = fiscalError(() => {
      const n = normalize(esr);
      checkRules(n.esr, { now: NOW, normalizeDays: 7, letters: AT_LETTERS, nonFiscal: false });
    });
    assert.equal(e.code, '#MOD_TARGET');
  });

  test('a Mod naming no position is #MOD_TARGET naming its field', () => {
    const e = fiscalError(() => normalize({ PosA: [pos({ TaxG: 'A', Amt: '10.00' }), mod({ PN: '9', Amt: '-1.00' })] }));
    assert.equal(e.code, '#MOD_TARGET');
    assert.match(e.message, /ESR\.PosA\[1\]\.PN/);
    assert.match(e.message, /"9"/);
  });

  test('a Mod before any position without PN is #MOD_TARGET', () => {
    const e = fiscalError(() => normalize({ PosA: [mod({ Amt: '-1.00' }), pos({ TaxG: 'A', Amt: '10.00' })] }));
    assert.equal(e.code, '#MOD_TARGET');
    assert.match(e.message, /ESR\.PosA\[0\]\.PN/);
  });

  test('T defaults to the modified position sum, Lin amounts are ignored', () => {
    const n = normalize({ PosA: [pos({ TaxG: 'A', Amt: '10.00' }), { _: 'Lin', Dsc: 'Deposit', LAmt: '99.99' }, mod({ Amt: '-0.25' })] });
    assert.equal(n.esr.T, '9.75');
    assert.ok(eq(sub(dec('10.00'), dec('0.25')), dec(n.esr.T as string)));
  });

  test('T defaults to the TaxA sum when there are no positions', () => {
    const n = normalize({ TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: '12.00' }, { _: 'Tax', TaxG: 'B', Prc: '10', Amt: '1.10' }] });
    assert.equal(n.esr.T, '13.10');
  });
});
