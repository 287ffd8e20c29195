import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  type Dec,
  isDecimal,
  parseDec,
  dec,
  fmt,
  fmtMoney,
  round,
  rescale,
  add,
  sub,
  neg,
  mul,
  div,
  cmp,
  eq,
  sign,
  abs,
  sum,
  significantScale,
  taxOfGross,
  taxOfNet,
  allocate,
  ZERO,
} from './money.js';

const RUNS = { numRuns: 200 };

/** Arbitrary exact decimal: mantissa up to 15 digits, scale 0..6. */
const decArb: fc.Arbitrary<Dec> = fc.record({
  v: fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
  s: fc.integer({ min: 0, max: 6 }),
});

/** Canonical decimal text: no leading zeros, no sign on zero, no exponent, point as separator. */
const canonicalArb = fc
  .stringMatching(/^-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,12})?$/)
  .filter((t) => !/^-0(\.0+)?$/.test(t));

function same(a: Dec, b: Dec): void {
  assert.ok(eq(a, b), `${fmt(a)} != ${fmt(b)}`);
}

describe('parseDec', () => {
  test('parses the accepted forms exactly', () => {
    assert.deepEqual(parseDec('1.50'), { v: 150n, s: 2 });
    assert.deepEqual(parseDec('-0.05'), { v: -5n, s: 2 });
    assert.deepEqual(parseDec('.5'), { v: 5n, s: 1 });
    assert.deepEqual(parseDec('-.5'), { v: -5n, s: 1 });
    assert.deepEqual(parseDec('+2.0'), { v: 20n, s: 1 });
    assert.deepEqual(parseDec('-3'), { v: -3n, s: 0 });
    assert.deepEqual(parseDec('0'), { v: 0n, s: 0 });
    assert.deepEqual(parseDec('12345678901234.123456'), { v: 12345678901234123456n, s: 6 });
  });

  test('rejects exponents, commas and other non-decimal text', () => {
    for (const bad of ['1e3', '1E3', '1,50', '1.234,5', '', ' ', ' 1', '1 ', '1.', '.', '-', '+', 'abc', '0x10', '1.2.3', '--1', '+-1', 'Infinity', 'NaN', '١٢']) {
      assert.equal(parseDec(bad), undefined, `should reject ${JSON.stringify(bad)}`);
      assert.equal(isDecimal(bad), false, `isDecimal should reject ${JSON.stringify(bad)}`);
    }
  });

  test('the limits: 18 integer and 12 fraction digits, exact beyond what a number holds', () => {
    assert.deepEqual(parseDec('123456789012345678'), { v: 123456789012345678n, s: 0 });
    assert.deepEqual(parseDec('-123456789012345678.123456789012'), { v: -123456789012345678123456789012n, s: 12 });
    assert.deepEqual(parseDec('9007199254740993'), { v: 9007199254740993n, s: 0 });
    assert.deepEqual(parseDec('0000.10'), { v: 10n, s: 2 });
    assert.equal(parseDec('1234567890123456789'), undefined);
    assert.equal(parseDec('1.1234567890123'), undefined);
  });

  test('accepts exactly the decimal grammar [+-]?(digits(.digits)?|.digits) (property)', () => {
    const grammar = /^[+-]?(\d+(\.\d+)?|\.\d+)$/;
    fc.assert(
      fc.property(fc.stringMatching(/^[-+.0-9e, a]{0,22}$/), (text) => {
        const [int = '', frac = ''] = text.replace(/^[+-]/, '').split('.');
        const expected = grammar.test(text) && int.length <= 18 && frac.length <= 12;
        const d = parseDec(text);
        assert.equal(d !== undefined, expected, JSON.stringify(text));
        assert.equal(isDecimal(text), expected, `isDecimal ${JSON.stringify(text)}`);
        if (d) assert.equal(d.v, BigInt(text.replace('.', '').replace(/^\+/, '')));
      }),
      { numRuns: 2000 },
    );
  });

  test('dec throws on invalid text and returns the value otherwise', () => {
    assert.throws(() => dec('1,50'), /not a decimal/);
    assert.deepEqual(dec('7.25'), { v: 725n, s: 2 });
  });

  test('fmt(parseDec(x)) preserves canonical text (property)', () => {
    fc.assert(
      fc.property(canonicalArb, (text) => {
        const d = parseDec(text);
        assert.ok(d, `parseDec(${text}) failed`);
        assert.equal(fmt(d), text);
      }),
      RUNS,
    );
  });

  test('parseDec(fmt(d)) gives back the same mantissa and scale (property)', () => {
    fc.assert(
      fc.property(decArb, (d) => {
        assert.deepEqual(parseDec(fmt(d)), { v: d.v, s: d.s });
      }),
      RUNS,
    );
  });
});

describe('fmt and fmtMoney', () => {
  test('pads and rescales', () => {
    assert.equal(fmt(dec('1.5'), 2), '1.50');
    assert.equal(fmt(dec('-0.05')), '-0.05');
    assert.equal(fmt(dec('.5')), '0.5');
    assert.equal(fmt(dec('7'), 2), '7.00');
    assert.equal(fmt(dec('-7'), 3), '-7.000');
    assert.equal(fmt(dec('1.005'), 2), '1.01');
    assert.equal(fmt(dec('-1.005'), 2), '-1.01');
    assert.equal(fmt(dec('123.456'), 0), '123');
  });

  test('a value that rounds to zero has no minus sign', () => {
    assert.equal(fmt(dec('-0.004'), 2), '0.00');
  });

  test('fmtMoney keeps at least two decimals and more only when needed', () => {
    assert.equal(fmtMoney(dec('1.5')), '1.50');
    assert.equal(fmtMoney(dec('3')), '3.00');
    assert.equal(fmtMoney(dec('1.125')), '1.125');
    assert.equal(fmtMoney(dec('1.1000')), '1.10');
    assert.equal(fmtMoney(dec('-0.0500')), '-0.05');
  });

  test('significantScale drops trailing zeros', () => {
    assert.equal(significantScale(dec('1.500')), 1);
    assert.equal(significantScale(dec('2.000')), 0);
    assert.equal(significantScale(dec('0.125')), 3);
    assert.equal(significantScale(ZERO), 0);
  });
});

describe('round: half away from zero', () => {
  test('positive and negative halves go away from zero', () => {
    assert.equal(fmt(round(dec('0.125'), 2)), '0.13');
    assert.equal(fmt(round(dec('-0.125'), 2)), '-0.13');
    assert.equal(fmt(round(dec('2.5'), 0)), '3');
    assert.equal(fmt(round(dec('-2.5'), 0)), '-3');
    assert.equal(fmt(round(dec('0.5'), 0)), '1');
    assert.equal(fmt(round(dec('-0.5'), 0)), '-1');
  });

  test('below a half goes toward zero, above a half away from zero', () => {
    assert.equal(fmt(round(dec('0.124999'), 2)), '0.12');
    assert.equal(fmt(round(dec('-0.124999'), 2)), '-0.12');
    assert.equal(fmt(round(dec('0.125001'), 2)), '0.13');
    assert.equal(fmt(round(dec('-0.125001'), 2)), '-0.13');
    assert.equal(fmt(round(dec('-2.4'), 0)), '-2');
  });

  test('rounding to an equal or larger scale only rescales', () => {
    assert.deepEqual(round(dec('1.5'), 3), { v: 1500n, s: 3 });
    assert.deepEqual(rescale(dec('1.5'), 1), { v: 15n, s: 1 });
  });

  test('matches a reference implementation and is symmetric (property)', () => {
    fc.assert(
      fc.property(decArb, fc.integer({ min: 0, max: 6 }), (a, s) => {
        const r = round(a, s);
        assert.equal(r.s, s);
        if (s >= a.s) {
          assert.ok(eq(r, a));
        } else {
          const f = 10n ** BigInt(a.s - s);
          const absV = a.v < 0n ? -a.v : a.v;
          const q = (2n * absV + f) / (2n * f); // floor(|a| + 1/2) in units of the target scale
          assert.equal(r.v, a.v < 0n ? -q : q);
        }
        assert.ok(eq(round(neg(a), s), neg(r)), 'round(-a) must equal -round(a)');
      }),
      RUNS,
    );
  });
});

describe('arithmetic', () => {
  test('add, sub, neg, mul, cmp, eq, sign, abs, sum', () => {
    assert.equal(fmt(add(dec('1.5'), dec('0.25'))), '1.75');
    assert.equal(fmt(sub(dec('1'), dec('0.01'))), '0.99');
    assert.equal(fmt(mul(dec('1.5'), dec('-2.25'))), '-3.375');
    assert.equal(cmp(dec('1.50'), dec('1.5')), 0);
    assert.equal(cmp(dec('-1'), dec('0.5')), -1);
    assert.equal(cmp(dec('0.51'), dec('0.5')), 1);
    assert.ok(eq(dec('2'), dec('2.000')));
    assert.equal(sign(dec('-0.01')), -1);
    assert.equal(sign(dec('0.00')), 0);
    assert.equal(sign(dec('3')), 1);
    assert.equal(fmt(abs(dec('-4.20'))), '4.20');
    assert.equal(fmt(sum([dec('0.1'), dec('0.2'), dec('-0.05')])), '0.25');
    assert.ok(eq(sum([]), ZERO));
  });

  test('0.1 + 0.2 is exactly 0.3', () => {
    assert.ok(eq(add(dec('0.1'), dec('0.2')), dec('0.3')));
  });

  test('add and sub round trip (property)', () => {
    fc.assert(
      fc.property(decArb, decArb, (a, b) => {
        same(sub(add(a, b), b), a);
        same(add(sub(a, b), b), a);
        same(add(a, b), add(b, a));
        same(add(a, neg(a)), ZERO);
      }),
      RUNS,
    );
  });

  test('div rounds half away from zero with either sign', () => {
    assert.equal(fmt(div(dec('1'), dec('3'), 2)), '0.33');
    assert.equal(fmt(div(dec('2'), dec('3'), 2)), '0.67');
    assert.equal(fmt(div(dec('1'), dec('8'), 2)), '0.13');
    assert.equal(fmt(div(dec('-1'), dec('8'), 2)), '-0.13');
    assert.equal(fmt(div(dec('1'), dec('-8'), 2)), '-0.13');
    assert.equal(fmt(div(dec('-1'), dec('-8'), 2)), '0.13');
    assert.equal(fmt(div(dec('10.00'), dec('4'), 0)), '3');
    assert.equal(fmt(div(dec('0.0049'), dec('1'), 2)), '0.00');
    assert.throws(() => div(dec('1'), dec('0.00'), 2), /division by zero/);
  });

  test('div undoes mul exactly (property)', () => {
    fc.assert(
      fc.property(decArb, decArb.filter((b) => b.v !== 0n), (a, b) => {
        same(div(mul(a, b), b, a.s), a);
      }),
      RUNS,
    );
  });
});

describe('tax', () => {
  test('taxOfGross', () => {
    assert.equal(fmt(taxOfGross(dec('12.00'), dec('20'), 2)), '2.00');
    assert.equal(fmt(taxOfGross(dec('3.15'), dec('20'), 2)), '0.53'); // 0.525 rounds up
    assert.equal(fmt(taxOfGross(dec('-3.15'), dec('20'), 2)), '-0.53');
    assert.equal(fmt(taxOfGross(dec('11.00'), dec('10'), 2)), '1.00');
    assert.equal(fmt(taxOfGross(dec('10.70'), dec('7'), 2)), '0.70');
    assert.equal(fmt(taxOfGross(dec('5.00'), dec('0'), 2)), '0.00');
    assert.equal(fmt(taxOfGross(dec('100.00'), dec('10.7'), 2)), '9.67');
  });

  test('taxOfNet', () => {
    assert.equal(fmt(taxOfNet(dec('10.00'), dec('20'), 2)), '2.00');
    assert.equal(fmt(taxOfNet(dec('2.65'), dec('10'), 2)), '0.27'); // 0.265
    assert.equal(fmt(taxOfNet(dec('-2.65'), dec('10'), 2)), '-0.27');
  });

  test('net + tax of a gross amount gives the gross back (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }), fc.constantFrom('0', '5', '7', '10', '10.7', '13', '19', '20'), (cents, rate) => {
        const gross: Dec = { v: cents, s: 2 };
        const t = taxOfGross(gross, dec(rate), 2);
        assert.equal(t.s, 2);
        // the tax has the sign of the gross and is never larger than it
        assert.ok(sign(t) === 0 || sign(t) === sign(gross));
        assert.ok(cmp(abs(t), abs(gross)) <= 0);
        same(add(sub(gross, t), t), gross);
      }),
      RUNS,
    );
  });
});

describe('allocate', () => {
  test('splits proportionally, remainder to the largest weight', () => {
    assert.deepEqual(allocate(dec('10.00'), [dec('1'), dec('1'), dec('1')]).map((p) => fmt(p)), ['3.34', '3.33', '3.33']);
    assert.deepEqual(allocate(dec('-1.00'), [dec('10.00'), dec('5.00')]).map((p) => fmt(p)), ['-0.67', '-0.33']);
    assert.deepEqual(allocate(dec('1.00'), [dec('1'), dec('3')]).map((p) => fmt(p)), ['0.25', '0.75']);
    assert.deepEqual(allocate(dec('0.01'), [dec('1'), dec('1'), dec('2')]).map((p) => fmt(p)), ['0.00', '0.00', '0.01']);
  });

  test('edge cases: no weights, zero weights', () => {
    assert.deepEqual(allocate(dec('5.00'), []), []);
    assert.deepEqual(allocate(dec('5.00'), [dec('0'), dec('0')]).map((p) => fmt(p)), ['0.00', '5.00']);
  });

  test('the parts always sum to the total and keep its scale (property)', () => {
    const weight = fc.record({ v: fc.bigInt({ min: -(10n ** 8n), max: 10n ** 8n }), s: fc.integer({ min: 0, max: 3 }) });
    fc.assert(
      fc.property(decArb, fc.array(weight, { minLength: 1, maxLength: 8 }), (total, weights) => {
        const parts = allocate(total, weights);
        assert.equal(parts.length, weights.length);
        same(sum(parts), total);
        for (const p of parts) assert.equal(p.s, total.s);
      }),
      RUNS,
    );
  });

  test('with positive weights each part has the sign of the total (property)', () => {
    const weight = fc.bigInt({ min: 1n, max: 10n ** 6n }).map((v): Dec => ({ v, s: 2 }));
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 8n), max: 10n ** 8n }), fc.array(weight, { minLength: 1, maxLength: 6 }), (cents, weights) => {
        const total: Dec = { v: cents, s: 2 };
        for (const p of allocate(total, weights)) {
          assert.ok(sign(p) === 0 || sign(p) === sign(total));
        }
      }),
      RUNS,
    );
  });
});
