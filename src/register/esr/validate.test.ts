import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalError } from '../../shared/errors.js';
import type { Obj } from '../codec/index.js';
import { taxLettersFor } from '../fiscal/registry.js';
import { normalizeTra } from './normalize.js';
import { checkRules, checkShape, type RuleContext } from './validate.js';
import { fiscalError } from '../../shared/testing.js';

const AT_LETTERS = taxLettersFor('AT');

const NOW = new Date(2026, 10, 21, 12, 0, 0); // local 2026-11-21T12:00:00


function shapeError(esr: Obj): FiscalError {
  return fiscalError(() => checkShape('Tra', { ESR: esr }));
}

function rules(esr: Obj, ctx: Partial<RuleContext> = {}): void {
  const shaped = checkShape('Tra', { ESR: esr });
  const { esr: normalized } = normalizeTra(shaped, { now: NOW, letters: AT_LETTERS, nextTn: () => '1' });
  checkRules(normalized, { now: NOW, normalizeDays: 7, letters: AT_LETTERS, nonFiscal: false, ...ctx });
}

function rulesError(esr: Obj, ctx: Partial<RuleContext> = {}): FiscalError {
  return fiscalError(() => rules(esr, ctx));
}

/** The German message differs from the English one and names the same field. */
function assertLocalized(e: FiscalError, field: string): void {
  const en = e.localized('en');
  const de = e.localized('de');
  assert.equal(en, e.message);
  assert.notEqual(de, en);
  assert.ok(en.includes(field), `en message ${JSON.stringify(en)} must name ${field}`);
  assert.ok(de.includes(field), `de message ${JSON.stringify(de)} must name ${field}`);
  assert.ok(!/\{\w+\}/.test(de), `unfilled placeholder in ${de}`);
  assert.ok(!/\{\w+\}/.test(en), `unfilled placeholder in ${en}`);
}

const pos = (extra: Obj): Obj => ({ _: 'Pos', Dsc: 'Article', TaxG: 'A', Amt: '10.00', ...extra });
const cash = (amt: string): Obj => ({ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: amt });

describe('checkShape', () => {
  test('returns the ESR with default line types and single lines wrapped in arrays', () => {
    const esr = checkShape('Tra', { ESR: { PosA: { Dsc: 'x', TaxG: 'A', Amt: '1.00' }, PayA: [{ Dsc: 'c', Amt: '1.00' }] } });
    assert.deepEqual(esr.PosA, [{ _: 'Pos', Dsc: 'x', TaxG: 'A', Amt: '1.00' }]);
    assert.deepEqual(esr.PayA, [{ _: 'Pay', Dsc: 'c', Amt: '1.00' }]);
  });

  test('a missing ESR is #MISSING_FIELD', () => {
    const e = fiscalError(() => checkShape('Tra', {}));
    assert.equal(e.code, '#MISSING_FIELD');
    assert.match(e.message, /Tra\.ESR/);
  });

  test('a bad amount names its field', () => {
    const e = shapeError({ PosA: [pos({}), pos({ Amt: '1,50' })] });
    assert.equal(e.code, '#INVALID_AMOUNT');
    assert.equal(e.params.field, 'ESR.PosA[1].Amt');
    assert.match(e.message, /ESR\.PosA\[1\]\.Amt/);
    assert.match(e.message, /1,50/);
    assertLocalized(e, 'ESR.PosA[1].Amt');
  });

  test('amounts with exponents are refused', () => {
    const e = shapeError({ T: '1e3', PosA: [pos({})] });
    assert.equal(e.code, '#INVALID_AMOUNT');
    assert.equal(e.params.field, 'ESR.T');
    assert.equal(shapeError({ PayA: [cash('1E2')] }).params.field, 'ESR.PayA[0].Amt');
  });

  test('D without seconds is #INVALID_DATE', () => {
    for (const d of ['2026-11-21T12:00', '2026-11-21 12:00:00', '2026-11-21', '2026-11-21T12:00:00Z', '2026-02-30T12:00:00', '2026-11-21T24:00:00']) {
      const e = shapeError({ D: d, PosA: [pos({})] });
      assert.equal(e.code, '#INVALID_DATE', d);
      assert.equal(e.params.field, 'ESR.D');
    }
    assertLocalized(shapeError({ D: '2026-11-21T12:00' }), 'ESR.D');
  });

  test('a Pos without Dsc is #MISSING_FIELD', () => {
    const e = shapeError({ PosA: [{ _: 'Pos', TaxG: 'A', Amt: '1.00' }] });
    assert.equal(e.code, '#MISSING_FIELD');
    assert.equal(e.params.field, 'ESR.PosA[0].Dsc');
    assertLocalized(e, 'ESR.PosA[0].Dsc');
  });

  test('mandatory fields of each line type', () => {
    assert.equal(shapeError({ PosA: [{ _: 'Pos', Dsc: 'x', Amt: '1.00' }] }).params.field, 'ESR.PosA[0].TaxG');
    assert.equal(shapeError({ PosA: [{ _: 'Pos', Dsc: 'x', TaxG: 'A' }] }).params.field, 'ESR.PosA[0].Amt');
    assert.equal(shapeError({ PosA: [pos({}), { _: 'Mod', Dsc: 'x' }] }).params.field, 'ESR.PosA[1].Amt');
    assert.equal(shapeError({ PayA: [{ _: 'Pay', Amt: '1.00' }] }).params.field, 'ESR.PayA[0].Dsc');
    assert.equal(shapeError({ TaxA: [{ _: 'Tax', TaxG: 'A', Amt: '1.00' }] }).params.field, 'ESR.TaxA[0].Prc');
    assert.equal(shapeError({ PosA: [{ _: 'Pos', Dsc: '', TaxG: 'A', Amt: '1.00' }] }).code, '#MISSING_FIELD');
    // a Mod and a Pos with PTY Mod need only Amt
    checkShape('Tra', { ESR: { PosA: [pos({}), { _: 'Mod', Amt: '-1.00' }, { _: 'Pos', PTY: 'Mod', Amt: '-1.00' }] } });
  });

  test('the POS sending FN is #FN_GIVEN', () => {
    const e = shapeError({ FN: '123', PosA: [pos({})] });
    assert.equal(e.code, '#FN_GIVEN');
    assert.equal(e.rc, 'BAD');
    assert.notEqual(e.localized('de'), e.localized('en'));
    assert.match(e.localized('de'), /ESR\.FN/);
  });

  test('type errors of other fields', () => {
    const cases: Array<[Obj, string]> = [
      [{ Void: 'true' }, 'ESR.Void'],
      [{ TaxN: '2' }, 'ESR.TaxN'],
      [{ TID: 'abc' }, 'ESR.TID'],
      [{ VatRegime: 'general' }, 'ESR.VatRegime'],
      [{ PosA: [pos({ Qty: 'two' })] }, 'ESR.PosA[0].Qty'],
      [{ PosA: [pos({ SvcStartD: '2026-13-01' })] }, 'ESR.PosA[0].SvcStartD'],
      [{ PayA: [{ ...cash('1.00'), InputMethod: 'scan' }] }, 'ESR.PayA[0].InputMethod'],
      [{ TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20,0', Amt: '1.00' }] }, 'ESR.TaxA[0].Prc'],
      [{ PosA: [{ _: 'Pay', Dsc: 'x', Amt: '1.00' }] }, 'ESR.PosA[0]._'],
      [{ PosA: ['text'] }, 'ESR.PosA[0]'],
      [{ Ctm: 'ACME' }, 'ESR.Ctm'],
      [{ Head: 'hello' }, 'ESR.Head'],
      [{ T: { x: '1' } }, 'ESR.T'],
    ];
    for (const [esr, field] of cases) {
      const e = shapeError(esr);
      assert.equal(e.code, '#INVALID_TYPE', field);
      assert.equal(e.params.field, field);
      assertLocalized(e, field);
    }
  });

  test('unknown company-specific fields are kept', () => {
    const esr = checkShape('Tra', { ESR: { Kundenkarte: '0042', PosA: [pos({ ArticleGroup: 'x' })] } });
    assert.equal(esr.Kundenkarte, '0042');
    assert.equal((esr.PosA as Obj[])[0]?.ArticleGroup, 'x');
  });
});

describe('checkRules', () => {
  const good = (): Obj => ({ PosA: [pos({ Amt: '10.00' }), pos({ TaxG: 'B', Amt: '5.50' })], PayA: [cash('15.50')] });

  test('a consistent transaction passes', () => {
    rules(good());
    rules({ ...good(), T: '15.50' });
  });

  test('rule 1: position sum differs from T -> #POS_SUM', () => {
    const e = rulesError({ ...good(), T: '15.00' });
    assert.equal(e.code, '#POS_SUM');
    assert.match(e.message, /15\.50/);
    assert.match(e.message, /15\.00/);
    assertLocalized(e, 'ESR.T');
  });

  test('rule 1 with Mods: the modified sum counts', () => {
    rules({ PosA: [pos({ Amt: '10.00' }), { _: 'Mod', Amt: '-1.00' }], PayA: [cash('9.00')], T: '9.00' });
    assert.equal(rulesError({ PosA: [pos({ Amt: '10.00' }), { _: 'Mod', Amt: '-1.00' }], PayA: [cash('10.00')], T: '10.00' }).code, '#POS_SUM');
  });

  test('rule 2: payment sum differs from T -> #PAY_SUM', () => {
    const e = rulesError({ ...good(), PayA: [cash('10.00'), cash('5.00')] });
    assert.equal(e.code, '#PAY_SUM');
    assert.match(e.message, /15\.00/);
    assert.match(e.message, /15\.50/);
    assertLocalized(e, 'PayA');
  });

  test('rule 2: change is a negative payment', () => {
    rules({ ...good(), PayA: [cash('20.00'), { _: 'Pay', Dsc: 'Change', PayG: 'change', Amt: '-4.50' }] });
  });

  test('rule 2: a fiscal transaction with a total needs PayA', () => {
    const e = rulesError({ PosA: [pos({})] });
    assert.equal(e.code, '#MISSING_FIELD');
    assert.equal(e.params.field, 'ESR.PayA');
  });

  test('rule 3: tax sum differs from T -> #TAX_SUM', () => {
    const e = rulesError({ PosA: [pos({ Amt: '10.00' })], TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: '9.00' }], PayA: [cash('10.00')] });
    assert.equal(e.code, '#TAX_SUM');
    assert.match(e.message, /9\.00/);
    assertLocalized(e, 'TaxA');
  });

  test('rule 4: Net + TAmt differs from Amt -> #TAX_NET', () => {
    const e = rulesError({ PosA: [pos({ Amt: '10.00' })], TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Net: '8.00', TAmt: '1.67', Amt: '10.00' }], PayA: [cash('10.00')] });
    assert.equal(e.code, '#TAX_NET');
    assert.equal(e.params.field, 'ESR.TaxA[0]');
    assertLocalized(e, 'ESR.TaxA[0]');
  });

  test('rule 7: per tax group, modified positions differ from the Tax Amt -> #TAX_POS_SUM', () => {
    const e = rulesError({
      PosA: [pos({ Amt: '10.00' }), pos({ TaxG: 'B', Amt: '5.00' })],
      TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: '9.00' }, { _: 'Tax', TaxG: 'B', Prc: '10', Amt: '6.00' }],
      PayA: [cash('15.00')],
    });
    assert.equal(e.code, '#TAX_POS_SUM');
    assert.equal(e.params.group, 'A');
    assertLocalized(e, 'ESR.TaxA[0]');
  });

  test('rule 7 counts Mods: a TaxA matching the unmodified amounts fails', () => {
    const e = rulesError({
      PosA: [pos({ Amt: '10.00' }), pos({ TaxG: 'B', Amt: '5.00' }), { _: 'Mod', PN: '2', Amt: '-1.00' }],
      TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: '9.00' }, { _: 'Tax', TaxG: 'B', Prc: '10', Amt: '5.00' }],
      PayA: [cash('14.00')],
    });
    assert.equal(e.code, '#TAX_POS_SUM');
    rules({
      PosA: [pos({ Amt: '10.00' }), pos({ TaxG: 'B', Amt: '5.00' }), { _: 'Mod', PN: '2', Amt: '-1.00' }],
      TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: '10.00' }, { _: 'Tax', TaxG: 'B', Prc: '10', Amt: '4.00' }],
      PayA: [cash('14.00')],
    });
  });

  test('rule 8: D more than Normalize_D days away -> #DATE_RANGE', () => {
    const past = rulesError({ ...good(), D: '2026-11-13T12:00:00' });
    assert.equal(past.code, '#DATE_RANGE');
    assert.equal(past.params.days, 7);
    assertLocalized(past, 'ESR.D 2026-11-13T12:00:00');
    assert.equal(rulesError({ ...good(), D: '2026-11-29T12:00:01' }).code, '#DATE_RANGE');
    // within the default 7 days
    rules({ ...good(), D: '2026-11-15T12:00:00' });
    rules({ ...good(), D: '2026-11-27T12:00:00' });
  });

  test('rule 8 follows normalizeDays', () => {
    rules({ ...good(), D: '2026-11-13T12:00:00' }, { normalizeDays: 10 });
    const e = rulesError({ ...good(), D: '2026-11-19T12:00:00' }, { normalizeDays: 1 });
    assert.equal(e.code, '#DATE_RANGE');
    assert.equal(e.params.days, 1);
    assert.match(e.message, /1 days/);
  });

  test('an unknown tax group letter -> #TAX_GROUP', () => {
    const e = rulesError({ PosA: [pos({ TaxG: 'Q' })], PayA: [cash('10.00')] });
    assert.equal(e.code, '#TAX_GROUP');
    assertLocalized(e, 'ESR.PosA[0].TaxG');
  });

  test('a link to no TaxA element -> #TAX_GROUP', () => {
    const e = rulesError({ PosA: [pos({ TaxG: 'Food' })], TaxA: [{ _: 'Tax', TaxG: 'Drinks', Prc: '8', Amt: '10.00' }], PayA: [cash('10.00')] });
    assert.equal(e.code, '#TAX_GROUP');
    assert.match(e.message, /"Food"/);
    assertLocalized(e, 'ESR.PosA[0].TaxG');
  });

  test('a Mod naming no position -> #MOD_TARGET', () => {
    const e = rulesError({ PosA: [pos({}), { _: 'Mod', PN: '9', Amt: '-1.00' }], PayA: [cash('9.00')] });
    assert.equal(e.code, '#MOD_TARGET');
    assertLocalized(e, 'ESR.PosA[1].PN');
    assert.equal(rulesError({ PosA: [pos({}), { _: 'Mod', PN: '2-4', Amt: '-1.00' }], PayA: [cash('9.00')] }).code, '#MOD_TARGET');
  });

  test('checkRules alone checks rules 1 and 7 with Mods on a given TaxA', () => {
    const esr: Obj = {
      D: '2026-11-21T12:00:00',
      T: '9.00',
      PosA: [{ _: 'Pos', PN: '1', Dsc: 'x', TaxG: 'A', Amt: '10.00' }, { _: 'Mod', PN: '7', Amt: '-1.00' }],
      PayA: [cash('9.00')],
      TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Net: '7.50', TAmt: '1.50', Amt: '9.00' }],
    };
    assert.equal(fiscalError(() => checkRules(esr, { now: NOW, normalizeDays: 7, letters: AT_LETTERS, nonFiscal: false })).code, '#MOD_TARGET');
  });

  test('a fiscal transaction without PosA is #MISSING_FIELD; a non-fiscal one passes', () => {
    const e = fiscalError(() => checkRules({ D: '2026-11-21T12:00:00' }, { now: NOW, normalizeDays: 7, letters: AT_LETTERS, nonFiscal: false }));
    assert.equal(e.code, '#MISSING_FIELD');
    assert.equal(e.params.field, 'ESR.PosA');
    checkRules({ D: '2026-11-21T12:00:00', NFS: 'Z' }, { now: NOW, normalizeDays: 7, letters: AT_LETTERS, nonFiscal: true });
  });

  test('amounts compare exactly: 0.1 + 0.2 = 0.3, and 1.5 equals 1.50', () => {
    rules({ PosA: [pos({ Amt: '0.1' }), pos({ Amt: '0.2' })], PayA: [cash('0.30')], T: '0.3' });
    assert.equal(rulesError({ PosA: [pos({ Amt: '0.1' }), pos({ Amt: '0.2' })], PayA: [cash('0.31')] }).code, '#PAY_SUM');
  });
});
