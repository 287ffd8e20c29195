import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJson, encodeJson } from './json.js';
import { fiscalError } from '../../shared/testing.js';


describe('decodeJson', () => {
  test('returns root, body and format', () => {
    const doc = decodeJson('{"Tra":{"ESR":{"TT":"1"}}}');
    assert.deepEqual(doc, { root: 'Tra', body: { ESR: { TT: '1' } }, format: 'json' });
  });

  test('amount strings stay exactly as sent', () => {
    const doc = decodeJson('{"Tra":{"ESR":{"T":"1.50","PosA":[{"_":"Pos","Amt":"1.50","Qty":"1.000"}]}}}');
    assert.deepEqual(doc.body, { ESR: { T: '1.50', PosA: [{ _: 'Pos', Amt: '1.50', Qty: '1.000' }] } });
  });

  test('JSON numbers keep their exact source text', () => {
    const doc = decodeJson('{"Tra":{"ESR":{"T":1.50,"Ref":12345678901234567890,"TID":292,"PosA":[{"_":"Pos","Amt":1.50,"Qty":2,"Prc":20.00,"Neg":-0.05,"Tiny":0.30000000000000004}]}}}');
    const esr = doc.body.ESR as Record<string, unknown>;
    assert.equal(esr.T, '1.50');
    assert.equal(esr.Ref, '12345678901234567890');
    assert.equal(esr.TID, '292');
    assert.deepEqual(esr.PosA, [{ _: 'Pos', Amt: '1.50', Qty: '2', Prc: '20.00', Neg: '-0.05', Tiny: '0.30000000000000004' }]);
  });

  test('a body without numbers decodes the same as with numbers in string form', () => {
    const a = decodeJson('{"Tra":{"ESR":{"T":1.50,"TN":42}}}');
    const b = decodeJson('{"Tra":{"ESR":{"T":"1.50","TN":"42"}}}');
    assert.deepEqual(a.body, b.body);
  });

  test('an EAN with leading zeros keeps its zeros', () => {
    const doc = decodeJson('{"Tra":{"ESR":{"PosA":[{"_":"Pos","IN":"0012345678905"}]}}}');
    assert.deepEqual(doc.body, { ESR: { PosA: [{ _: 'Pos', IN: '0012345678905' }] } });
    assert.match(encodeJson(doc.root, doc.body), /"IN":"0012345678905"/);
  });

  test('null is absent, booleans become 1/0', () => {
    const doc = decodeJson('{"Tra":{"ESR":{"TN":null,"Void":true,"Test":false,"Ctm":null}}}');
    assert.deepEqual(doc.body, { ESR: { Void: '1', Test: '0' } });
  });

  test('company attributes of 5+ letters survive decode and encode', () => {
    const text = '{"Tra":{"ESR":{"Kundenkarte":"0042","LoyaltyInfo":{"Level":"gold","Points":"120"},"PosA":[{"_":"Pos","Dsc":"x","ArticleGroup":"dairy","Amt":"1.00"}]}}}';
    const doc = decodeJson(text);
    const esr = doc.body.ESR as Record<string, unknown>;
    assert.equal(esr.Kundenkarte, '0042');
    assert.deepEqual(esr.LoyaltyInfo, { Level: 'gold', Points: '120' });
    assert.equal((esr.PosA as Array<Record<string, unknown>>)[0]?.ArticleGroup, 'dairy');
    assert.equal(encodeJson(doc.root, doc.body), text);
  });

  test('line arrays keep the order of Pos, Mod and Lin', () => {
    const doc = decodeJson('{"Tra":{"ESR":{"PosA":[{"_":"Lin","Dsc":"a"},{"_":"Pos","PN":"1"},{"_":"Mod","PN":"1"},{"_":"Lin","Dsc":"b"},{"_":"Pos","PN":"2"}]}}}');
    const posA = (doc.body.ESR as Record<string, Array<Record<string, string>>>).PosA ?? [];
    assert.deepEqual(posA.map((l) => l._), ['Lin', 'Pos', 'Mod', 'Lin', 'Pos']);
  });

  test('a control character or non-character in any string is refused, escaped or raw, with its path', () => {
    const bodies = [
      '{"Tra":{"ESR":{"TN":"7\\u0001","PosA":[{"_":"Pos","Dsc":"a"}]}}}',
      '{"Tra":{"ESR":{"TN":"7","PosA":[{"_":"Pos","Dsc":"a\\b"}]}}}',
      '{"Tra":{"ESR":{"TN":"7","PosA":[{"_":"Pos","Dsc":"a\uFFFF"}]}}}',
      '{"Tra":{"ESR":{"TN":"7\\"","PosA":[{"_":"Pos","Dsc":"a\uFFFE"}]}}}',
      '{"Tra":{"ESR":{"TN":"7\\"","PosA":[{"_":"Pos","Dsc":"a\\f\\\\"}]}}}',
      '{"Tra":{"ESR":{"TN":"7\\/","PosA":[{"_":"Pos","Dsc":"a\\uffff"}]}}}',
    ];
    const paths = ['Tra.ESR.TN', 'Tra.ESR.PosA[0].Dsc', 'Tra.ESR.PosA[0].Dsc', 'Tra.ESR.PosA[0].Dsc', 'Tra.ESR.PosA[0].Dsc', 'Tra.ESR.PosA[0].Dsc'];
    bodies.forEach((body, i) => {
      const e = fiscalError(() => decodeJson(body));
      assert.equal(e.code, '#MALFORMED', body);
      assert.match(e.message, new RegExp(`${(paths[i] ?? '').replace(/[.[\]]/g, '\\$&')} contains a control character`), body);
    });
    // tab, line feed and carriage return are text; an escaped quote or backslash is no control character
    const ok = decodeJson('{"Tra":{"ESR":{"TN":"7","PosA":[{"_":"Pos","Dsc":"a\\tb\\n\\"c\\\\"}]}}}');
    assert.deepEqual(ok.body, { ESR: { TN: '7', PosA: [{ _: 'Pos', Dsc: 'a\tb\n"c\\' }] } });
  });

  test('malformed JSON gives #MALFORMED', () => {
    for (const bad of ['{"Tra":', '{"Tra":{}} trailing', 'not json', '[{"Tra":{}}]', '"Tra"', '42', 'null', '{"Tra":1}', '{"Tra":"x"}', '{"Tra":[]}', '{}', '{"Tra":{},"Audit":{}}']) {
      const e = fiscalError(() => decodeJson(bad));
      assert.equal(e.code, '#MALFORMED', `for ${bad}`);
      assert.equal(e.rc, 'BAD');
      assert.equal(e.status, 400);
      assert.match(e.message, /JSON/);
    }
  });
});

describe('encodeJson', () => {
  test('SQ and TID become JSON integers, everything else stays a string', () => {
    const text = encodeJson('TraSC', { SQ: '360', Result: { RC: 'OK' }, Fis: { TID: '292', StartD: '2024-08-01T10:50:30' } });
    assert.equal(text, '{"TraSC":{"SQ":360,"Result":{"RC":"OK"},"Fis":{"TID":292,"StartD":"2024-08-01T10:50:30"}}}');
  });

  test('amounts, TN, TL, TT, Qty and Prc stay strings', () => {
    const text = encodeJson('TraC', { SQ: '7', ESR: { TN: '12', TL: '001', TT: '1', T: '3.98' }, Tax: { Prc: '20.00', Qty: '1' } });
    const parsed = JSON.parse(text) as { TraC: { SQ: unknown; ESR: Record<string, unknown>; Tax: Record<string, unknown> } };
    assert.equal(parsed.TraC.SQ, 7);
    assert.deepEqual(parsed.TraC.ESR, { TN: '12', TL: '001', TT: '1', T: '3.98' });
    assert.deepEqual(parsed.TraC.Tax, { Prc: '20.00', Qty: '1' });
  });

  test('a TID in a request ESR round-trips as an integer', () => {
    const doc = decodeJson('{"Tra":{"ESR":{"TID":292,"TN":"1"}}}');
    assert.equal(encodeJson(doc.root, doc.body), '{"Tra":{"ESR":{"TID":292,"TN":"1"}}}');
  });

  test('Result.Warning is an array of strings and Fis.Tag an array of objects', () => {
    const body = { SQ: '1', Result: { RC: 'OK', Warning: ['a', 'b'] }, Fis: { Tag: [{ Name: 'FN', Value: '3', Label: 'TrNr:' }] } };
    const parsed = JSON.parse(encodeJson('TraC', body)) as { TraC: { Result: { Warning: unknown }; Fis: { Tag: unknown } } };
    assert.deepEqual(parsed.TraC.Result.Warning, ['a', 'b']);
    assert.deepEqual(parsed.TraC.Fis.Tag, [{ Name: 'FN', Value: '3', Label: 'TrNr:' }]);
  });
});
