import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, encode, lines, obj, str, isObj, clone, type Obj } from './index.js';
import { fiscalError } from '../../shared/testing.js';


const RECEIPT_JSON = JSON.stringify({
  Tra: {
    ESR: {
      D: '2026-11-21T10:00:00',
      TL: '001',
      TT: '1',
      TN: '42',
      T: '4.70',
      Kundenkarte: '0042',
      Head: { Txt: 'Welcome' },
      Ctm: { Nam: 'ACME', Adr: 'Main St 1', Zip: '1010', City: 'Wien' },
      PosA: [
        { _: 'Pos', PN: '1', IN: '0012345678905', Dsc: 'Milk & Honey', TaxG: 'B', Amt: '1.50', Qty: '1', ArticleGroup: 'dairy' },
        { _: 'Lin', Dsc: '--' },
        { _: 'Pos', PN: '2', Dsc: 'Bread <fresh>', TaxG: 'A', Amt: '3.50' },
        { _: 'Mod', PN: '2', Dsc: '-10%', Amt: '-0.30' },
      ],
      PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '4.70' }],
      TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20.00', Amt: '3.20' }, { _: 'Tax', TaxG: 'B', Prc: '10.00', Amt: '1.50' }],
    },
  },
});

const RECEIPT_XML =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<Tra><ESR D="2026-11-21T10:00:00" TL="001" TT="1" TN="42" T="4.70" Kundenkarte="0042">' +
  '<Head Txt="Welcome"/><Ctm Nam="ACME" Adr="Main St 1" Zip="1010" City="Wien"/>' +
  '<PosA><Pos PN="1" IN="0012345678905" Dsc="Milk &amp; Honey" TaxG="B" Amt="1.50" Qty="1" ArticleGroup="dairy"/>' +
  '<Lin Dsc="--"/><Pos PN="2" Dsc="Bread &lt;fresh&gt;" TaxG="A" Amt="3.50"/><Mod PN="2" Dsc="-10%" Amt="-0.30"/></PosA>' +
  '<PayA><Pay Dsc="Cash" PayG="cash" Amt="4.70"/></PayA>' +
  '<TaxA><Tax TaxG="A" Prc="20.00" Amt="3.20"/><Tax TaxG="B" Prc="10.00" Amt="1.50"/></TaxA>' +
  '</ESR></Tra>';

describe('JSON and XML give the same model', () => {
  test('the same receipt decodes to the same document in both formats', () => {
    const j = decodeBody(RECEIPT_JSON, 'application/json', 'Tra');
    const x = decodeBody(RECEIPT_XML, 'text/xml', 'Tra');
    assert.equal(j.format, 'json');
    assert.equal(x.format, 'xml');
    assert.equal(j.root, x.root);
    assert.deepEqual(x.body, j.body);
  });

  test('JSON -> XML -> model and XML -> JSON -> model are lossless', () => {
    const j = decodeBody(RECEIPT_JSON, 'application/json', 'Tra');
    const x = decodeBody(RECEIPT_XML, 'text/xml', 'Tra');
    const viaXml = decodeBody(encode('xml', j.root, j.body), undefined, 'Tra');
    const viaJson = decodeBody(encode('json', x.root, x.body), undefined, 'Tra');
    assert.equal(viaXml.format, 'xml');
    assert.equal(viaJson.format, 'json');
    assert.deepEqual(viaXml.body, j.body);
    assert.deepEqual(viaJson.body, x.body);
    assert.equal(encode('json', viaJson.root, viaJson.body), RECEIPT_JSON);
  });

  test('JSON numbers decode to the same model as the XML text', () => {
    const j = decodeBody('{"Tra":{"ESR":{"T":1.50,"PosA":[{"_":"Pos","Amt":1.50,"Qty":1}]}}}', undefined, 'Tra');
    const x = decodeBody('<Tra><ESR T="1.50"><PosA><Pos Amt="1.50" Qty="1"/></PosA></ESR></Tra>', undefined, 'Tra');
    assert.deepEqual(j.body, x.body);
  });

  test('a response with SQ, TID, Warning and Tag crosses formats', () => {
    const body: Obj = { SQ: '360', Result: { RC: 'OK', Warning: ['w'] }, Fis: { TID: '292', StartD: '2024-08-01T10:50:30', Tag: [{ Name: 'FN', Value: '3', Label: '' }] } };
    const xml = encode('xml', 'TraSC', body);
    const back = decodeBody(xml, 'text/xml', 'TraSC');
    assert.deepEqual(back.body, body);
    assert.equal(encode('json', back.root, back.body), '{"TraSC":{"SQ":360,"Result":{"RC":"OK","Warning":["w"]},"Fis":{"TID":292,"StartD":"2024-08-01T10:50:30","Tag":[{"Name":"FN","Value":"3","Label":""}]}}}');
  });
});

describe('decodeBody', () => {
  test('an empty body is #EMPTY_BODY naming what was expected', () => {
    for (const text of ['', '   ', '\n']) {
      const e = fiscalError(() => decodeBody(text, 'application/json', 'Tra, TraS or Audit'));
      assert.equal(e.code, '#EMPTY_BODY');
      assert.match(e.message, /Tra, TraS or Audit/);
    }
  });

  test('sniffs the format when the content type says nothing', () => {
    assert.equal(decodeBody('<Tra/>', undefined, 'Tra').format, 'xml');
    assert.equal(decodeBody('{"Tra":{}}', 'text/plain', 'Tra').format, 'json');
  });

  test('XML sent as JSON is malformed, and vice versa', () => {
    assert.equal(fiscalError(() => decodeBody('<Tra/>', 'application/json', 'Tra')).code, '#MALFORMED');
    assert.equal(fiscalError(() => decodeBody('{"Tra":{}}', 'text/xml', 'Tra')).code, '#MALFORMED');
  });

  test('XML with a DOCTYPE is refused through decodeBody too', () => {
    assert.equal(fiscalError(() => decodeBody('<!DOCTYPE Tra><Tra/>', undefined, 'Tra')).code, '#XML_FORBIDDEN');
  });
});

describe('model helpers', () => {
  test('str, obj, lines, isObj, clone', () => {
    const o: Obj = { a: 'x', b: { c: 'y' }, l: [{ _: 'Pos' }, 'stray', { _: 'Mod' }], one: { _: 'Pay' } };
    assert.equal(str(o, 'a'), 'x');
    assert.equal(str(o, 'b'), undefined);
    assert.deepEqual(obj(o, 'b'), { c: 'y' });
    assert.equal(obj(o, 'a'), undefined);
    assert.deepEqual(lines(o, 'l'), [{ _: 'Pos' }, { _: 'Mod' }]);
    assert.deepEqual(lines(o, 'one'), [{ _: 'Pay' }]);
    assert.deepEqual(lines(o, 'missing'), []);
    assert.ok(isObj(o.b));
    assert.ok(!isObj(o.l));
    assert.ok(!isObj(o.a));
    const c = clone(o);
    assert.deepEqual(c, o);
    (c.b as Obj).c = 'changed';
    assert.equal((o.b as Obj).c, 'y');
  });
});
