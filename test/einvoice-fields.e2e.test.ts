/**
 * E-invoice and invoice fields of a transaction: eDoc_testNormalize turns a plain 2-letter ESR.DD into the
 * country's test system (`AT` is journaled as `AT-TEST`, explicit values stay), and an invoice whose customer
 * lacks Nam, Adr, Zip or City is registered with a Warning naming each missing field. JSON and XML.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeXml } from '../src/register/codec/xml.js';
import { get, post, sale, startTestService } from './helpers.js';

const XML = { 'content-type': 'application/xml' };

/** A sale of 3.50 at tax letter A in XML, with extra ESR attributes and inner elements. */
function xmlSale(tn: string, attrs: string, inner = ''): string {
  return `<Tra><ESR TL="1" TT="1" TN="${tn}" ${attrs}>${inner}<PosA><Pos PN="1" Dsc="Article" TaxG="A" Amt="3.50"/></PosA><PayA><Pay Dsc="Cash" PayG="cash" Amt="3.50"/></PayA></ESR></Tra>`;
}

test('eDoc_testNormalize: a plain 2-letter DD is journaled with -TEST, other values as sent; without it DD stays', async () => {
  const svc = await startTestService();
  try {
    // without the attribute DD is journaled as sent
    assert.equal((await post(`${svc.url}/register`, sale({ TN: '1', DD: 'AT' }))).status, 200);
    assert.equal((await get(`${svc.url}/tra?TL=1&TT=1&TN=1`)).json.Tra.ESR.DD, 'AT');

    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: 'eDoc_testNormalize' })).status, 200);
    const json = await post(`${svc.url}/register`, sale({ TN: '2', DD: 'AT' }));
    assert.equal(json.status, 200, json.text);
    assert.equal(json.json.TraC.Result.RC, 'OK');
    const tra = await get(`${svc.url}/tra?TL=1&TT=1&TN=2`);
    assert.equal(tra.json.Tra.ESR.DD, 'AT-TEST');
    const found = await get(`${svc.url}/find?tn=2`);
    assert.equal(found.json.Find.Records[0].ESR.DD, 'AT-TEST');

    const xml = await post(`${svc.url}/register`, xmlSale('3', 'DD="de"'), XML);
    assert.equal(xml.status, 200, xml.text);
    assert.match(xml.text, /<Result RC="OK"/);
    const traXml = decodeXml((await get(`${svc.url}/tra?TL=1&TT=1&TN=3`, { accept: 'text/xml' })).text);
    assert.equal(traXml.root, 'Tra');
    assert.equal((traXml.body.ESR as Record<string, unknown>).DD, 'de-TEST');

    // explicit values stay: one with a suffix of its own, a test value already, a system that is no country code
    for (const [tn, dd] of [['4', 'AT-DEMO'], ['5', 'AT-TEST'], ['6', 'PEPPOL'], ['7', 'A']] as const) {
      assert.equal((await post(`${svc.url}/register`, sale({ TN: tn, DD: dd }))).status, 200);
      assert.equal((await get(`${svc.url}/tra?TL=1&TT=1&TN=${tn}`)).json.Tra.ESR.DD, dd, dd);
    }
    assert.equal((await post(`${svc.url}/register`, xmlSale('8', 'DD="AT-DEMO"'), XML)).status, 200);
    const explicitXml = decodeXml((await get(`${svc.url}/find?tn=8`, { accept: 'text/xml' })).text);
    const records = explicitXml.body.Records as Array<Record<string, Record<string, unknown>>>;
    assert.equal(records[0]?.ESR?.DD, 'AT-DEMO');

    // switched off again by its value
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: 'eDoc_testNormalize=NO' })).status, 200);
    assert.equal((await post(`${svc.url}/register`, sale({ TN: '9', DD: 'AT' }))).status, 200);
    assert.equal((await get(`${svc.url}/tra?TL=1&TT=1&TN=9`)).json.Tra.ESR.DD, 'AT');
  } finally {
    await svc.stop();
  }
});

test('an invoice whose customer lacks Nam, Adr, Zip or City is registered with a Warning naming each field', async () => {
  const svc = await startTestService();
  try {
    const only = await post(`${svc.url}/register`, sale({ TN: '1', Ctm: { Adr: 'Road 1' } }));
    assert.equal(only.status, 200, only.text);
    assert.equal(only.json.TraC.Result.RC, 'OK');
    const warnings: string[] = only.json.TraC.Result.Warning;
    assert.deepEqual(
      warnings.map((w) => /^(ESR\.Ctm\.\w+) is missing/.exec(w)?.[1]),
      ['ESR.Ctm.Nam', 'ESR.Ctm.Zip', 'ESR.Ctm.City'],
      JSON.stringify(warnings),
    );
    // journaled with the record: GET /last and /tra show it too
    assert.deepEqual((await get(`${svc.url}/last`)).json.TraC.Result.Warning, warnings);

    const xml = await post(`${svc.url}/register`, xmlSale('2', '', '<Ctm Nam="ACME" Adr="Road 1" Zip="1010"/>'), XML);
    assert.equal(xml.status, 200, xml.text);
    const answer = decodeXml(xml.text);
    assert.equal(answer.root, 'TraC');
    const result = answer.body.Result as Record<string, unknown>;
    assert.equal(result.RC, 'OK');
    const xmlWarnings = [result.Warning].flat();
    assert.equal(xmlWarnings.length, 1, xml.text);
    assert.match(String(xmlWarnings[0]), /^ESR\.Ctm\.City is missing/);

    // a DT naming an invoice without any customer
    const none = await post(`${svc.url}/register`, sale({ TN: '3', DT: 'invoice' }));
    assert.equal(none.status, 200, none.text);
    assert.match(none.json.TraC.Result.Warning[0], /^ESR\.Ctm is missing/);

    // a complete customer, and a plain sale: no warning
    const full = await post(`${svc.url}/register`, sale({ TN: '4', Ctm: { Nam: 'ACME', Adr: 'Road 1', Zip: '1010', City: 'Wien' } }));
    assert.equal(full.json.TraC.Result.Warning, undefined, full.text);
    const plain = await post(`${svc.url}/register`, sale({ TN: '5' }));
    assert.equal(plain.json.TraC.Result.Warning, undefined, plain.text);
  } finally {
    await svc.stop();
  }
});
