/**
 * The parse limits of guard.ts, each at its edge: a document just within passes, one node, attribute,
 * property, level or millisecond more is refused with #MALFORMED naming the limit and where.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { type ParseLimits, CLOCK_EVERY, MAX_ATTRIBUTES, MAX_DEPTH, MAX_KEYS, MAX_NODES, MAX_PARSE_MS, PARSE_LIMITS } from './guard.js';
import { decodeJson } from './json.js';
import { decodeXml, encodeXml } from './xml.js';
import { decodeBody } from './index.js';
import type { Obj } from './model.js';
import { fiscalError } from '../../shared/testing.js';

function refusal(fn: () => unknown, message: RegExp): void {
  const e = fiscalError(fn);
  assert.equal(e.code, '#MALFORMED');
  assert.equal(e.rc, 'BAD');
  assert.equal(e.status, 400);
  assert.match(e.message, message);
}

/** The production limits with a clock that never moves: the counting limits are tested, not this machine's speed. */
const UNTIMED: ParseLimits = { ...PARSE_LIMITS, now: () => 0 };
const attrs = (n: number): string => Array.from({ length: n }, (_, i) => ` a${i}="1"`).join('');
const jsonKeys = (n: number): string => Array.from({ length: n }, (_, i) => `"k${i}":"1"`).join(',');

describe('attributes per element', () => {
  test(`${MAX_ATTRIBUTES} attributes pass, one more is refused naming the element`, () => {
    const doc = decodeXml(`<Tra><ESR${attrs(MAX_ATTRIBUTES)}/></Tra>`);
    assert.equal(Object.keys(doc.body.ESR as Obj).length, MAX_ATTRIBUTES);
    refusal(() => decodeXml(`<Tra><ESR${attrs(MAX_ATTRIBUTES + 1)}/></Tra>`), /Tra\.ESR has more than 1000 attributes \(the limit per element\)/);
  });

  test('190,000 attributes on one element are refused at the first past the limit', () => {
    // the attack: 1.8 MB that the parser would otherwise collect into one object before we saw it
    const body = `<Tra${Array.from({ length: 190_000 }, (_, i) => ` a${i.toString(36)}=""`).join('')}/>`;
    refusal(() => decodeBody(body, 'text/xml', 'Tra'), /Tra has more than 1000 attributes \(the limit per element\)/);
  });
});

describe('properties per object', () => {
  test(`JSON: ${MAX_KEYS} keys pass, one more is refused naming the object`, () => {
    const doc = decodeJson(`{"Tra":{"ESR":{${jsonKeys(MAX_KEYS)}}}}`);
    assert.equal(Object.keys(doc.body.ESR as Obj).length, MAX_KEYS);
    refusal(() => decodeJson(`{"Tra":{"ESR":{${jsonKeys(MAX_KEYS + 1)}}}}`), /Tra\.ESR has more than 1000 properties \(the limit per object\)/);
  });

  test('JSON: the limit holds with numbers too (the body parsed a second time for their text)', () => {
    const numbers = (n: number): string => Array.from({ length: n }, (_, i) => `"k${i}":${i}.50`).join(',');
    assert.equal((decodeJson(`{"Tra":{"ESR":{${numbers(MAX_KEYS)}}}}`).body.ESR as Obj).k7, '7.50');
    refusal(() => decodeJson(`{"Tra":{"n":1,"ESR":{${numbers(MAX_KEYS + 1)}}}}`), /Tra\.ESR has more than 1000 properties/);
    refusal(() => decodeJson(`{"Tra":{"ESR":{${numbers(MAX_KEYS + 1)}}}}`), /Tra\.ESR has more than 1000 properties/);
  });

  test('JSON: 150,000 keys in one object are refused', () => {
    refusal(() => decodeBody(`{"Tra":{${jsonKeys(150_000)}}}`, 'application/json', 'Tra'), /Tra has more than 1000 properties \(the limit per object\)/);
  });

  test('XML: attributes and distinct child names count together; repeated children count once', () => {
    const children = (n: number): string => Array.from({ length: n }, (_, i) => `<c${i}/>`).join('');
    const half = MAX_KEYS / 2;
    const within = decodeXml(`<Tra><ESR${attrs(half)}>${children(half)}</ESR></Tra>`);
    assert.equal(Object.keys(within.body.ESR as Obj).length, MAX_KEYS);
    // the same element as often as wanted: one property (an array)
    const repeated = decodeXml(`<Tra><ESR${attrs(MAX_KEYS - 1)}>${'<Tag/>'.repeat(3000)}</ESR></Tra>`);
    assert.equal(((repeated.body.ESR as Obj).Tag as string[]).length, 3000);
    // names that Object.prototype has are properties like any other
    assert.deepEqual(decodeXml('<Tra><toString/><valueOf>x</valueOf><valueOf>y</valueOf></Tra>').body, { toString: '', valueOf: ['x', 'y'] });
    refusal(() => decodeXml(`<Tra><ESR${attrs(half)}>${children(half + 1)}</ESR></Tra>`), /Tra\.ESR has more than 1000 properties \(the limit per object\)/);
    refusal(() => decodeXml(`<Tra><ESR><PosA><Pos>${children(MAX_KEYS + 1)}</Pos></PosA></ESR></Tra>`), /Tra\.ESR\.PosA\.Pos has more than 1000 properties/);
  });
});

describe('nodes per document', () => {
  test(`JSON: ${MAX_NODES} nodes pass, one more is refused naming where`, () => {
    // the root's property, Tra's property and the array's items
    const items = (n: number): string => `{"Tra":{"X":[${'"",'.repeat(n - 1)}""]}}`;
    assert.equal(((decodeJson(items(MAX_NODES - 2), UNTIMED).body.X) as string[]).length, MAX_NODES - 2);
    refusal(() => decodeJson(items(MAX_NODES - 1), UNTIMED), /more than 300000 nodes \(the limit of elements, attributes, properties and array items per document\), reached at Tra\.X/);
  });

  test(`XML: ${MAX_NODES} nodes pass, one more is refused naming where`, () => {
    // Tra, its attribute and the X elements
    const elements = (n: number): string => `<Tra a="1">${'<X/>'.repeat(n - 2)}</Tra>`;
    assert.equal(((decodeXml(elements(MAX_NODES), UNTIMED).body.X) as string[]).length, MAX_NODES - 2);
    refusal(() => decodeXml(elements(MAX_NODES + 1), UNTIMED), /more than 300000 nodes \(the limit of elements, attributes, properties and array items per document\), reached at Tra\.X/);
  });

  test('attributes, properties and array items all count', () => {
    const limits: ParseLimits = { ...PARSE_LIMITS, maxNodes: 6 };
    // Tra + 5 attributes = 6; one attribute more is 7
    decodeXml('<Tra a="1" b="1" c="1" d="1" e="1"/>', limits);
    refusal(() => decodeXml('<Tra a="1" b="1" c="1" d="1" e="1" f="1"/>', limits), /more than 6 nodes/);
    // Tra, then 3 keys and 2 items = 6
    decodeJson('{"Tra":{"a":"1","b":"1","c":["1","2"]}}', limits);
    refusal(() => decodeJson('{"Tra":{"a":"1","b":"1","c":["1","2","3"]}}', limits), /more than 6 nodes .*reached at Tra\.c/);
  });

  test('200,000 repeated siblings decode into one array (they were copied for each one)', { timeout: 60_000 }, () => {
    const doc = decodeXml(`<Tra>${'<Tag/>'.repeat(200_000)}</Tra>`, UNTIMED);
    assert.equal((doc.body.Tag as string[]).length, 200_000);
  });
});

describe('nesting depth', () => {
  test(`JSON: ${MAX_DEPTH} levels pass, one more is refused`, () => {
    // the root object is level 0, Tra level 1, X's arrays the levels after
    const nested = (arrays: number): string => `{"Tra":{"X":${'['.repeat(arrays)}${']'.repeat(arrays)}}}`;
    decodeJson(nested(MAX_DEPTH - 1));
    refusal(() => decodeJson(nested(MAX_DEPTH)), /Tra\.X(\[0\])+ is nested deeper than 32 levels/);
  });

  test(`XML: ${MAX_DEPTH} levels pass, one more is refused`, () => {
    const nested = (levels: number): string => `${'<X>'.repeat(levels)}${'</X>'.repeat(levels)}`;
    decodeXml(nested(MAX_DEPTH));
    refusal(() => decodeXml(nested(MAX_DEPTH + 1)), /X(\.X)+ is nested deeper than 32 levels/);
  });
});

describe('time per document', () => {
  /** A clock that reads 0 when the decode starts and `elapsed` ms at every later look. */
  function clock(elapsed: number): ParseLimits {
    let looks = 0;
    return { ...PARSE_LIMITS, now: () => (looks++ === 0 ? 0 : elapsed) };
  }
  // enough nodes for the clock to be looked at
  const json = `{"Tra":{"X":[${'"",'.repeat(CLOCK_EVERY)}""]}}`;
  const xml = `<Tra>${'<X/>'.repeat(CLOCK_EVERY + 1)}</Tra>`;

  test(`a decode that has taken ${MAX_PARSE_MS} ms passes, one that has taken longer is refused`, () => {
    decodeJson(json, clock(MAX_PARSE_MS));
    decodeXml(xml, clock(MAX_PARSE_MS));
    refusal(() => decodeJson(json, clock(MAX_PARSE_MS + 1)), /decoding took longer than 2000 ms \(the limit per document\), stopped at Tra\.X/);
    refusal(() => decodeXml(xml, clock(MAX_PARSE_MS + 1)), /decoding took longer than 2000 ms \(the limit per document\), stopped at Tra\.X/);
  });

  test('the clock is looked at only every few thousand nodes', () => {
    let looks = 0;
    const counting: ParseLimits = { ...PARSE_LIMITS, now: () => (looks++, 0) };
    decodeJson(`{"Tra":{"X":[${'"",'.repeat(10 * CLOCK_EVERY)}""]}}`, counting);
    assert.ok(looks <= 12, `${looks} looks`);
  });
});

describe('legitimate documents stay within the limits', () => {
  /** A transaction at the pipeline's limit: 5000 positions of 20 fields, 100 payments, taxes. */
  function bigSale(numbers: boolean): object {
    const amount = (s: string): string | number => (numbers ? Number(s) : s);
    const PosA = Array.from({ length: 5000 }, (_, i) => ({
      _: 'Pos', PN: String(i + 1), Dsc: `Article ${i + 1} with a description of some length`, TaxG: 'A', Amt: amount('1.50'), Qty: amount('1'), Pri: amount('1.50'),
      IN: '4006381333931', SKU: `SKU-${i}`, QtyU: 'pc', Cat: 'food', CatN: 'Food', Note: 'note', InH: '1', TS: '2026-11-24T10:00:00',
      OrderLineReference: `ref${i}`, Dev: 'dev1', ID: 'batch', PosG: 'alcohol', VatRegime: 'GENERAL',
    }));
    const PayA = Array.from({ length: 100 }, () => ({ _: 'Pay', Dsc: 'Card', PayG: 'creditcard', Amt: amount('75.00'), UID: 'x1', CC: 'EUR', FAmt: amount('75.00'), ConvR: amount('1'), InputMethod: 'auto' }));
    const TaxA = [{ _: 'Tax', TaxG: 'A', Prc: amount('20'), Net: amount('6250.00'), TAmt: amount('1250.00'), Amt: amount('7500.00') }];
    return { Tra: { ESR: { TL: '1', TT: '1', T: amount('7500.00'), PosA, PayA, TaxA } } };
  }

  test('a 5000-line transaction decodes in JSON (with and without numbers) and in XML', () => {
    for (const numbers of [false, true]) {
      const doc = decodeBody(JSON.stringify(bigSale(numbers)), 'application/json', 'Tra');
      const esr = doc.body.ESR as Obj;
      assert.equal((esr.PosA as Obj[]).length, 5000);
      assert.equal((esr.PosA as Obj[])[4999]?.Amt, numbers ? '1.5' : '1.50');
      const xml = encodeXml('Tra', doc.body);
      assert.ok(Buffer.byteLength(xml) < 2 * 1024 * 1024, 'within the body limit of a transaction');
      assert.deepEqual(decodeBody(xml, 'text/xml', 'Tra').body, doc.body);
    }
  });
});
