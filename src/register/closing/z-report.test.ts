import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { add, dec, eq, fmt, ZERO, type Dec } from '../../shared/money.js';
import { type Obj, isObj, lines, str } from '../codec/index.js';
import { decodeXml, encodeXml } from '../codec/xml.js';
import { decodeJson, encodeJson } from '../codec/json.js';
import { classify } from '../esr/business-case.js';
import { normalizeTra } from '../esr/normalize.js';
import { checkRules, checkShape } from '../esr/validate.js';
import { taxLettersFor } from '../fiscal/registry.js';
import { type ZAccumulator, type ZContext, addToTotals, addToZ, closeZ, emptyTotals, emptyZ, totalsTags, zFromJournal, zRoleOf } from './z-report.js';

const AT_LETTERS = taxLettersFor('AT');

const NOW = new Date(2026, 10, 21, 22, 0, 0);

/** A journal record as the pipeline writes it: shape check, normalization, rules, classification, Fis. */
function record(sq: number, d: string, esrIn: Obj): Obj {
  const esr = normalizeTra(checkShape('Tra', { ESR: { TT: '1', TN: String(sq), D: d, ...esrIn } }), { now: NOW, letters: AT_LETTERS, nextTn: () => '1' }).esr;
  const bc = classify(esr);
  checkRules(esr, { now: NOW, normalizeDays: 7, letters: AT_LETTERS, nonFiscal: !bc.fiscal });
  // the service time is one second after the POS time
  const ts = `${d.slice(0, 17)}${String(Number(d.slice(17)) + 1).padStart(2, '0')}`;
  const data: Obj = { _: 'Tra', SQ: String(sq), RN: 'def', TS: ts, BC: bc.kind };
  if (bc.flags.length) data.BCF = bc.flags.join(' ');
  data.ESR = esr;
  data.Fis = { D: ts, FN: String(sq) };
  return data;
}

const pos = (pn: string, dsc: string, taxG: string, amt: string, extra: Obj = {}): Obj => ({ _: 'Pos', PN: pn, Dsc: dsc, TaxG: taxG, Amt: amt, ...extra });
const pay = (payG: string, amt: string): Obj => ({ _: 'Pay', Dsc: payG, PayG: payG, Amt: amt });
const anna = { Opr: '1', OprSSN: '111' };
const ben = { Opr: '2', OprSSN: '222' };
const drinks = { Cat: '10', CatN: 'Drinks' };
const books = { Cat: '20', CatN: 'Books' };
const garden = { Cat: '30', CatN: 'Garden' };

/** The day of 2026-11-21: two operators, three tax groups (A 20%, B 10%, C 13%), 15 records. */
function day(): Obj[] {
  return [
    record(101, '2026-11-21T08:00:00', { ...anna, NFS: 'LOGIN' }),
    record(102, '2026-11-21T08:00:30', { ...anna, NFS: 'PAYIN', NF: 'Float', T: '100.00', PayA: [pay('cash', '100.00')] }),
    // 24.00 - 4.00 + 15.00 + 9.00 = 44.00; paid 50.00 cash, 6.00 change
    record(103, '2026-11-21T08:05:00', {
      ...anna,
      PosA: [pos('1', 'Wine', 'A', '24.00', { Qty: '2', Pri: '12.00', ...drinks }), pos('2', 'Book', 'B', '15.00', books), pos('3', 'Flowers', 'C', '9.00', garden), { _: 'Mod', PN: '1', Dsc: 'Discount', Amt: '-4.00' }],
      PayA: [pay('cash', '50.00'), pay('change', '-6.00')],
    }),
    // a 0.80 surcharge on both positions: 4.95 (A) + 3.85 (B) = 8.80 by card; the cake has no category
    record(104, '2026-11-21T08:30:00', {
      ...anna,
      PosA: [pos('1', 'Coffee', 'A', '4.50', drinks), pos('2', 'Cake', 'B', '3.50'), { _: 'Mod', PN: '*', Dsc: 'Service', Amt: '0.80' }],
      PayA: [pay('debitcard', '8.80')],
    }),
    record(105, '2026-11-21T09:00:00', { ...ben, NFS: 'LOGIN' }),
    // a line void of the juice: 18.00, 20.00 cash, 2.00 change
    record(106, '2026-11-21T09:10:00', {
      ...ben,
      PosA: [pos('1', 'Juice', 'A', '3.00', drinks), pos('2', 'Juice', 'A', '-3.00', { Void: '1', ...drinks }), pos('3', 'Magazine', 'B', '6.00', books), pos('4', 'Plant', 'C', '12.00', garden)],
      PayA: [pay('cash', '20.00'), pay('change', '-2.00')],
    }),
    // a return of the book and the flowers of 103
    record(107, '2026-11-21T09:30:00', {
      ...ben,
      RFN: '103',
      Rsn: 'damaged',
      PosA: [pos('1', 'Book', 'B', '-15.00', books), pos('2', 'Flowers', 'C', '-9.00', garden)],
      PayA: [pay('cash', '-24.00')],
    }),
    // non-fiscal: an order
    record(108, '2026-11-21T09:45:00', { ...ben, NF: 'ORDER', PosA: [pos('1', 'Wine', 'A', '12.00', drinks)], PayA: [pay('cash', '12.00')] }),
    // training
    record(109, '2026-11-21T10:00:00', { ...ben, NFS: 'TRAINING', PosA: [pos('1', 'Wine', 'A', '7.00', drinks)], PayA: [pay('cash', '7.00')] }),
    // a test sale
    record(110, '2026-11-21T10:15:00', { ...anna, Test: '1', PosA: [pos('1', 'Coffee', 'A', '5.00', drinks)], PayA: [pay('cash', '5.00')] }),
    // the void of 104 (its surcharge reversed: a negative Mod), with reasons
    record(111, '2026-11-21T10:30:00', {
      ...anna,
      Void: '1',
      RFN: '104',
      Rsn: 'customer cancelled',
      PosA: [pos('1', 'Coffee', 'A', '-4.50', drinks), pos('2', 'Cake', 'B', '-3.50', { Rsn: 'wrong item' }), { _: 'Mod', PN: '*', Dsc: 'Service', Amt: '-0.80' }],
      PayA: [pay('debitcard', '-8.80')],
    }),
    record(112, '2026-11-21T11:00:00', { ...ben, NFS: 'PAYOUT', T: '-20.00', PayA: [{ _: 'Pay', Dsc: 'Supplier', PayG: 'cash', Amt: '-20.00' }] }),
    record(113, '2026-11-21T12:00:00', { ...ben, PosA: [pos('1', 'Wine', 'A', '30.00', drinks)], PayA: [pay('debitcard', '20.00'), pay('cash', '10.00')] }),
    record(114, '2026-11-21T17:00:00', { ...ben, NFS: 'LOGOUT' }),
    record(115, '2026-11-21T17:05:00', { ...anna, NFS: 'LOGOUT' }),
  ];
}

const CTX: ZContext = { zi: 7, now: '2026-11-21T22:00:00', lastSq: 115, lastD: '2026-11-21T17:05:00', fisUnitId: 'EFR-1' };

const EXPECTED_Z: Obj = {
  T: '68.00',
  CAmt: '-32.80',
  LastD: '2026-11-21T17:05:00',
  LastSQ: '115',
  ZTax: [
    { TaxG: 'A', TaxI: '1', Prc: '20.00', TAmt: '8.33', Amt: '50.00' },
    { TaxG: 'B', TaxI: '2', Prc: '10.00', TAmt: '0.55', Amt: '6.00' },
    { TaxG: 'C', TaxI: '3', Prc: '13.00', TAmt: '1.38', Amt: '12.00' },
  ],
};

const EXPECTED_FIS_Z: Obj = {
  ZI: '7',
  T: '68.00',
  DrawerOpenCnt: '6',
  CreditAmt: '-32.80',
  CreditCnt: '4',
  DiscountCnt: '2',
  DiscountAmt: '-4.80',
  SurchargeCnt: '1',
  SurchargeAmt: '0.80',
  ZPeriod: '2026-11-21',
  TSDayOpen: '2026-11-21T08:00:01',
  TSDayClose: '2026-11-21T22:00:00',
  ZFisUnitA: [{ _: 'ZFisUnit', ID: 'EFR-1', TSFirst: '2026-11-21T08:00:01', TSLast: '2026-11-21T17:05:01', FirstNum: '101', LastNum: '115' }],
  ZFisTraA: [
    { _: 'ZFisTra', Dsc: 'sale', Cnt: '4', Amt: '100.80' },
    { _: 'ZFisTra', Dsc: 'return', Cnt: '1', Amt: '-24.00' },
    { _: 'ZFisTra', Dsc: 'void', Cnt: '1', Amt: '-8.80' },
    { _: 'ZFisTra', Dsc: 'lineVoid', Cnt: '1', Amt: '-3.00' },
    { _: 'ZFisTra', Dsc: 'payin', Cnt: '1', Amt: '100.00' },
    { _: 'ZFisTra', Dsc: 'payout', Cnt: '1', Amt: '-20.00' },
    { _: 'ZFisTra', Dsc: 'login', Cnt: '2', Amt: '0.00' },
    { _: 'ZFisTra', Dsc: 'logout', Cnt: '2', Amt: '0.00' },
    { _: 'ZFisTra', Dsc: 'training', Cnt: '1', Amt: '7.00' },
    { _: 'ZFisTra', Dsc: 'nonfiscal', Cnt: '1', Amt: '12.00' },
    { _: 'ZFisTra', Dsc: 'test', Cnt: '1', Amt: '5.00' },
  ],
  ZCatA: [
    { _: 'ZCat', Cat: '', CatN: '', Net: '0.00', TAmt: '0.00', Amt: '0.00' },
    { _: 'ZCat', Cat: '10', CatN: 'Drinks', Net: '41.67', TAmt: '8.33', Amt: '50.00' },
    { _: 'ZCat', Cat: '20', CatN: 'Books', Net: '5.45', TAmt: '0.55', Amt: '6.00' },
    { _: 'ZCat', Cat: '30', CatN: 'Garden', Net: '10.62', TAmt: '1.38', Amt: '12.00' },
  ],
  ZPayA: [
    { _: 'ZPay', Dsc: 'cash', Amt: '136.00' },
    { _: 'ZPay', Dsc: 'change', Amt: '-8.00' },
    { _: 'ZPay', Dsc: 'debitcard', Amt: '20.00' },
  ],
  ZCreditRsnA: [
    { _: 'ZCreditRsn', Amt: '-4.95', Cnt: '1', Rsn: 'customer cancelled', TraCnt: '1' },
    { _: 'ZCreditRsn', Amt: '-24.00', Cnt: '2', Rsn: 'damaged', TraCnt: '1' },
    { _: 'ZCreditRsn', Amt: '-3.85', Cnt: '1', Rsn: 'wrong item', TraCnt: '1' },
  ],
  ZTaxA: [
    { _: 'Tax', TaxG: 'A', Prc: '20.00', Net: '41.67', TAmt: '8.33', Amt: '50.00' },
    { _: 'Tax', TaxG: 'B', Prc: '10.00', Net: '5.45', TAmt: '0.55', Amt: '6.00' },
    { _: 'Tax', TaxG: 'C', Prc: '13.00', Net: '10.62', TAmt: '1.38', Amt: '12.00' },
  ],
  ZOprA: [
    {
      _: 'ZOpr', Amt: '44.00', OprSSN: '111', Opr: '1', TSFirst: '2026-11-21T08:00:00', TSLast: '2026-11-21T17:05:00',
      ZAuditA: [{ _: 'ZAudit', Code: 'CLOCKIN', TS: '2026-11-21T08:00:00' }, { _: 'ZAudit', Code: 'CLOCKOUT', TS: '2026-11-21T17:05:00' }],
    },
    {
      _: 'ZOpr', Amt: '24.00', OprSSN: '222', Opr: '2', TSFirst: '2026-11-21T09:00:00', TSLast: '2026-11-21T17:00:00',
      ZAuditA: [{ _: 'ZAudit', Code: 'CLOCKIN', TS: '2026-11-21T09:00:00' }, { _: 'ZAudit', Code: 'CLOCKOUT', TS: '2026-11-21T17:00:00' }],
    },
  ],
};

function total(items: Obj[], key: string, filter: (o: Obj) => boolean = () => true): Dec {
  return items.filter(filter).reduce((a, o) => add(a, dec(str(o, key) ?? '0')), ZERO);
}

const arr = (o: Obj, key: string): Obj[] => lines(o, key);

describe('the records of the day are what the pipeline journals', () => {
  test('business cases', () => {
    assert.deepEqual(day().map((r) => [str(r, 'BC'), str(r, 'BCF') ?? '']), [
      ['login', ''], ['payin', ''], ['sale', ''], ['sale', ''], ['login', ''], ['sale', 'lineVoid'], ['return', ''], ['nonfiscal', ''],
      ['training', ''], ['sale', 'test'], ['void', ''], ['payout', ''], ['sale', ''], ['logout', ''], ['logout', ''],
    ]);
    assert.deepEqual(day().map(zRoleOf), ['login', 'movement', 'turnover', 'turnover', 'login', 'turnover', 'turnover', 'other', 'other', 'test', 'turnover', 'movement', 'turnover', 'logout', 'logout']);
  });
});

describe('Z of a realistic day', () => {
  test('every element of Z and Fis.Z', () => {
    const { z, fisZ } = zFromJournal(day(), CTX);
    assert.deepEqual(z, EXPECTED_Z);
    assert.deepEqual(fisZ, EXPECTED_FIS_Z);
  });

  test('the fold equals the accumulation record by record, for every prefix of the day', () => {
    const records = day();
    const acc = emptyZ();
    records.forEach((r, i) => {
      addToZ(acc, r);
      assert.deepEqual(closeZ(acc, CTX), zFromJournal(records.slice(0, i + 1), CTX), `after record ${i + 1}`);
    });
  });

  test('the accumulator survives JSON.stringify/parse midway (persisted state)', () => {
    const records = day();
    for (const cut of [1, 5, 8, 11]) {
      let acc: ZAccumulator = emptyZ();
      records.slice(0, cut).forEach((r) => addToZ(acc, r));
      const text = JSON.stringify(acc);
      acc = JSON.parse(text) as ZAccumulator;
      assert.equal(JSON.stringify(acc), text);
      records.slice(cut).forEach((r) => addToZ(acc, r));
      assert.deepEqual(closeZ(acc, CTX), { z: EXPECTED_Z, fisZ: EXPECTED_FIS_Z }, `cut after ${cut}`);
    }
    // small: well under 2 KB for a day with two operators, three groups, four categories
    const acc = emptyZ();
    records.forEach((r) => addToZ(acc, r));
    assert.ok(JSON.stringify(acc).length < 2500, String(JSON.stringify(acc).length));
  });

  test('closeZ does not change the accumulator', () => {
    const acc = emptyZ();
    day().forEach((r) => addToZ(acc, r));
    const before = JSON.stringify(acc);
    closeZ(acc, CTX);
    assert.equal(JSON.stringify(acc), before);
  });

  test('sums that must hold', () => {
    const { z, fisZ } = zFromJournal(day(), CTX);
    const t = dec(str(fisZ, 'T') ?? '');
    assert.ok(eq(total(arr(fisZ, 'ZTaxA'), 'Amt', (x) => !str(x, 'TTY')), t), 'ZTaxA Amt = T');
    assert.ok(eq(total(z.ZTax as Obj[], 'Amt'), t), 'Z.ZTax Amt = T');
    assert.ok(eq(total(arr(fisZ, 'ZCatA'), 'Amt'), t), 'ZCatA Amt = T');
    assert.ok(eq(total(arr(fisZ, 'ZCatA'), 'TAmt'), total(arr(fisZ, 'ZTaxA'), 'TAmt')), 'ZCatA TAmt = ZTaxA TAmt');
    assert.ok(eq(total(arr(fisZ, 'ZCatA'), 'Net'), total(arr(fisZ, 'ZTaxA'), 'Net')), 'ZCatA Net = ZTaxA Net');
    assert.ok(eq(total(arr(fisZ, 'ZOprA'), 'Amt'), t), 'ZOprA Amt = T');
    const turnoverKinds = new Set(['sale', 'return', 'void', 'invoice', 'voucher', 'deposit', 'tip']);
    assert.ok(eq(total(arr(fisZ, 'ZFisTraA'), 'Amt', (x) => turnoverKinds.has(str(x, 'Dsc') ?? '')), t), 'turnover business cases = T');
    const movements = total(arr(fisZ, 'ZFisTraA'), 'Amt', (x) => ['payin', 'payout', 'payment'].includes(str(x, 'Dsc') ?? ''));
    assert.equal(fmt(movements), '80.00');
    assert.ok(eq(total(arr(fisZ, 'ZPayA'), 'Amt'), add(t, movements)), 'ZPayA = T + pay-ins, pay-outs and payments');
    assert.ok(eq(total(arr(fisZ, 'ZCreditRsnA'), 'Amt'), dec(str(fisZ, 'CreditAmt') ?? '')), 'ZCreditRsnA Amt = CreditAmt');
    assert.equal(String(arr(fisZ, 'ZCreditRsnA').reduce((n, x) => n + Number(str(x, 'Cnt')), 0)), str(fisZ, 'CreditCnt'));
    for (const tax of arr(fisZ, 'ZTaxA')) assert.ok(eq(add(dec(str(tax, 'Net') ?? ''), dec(str(tax, 'TAmt') ?? '')), dec(str(tax, 'Amt') ?? '')));
    assert.equal(str(z, 'T'), str(fisZ, 'T'));
    assert.equal(str(z, 'CAmt'), str(fisZ, 'CreditAmt'));
  });

  test('a Z record resets: the fold over the whole journal gives the Z of the day', () => {
    const before = [
      record(99, '2026-11-20T18:00:00', { ...anna, PosA: [pos('1', 'Wine', 'A', '99.00', drinks)], PayA: [pay('cash', '99.00')] }),
      record(100, '2026-11-20T22:00:00', { ...anna, NFS: 'Z' }),
    ];
    assert.equal(zRoleOf(before[1] as Obj), 'closing');
    assert.deepEqual(zFromJournal([...before, ...day()], CTX), { z: EXPECTED_Z, fisZ: EXPECTED_FIS_Z });
    // a Z flagged test does not close the day: it only counts
    const testZ = record(116, '2026-11-21T18:00:00', { ...anna, NFS: 'Z', Test: '1' });
    const acc = emptyZ();
    [...day(), testZ].forEach((r) => addToZ(acc, r));
    const { fisZ } = closeZ(acc, CTX);
    assert.equal(str(fisZ, 'T'), '68.00');
    assert.deepEqual(arr(fisZ, 'ZFisTraA').find((x) => x.Dsc === 'test'), { _: 'ZFisTra', Dsc: 'test', Cnt: '2', Amt: '5.00' });
  });

  test('records that are not transactions are ignored', () => {
    const acc = emptyZ();
    addToZ(acc, { _: 'Cfg', SQ: '1', Cfg: { Cmp: { Nam: 'x' } } });
    addToZ(acc, { _: 'TraS', SQ: '2', TS: '2026-11-21T08:00:00', ESR: { D: '2026-11-21T08:00:00' }, Fis: { TID: '1' } });
    assert.deepEqual(acc, emptyZ());
  });

  test('the Z renders in XML and JSON and decodes back', () => {
    const { z, fisZ } = zFromJournal(day(), CTX);
    const body: Obj = { Result: { RC: 'OK' }, Z: z, Fis: { D: '2026-11-21T22:00:00', FN: '116', Z: fisZ } };
    const xml = encodeXml('TraC', body);
    assert.match(xml, /<Z T="68.00" CAmt="-32.80" LastD="2026-11-21T17:05:00" LastSQ="115"><ZTax TaxG="A" TaxI="1" Prc="20.00" TAmt="8.33" Amt="50.00"\/><ZTax TaxG="B"/);
    assert.match(xml, /<ZTaxA><Tax TaxG="A" Prc="20.00" Net="41.67" TAmt="8.33" Amt="50.00"\/>/);
    // model.ts lists Code (Fis.Code) among the text elements, so ZAudit's Code is a child element too
    assert.match(xml, /<ZOprA><ZOpr Amt="44.00" OprSSN="111" Opr="1" TSFirst="2026-11-21T08:00:00" TSLast="2026-11-21T17:05:00"><ZAuditA><ZAudit TS="2026-11-21T08:00:00"><Code>CLOCKIN<\/Code><\/ZAudit>/);
    const back = decodeXml(xml).body;
    assert.deepEqual(back.Z, z); // three ZTax elements come back as an array (one alone would not: see docs/z-report.md)
    assert.ok(isObj(back.Fis));
    assert.deepEqual(back.Fis.Z, fisZ);
    assert.deepEqual(decodeJson(encodeJson('TraC', body)).body, body);
  });
});

describe('single rules', () => {
  const ctx: ZContext = { zi: 1, now: '2026-11-21T23:00:00', lastSq: 0, lastD: undefined, fisUnitId: 'U' };

  test('an empty day', () => {
    const { z, fisZ } = zFromJournal([], ctx);
    assert.deepEqual(z, { T: '0.00', CAmt: '0.00', LastSQ: '0', ZTax: [] });
    assert.deepEqual(fisZ, {
      ZI: '1', T: '0.00', DrawerOpenCnt: '0', CreditAmt: '0.00', CreditCnt: '0', DiscountCnt: '0', DiscountAmt: '0.00', SurchargeCnt: '0', SurchargeAmt: '0.00',
      ZPeriod: '2026-11-21', TSDayOpen: '2026-11-21T23:00:00', TSDayClose: '2026-11-21T23:00:00',
      ZFisUnitA: [], ZFisTraA: [], ZCatA: [], ZPayA: [], ZCreditRsnA: [], ZTaxA: [], ZOprA: [],
    });
    const back = decodeXml(encodeXml('Z', fisZ)).body;
    assert.deepEqual(back, fisZ);
  });

  test('a PAYOUT sent with positive amounts is money out; PAYIN with NF text still moves money', () => {
    const out = record(1, '2026-11-21T10:00:00', { NFS: 'PAYOUT', NF: 'Bank', PayA: [pay('cash', '50.00')] });
    const inWithoutPay = record(2, '2026-11-21T10:01:00', { NFS: 'PAYIN', T: '30.00' });
    const { fisZ } = zFromJournal([out, inWithoutPay], ctx);
    assert.deepEqual(fisZ.ZPayA, [{ _: 'ZPay', Dsc: 'cash', Amt: '-20.00' }]);
    assert.deepEqual(fisZ.ZFisTraA, [{ _: 'ZFisTra', Dsc: 'payin', Cnt: '1', Amt: '30.00' }, { _: 'ZFisTra', Dsc: 'payout', Cnt: '1', Amt: '-50.00' }]);
    assert.equal(fisZ.DrawerOpenCnt, '2');
    assert.equal(fisZ.T, '0.00');
  });

  test('more decimals are kept when the inputs have them', () => {
    const r = record(1, '2026-11-21T10:00:00', { PosA: [pos('1', 'Fuel', 'A', '10.005')], PayA: [pay('cash', '10.005')] });
    const { z, fisZ } = zFromJournal([r], ctx);
    assert.equal(z.T, '10.005');
    assert.deepEqual(fisZ.ZTaxA, [{ _: 'Tax', TaxG: 'A', Prc: '20.00', Net: '8.337', TAmt: '1.668', Amt: '10.005' }]);
  });

  test('a tax group named by percentage, a POS-sent TaxA and a non-VAT tax', () => {
    const r = record(1, '2026-11-21T10:00:00', {
      PosA: [pos('1', 'Beer', '20%', '12.00', drinks), pos('2', 'Bread', 'X', '8.00')],
      TaxA: [{ _: 'Tax', TaxG: 'X', Prc: '10', Amt: '8.00' }, { _: 'Tax', TaxG: 'N', Prc: '20', Amt: '12.00' }, { _: 'Tax', TaxG: 'CT', Prc: '3', TTY: 'CT', Base: '12.00', Amt: '0.36' }],
      PayA: [pay('cash', '20.00')],
    });
    const { z, fisZ } = zFromJournal([r], ctx);
    assert.deepEqual(fisZ.ZTaxA, [
      { _: 'Tax', TaxG: 'N', Prc: '20.00', Net: '10.00', TAmt: '2.00', Amt: '12.00' },
      { _: 'Tax', TaxG: 'X', Prc: '10.00', Net: '7.27', TAmt: '0.73', Amt: '8.00' },
      { _: 'Tax', TaxG: 'CT', Prc: '3.00', TTY: 'CT', Base: '12.00', Amt: '0.36' },
    ]);
    assert.deepEqual(z.ZTax, [
      { TaxG: 'N', TaxI: '1', Prc: '20.00', TAmt: '2.00', Amt: '12.00' },
      { TaxG: 'X', TaxI: '2', Prc: '10.00', TAmt: '0.73', Amt: '8.00' },
    ]);
    assert.deepEqual(fisZ.ZCatA, [
      { _: 'ZCat', Cat: '', CatN: '', Net: '7.27', TAmt: '0.73', Amt: '8.00' },
      { _: 'ZCat', Cat: '10', CatN: 'Drinks', Net: '10.00', TAmt: '2.00', Amt: '12.00' },
    ]);
  });

  test('a category of two positions of one group shares the tax exactly', () => {
    // 3 x 1.00 in group A: tax 0.50 split 0.17 + 0.17 + 0.16, all in one category
    const r = record(1, '2026-11-21T10:00:00', {
      PosA: [pos('1', 'a', 'A', '1.00', { Cat: 'x' }), pos('2', 'b', 'A', '1.00', { Cat: 'y' }), pos('3', 'c', 'A', '1.00', { Cat: 'x' })],
      PayA: [pay('cash', '3.00')],
    });
    const { fisZ } = zFromJournal([r], ctx);
    const cats = arr(fisZ, 'ZCatA');
    assert.deepEqual(cats.map((c) => [c.Cat, c.Amt, c.TAmt, c.Net]), [['x', '2.00', '0.33', '1.67'], ['y', '1.00', '0.17', '0.83']]);
    assert.equal(fmt(total(cats, 'TAmt')), '0.50');
  });
});

describe('grand totals', () => {
  test('perpetual totals of fiscal turnover only, as Fis.Tag', () => {
    const gt = emptyTotals();
    for (const r of day()) addToTotals(gt, r);
    assert.deepEqual(gt, { v: 1, t: '68.00', pos: '100.80', neg: '-32.80', cnt: 6 });
    // a Z does not reset them
    addToTotals(gt, record(116, '2026-11-21T22:00:00', { NFS: 'Z' }));
    const copy = JSON.parse(JSON.stringify(gt)) as typeof gt;
    addToTotals(copy, record(117, '2026-11-22T08:00:00', { PosA: [pos('1', 'x', 'A', '1.50')], PayA: [pay('cash', '1.50')] }));
    assert.deepEqual(totalsTags(copy), [
      { Name: 'GT', Label: 'Grand total', Value: '69.50' },
      { Name: 'GTPos', Label: 'Grand total +', Value: '102.30' },
      { Name: 'GTNeg', Label: 'Grand total -', Value: '-32.80' },
      { Name: 'GTCnt', Label: 'Fiscal transactions', Value: '7' },
    ]);
    assert.deepEqual(totalsTags(emptyTotals()).map((t) => t.Value), ['0.00', '0.00', '0.00', '0']);
  });
});

describe('properties over random days', () => {
  const cents = (n: number): string => fmt({ v: BigInt(n), s: 2 });
  const line = fc.record({
    group: fc.constantFrom('A', 'B', 'C', 'D'),
    cents: fc.integer({ min: -20000, max: 20000 }).filter((n) => n !== 0),
    cat: fc.constantFrom('', 'x', 'y'),
    lineVoid: fc.boolean(),
    rsn: fc.constantFrom('', 'broken'),
  });
  const sale = fc.record({
    lines: fc.array(line, { minLength: 1, maxLength: 5 }),
    mod: fc.option(fc.integer({ min: -500, max: 500 }).filter((n) => n !== 0), { nil: undefined }),
    card: fc.boolean(),
    opr: fc.constantFrom('1', '2', ''),
    kind: fc.constantFrom('sale', 'sale', 'sale', 'payin', 'payout', 'training', 'test', 'login', 'logout', 'nf'),
  });

  function build(spec: typeof sale extends fc.Arbitrary<infer T> ? T : never, sq: number): Obj {
    const d = `2026-11-21T${String(8 + Math.floor(sq / 60) % 12).padStart(2, '0')}:${String(sq % 60).padStart(2, '0')}:00`;
    const who: Obj = spec.opr ? { Opr: spec.opr } : {};
    const amount = cents(spec.lines[0]?.cents ?? 100);
    if (spec.kind === 'payin' || spec.kind === 'payout') return record(sq, d, { ...who, NFS: spec.kind.toUpperCase(), PayA: [pay('cash', amount)] });
    if (spec.kind === 'login' || spec.kind === 'logout') return record(sq, d, { ...who, NFS: spec.kind.toUpperCase() });
    // a line void takes back an earlier position of the same article: a sold line and its negative Void line
    const posA: Obj[] = spec.lines.flatMap((l, i) => {
      const extra: Obj = {};
      if (l.cat) extra.Cat = l.cat;
      if (l.rsn) extra.Rsn = l.rsn;
      if (!l.lineVoid) return [pos(String(2 * i + 1), `article ${i}`, l.group, cents(l.cents), extra)];
      const c = Math.abs(l.cents);
      return [pos(String(2 * i + 1), `article ${i}`, l.group, cents(c), extra), pos(String(2 * i + 2), `article ${i}`, l.group, cents(-c), { ...extra, Void: '1' })];
    });
    const lineSum = spec.lines.reduce((a, l) => a + (l.lineVoid ? 0 : l.cents), 0);
    if (spec.mod !== undefined && lineSum !== 0) posA.push({ _: 'Mod', PN: '*', Dsc: 'm', Amt: cents(spec.mod) });
    const t = lineSum + (spec.mod !== undefined && lineSum !== 0 ? spec.mod : 0);
    const payA = spec.card ? [pay('debitcard', cents(t))] : [pay('cash', cents(t + 1000)), pay('change', cents(-1000))];
    const extra: Obj = spec.kind === 'training' ? { NFS: 'TRAINING' } : spec.kind === 'test' ? { Test: '1' } : spec.kind === 'nf' ? { NF: 'ORDER' } : {};
    return record(sq, d, { ...who, ...extra, PosA: posA, PayA: payA });
  }

  test('sums hold, and the fold equals the persisted accumulation', () => {
    fc.assert(
      fc.property(fc.array(sale, { maxLength: 25 }), fc.nat(), (specs, cutSeed) => {
        const records = specs.map((spec, i) => build(spec, i + 1));
        const ctx: ZContext = { zi: 3, now: '2026-11-21T23:00:00', lastSq: records.length, lastD: undefined, fisUnitId: 'U' };
        const folded = zFromJournal(records, ctx);
        const cut = records.length ? cutSeed % (records.length + 1) : 0;
        let acc = emptyZ();
        records.slice(0, cut).forEach((r) => addToZ(acc, r));
        acc = JSON.parse(JSON.stringify(acc)) as ZAccumulator;
        records.slice(cut).forEach((r) => addToZ(acc, r));
        assert.deepEqual(closeZ(acc, ctx), folded);

        const { z, fisZ } = folded;
        const t = dec(str(fisZ, 'T') ?? '');
        assert.ok(eq(total(arr(fisZ, 'ZTaxA'), 'Amt'), t));
        assert.ok(eq(total(z.ZTax as Obj[], 'Amt'), t));
        assert.ok(eq(total(arr(fisZ, 'ZCatA'), 'Amt'), t));
        assert.ok(eq(total(arr(fisZ, 'ZCatA'), 'TAmt'), total(arr(fisZ, 'ZTaxA'), 'TAmt')));
        assert.ok(eq(total(arr(fisZ, 'ZOprA'), 'Amt'), t));
        const movements = total(arr(fisZ, 'ZFisTraA'), 'Amt', (x) => ['payin', 'payout', 'payment'].includes(str(x, 'Dsc') ?? ''));
        assert.ok(eq(total(arr(fisZ, 'ZPayA'), 'Amt'), add(t, movements)));
        assert.ok(eq(total(arr(fisZ, 'ZCreditRsnA'), 'Amt'), dec(str(fisZ, 'CreditAmt') ?? '')));
        assert.ok(eq(add(dec(str(fisZ, 'DiscountAmt') ?? ''), dec(str(fisZ, 'SurchargeAmt') ?? '')), records.filter((r) => zRoleOf(r) === 'turnover').reduce((a, r) => add(a, total(lines(r.ESR as Obj, 'PosA'), 'Amt', (l) => l._ === 'Mod')), ZERO)));
        const gt = emptyTotals();
        records.forEach((r) => addToTotals(gt, r));
        assert.equal(totalsTags(gt)[0]?.Value, str(fisZ, 'T'));
      }),
      { numRuns: 150 },
    );
  });
});
