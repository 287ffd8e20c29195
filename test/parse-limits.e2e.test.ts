/**
 * The parse limits over real HTTP: bodies built to make decoding slow (one element with 190,000
 * attributes, one object with 150,000 keys) are refused with 400 RC BAD naming the limit, nothing is
 * journaled, the service keeps answering, and a transaction at the pipeline's limit of 5000 lines
 * still registers in JSON and in XML.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestService, get, post, startTestService } from './helpers.js';
import { encodeXml } from '../src/register/codec/xml.js';
import type { Obj } from '../src/register/codec/model.js';
import { TRANSACTION_LIMIT } from '../src/register/security/route-access.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc.stop();
});

const wideXml = `<Tra${Array.from({ length: 190_000 }, (_, i) => ` a${i.toString(36)}=""`).join('')}/>`;
const wideJson = `{"Tra":{${Array.from({ length: 150_000 }, (_, i) => `"k${i}":"1"`).join(',')}}}`;

/** A 5000-line sale (the pipeline's limit) with 16 fields per position, in the model of the codec. */
function bigSale(tt: string): Obj {
  const PosA: Obj[] = Array.from({ length: 5000 }, (_, i) => ({
    _: 'Pos', PN: String(i + 1), Dsc: `Article ${i + 1}, a description of ordinary length`, TaxG: 'A', Amt: '1.50', Qty: '1', Pri: '1.50',
    IN: '4006381333931', ID: `B${i}`, SKU: `SKU-${i}`, QtyU: 'pc', Note: 'no note', Cat: 'food', CatN: 'Food', InH: '1', ArticleGroup: 'dairy',
  }));
  return { ESR: { TL: '1', TT: tt, T: '7500.00', PosA, PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '7000.00' }, { _: 'Pay', Dsc: 'Card', PayG: 'debitcard', Amt: '500.00', UID: 'x-1' }] } };
}

describe('bodies that are slow to decode are refused', () => {
  test('the attack bodies fit the transaction body limit (so only the parse limits stop them)', () => {
    assert.ok(Buffer.byteLength(wideXml) > 1_500_000 && Buffer.byteLength(wideXml) < TRANSACTION_LIMIT);
    assert.ok(Buffer.byteLength(wideJson) < TRANSACTION_LIMIT);
  });

  test('190,000 attributes and 150,000 keys: 400 RC BAD naming the limit, nothing journaled, /state answering', async () => {
    const first = await post(`${svc.url}/register`, { Tra: { ESR: { TT: '1', PosA: [{ _: 'Pos', Dsc: 'a', TaxG: 'A', Amt: '1.00' }], PayA: [{ _: 'Pay', Dsc: 'c', Amt: '1.00' }] } } });
    assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
    const lastBefore = await get(`${svc.url}/last`);

    // the attacks and status requests side by side: every one is answered
    const [xml, json, ...states] = await Promise.all([
      post(`${svc.url}/register`, wideXml, { 'content-type': 'text/xml' }),
      post(`${svc.url}/register`, wideJson, { 'content-type': 'application/json' }),
      get(`${svc.url}/state`),
      get(`${svc.url}/state`),
    ]);
    assert.equal(xml.status, 400, xml.text.slice(0, 300));
    assert.match(xml.text, /<TraC><Result RC="BAD"><ErrorCode>#MALFORMED<\/ErrorCode><UserMessage>[^<]*Tra has more than 1000 attributes \(the limit per element\)/);
    assert.equal(json.status, 400, json.text.slice(0, 300));
    assert.equal(json.json.TraC.Result.RC, 'BAD');
    assert.equal(json.json.TraC.Result.ErrorCode, '#MALFORMED');
    assert.match(json.json.TraC.Result.UserMessage, /Tra has more than 1000 properties \(the limit per object\)/);
    for (const s of states) assert.equal(s.status, 200, s.text);

    // and after them
    assert.equal((await get(`${svc.url}/state`)).status, 200);
    const lastAfter = await get(`${svc.url}/last`);
    assert.equal(lastAfter.status, 200);
    assert.equal(lastAfter.text, lastBefore.text);
  });

  test('the same attack on /restart and /cfg is refused the same way', async () => {
    const restart = await post(`${svc.url}/restart`, wideJson, { 'content-type': 'application/json' });
    assert.equal(restart.status, 400);
    assert.match(restart.text, /more than 1000 properties/);
    const cfg = await post(`${svc.url}/cfg`, `<Cfg${Array.from({ length: 1001 }, (_, i) => ` a${i}="1"`).join('')}/>`, { 'content-type': 'text/xml' });
    assert.equal(cfg.status, 400, cfg.text);
    assert.match(cfg.text, /Cfg has more than 1000 attributes/);
  });
});

describe('legitimate transactions at the limit of lines still register', () => {
  test('5000 lines in JSON', async () => {
    const body = JSON.stringify({ Tra: bigSale('51') });
    assert.ok(Buffer.byteLength(body) < TRANSACTION_LIMIT, `${Buffer.byteLength(body)} bytes`);
    const r = await post(`${svc.url}/register`, body, { 'content-type': 'application/json' });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.json.TraC.Result.RC, 'OK', r.text.slice(0, 300));
  });

  test('5000 lines in XML', async () => {
    const body = encodeXml('Tra', bigSale('52'));
    assert.ok(Buffer.byteLength(body) < TRANSACTION_LIMIT, `${Buffer.byteLength(body)} bytes`);
    const r = await post(`${svc.url}/register`, body, { 'content-type': 'text/xml' });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.match(r.text, /<TraC[^>]*><Result RC="OK"/);
  });
});
