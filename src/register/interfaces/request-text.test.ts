import { test } from 'node:test';
import assert from 'node:assert/strict';
import { looksIncomplete, readRequestText } from './request-text.js';

test('RN and TaxId: root attributes in XML, root fields in JSON, names in any case', () => {
  assert.deepEqual(readRequestText('<Tra RN="r1" TaxId="ATU1"><ESR TL="1"/></Tra>').query, { rn: 'r1', taxid: 'ATU1' });
  assert.deepEqual(readRequestText('{"Tra":{"rn":"r2","TAXID":"DE1","ESR":{}}}').query, { rn: 'r2', taxid: 'DE1' });
  assert.deepEqual(readRequestText('{"Tra":{"ESR":{"RN":"inside"}}}').query, {}, 'ESR.RN is the pipeline\'s');
  assert.deepEqual(readRequestText('{"Tra":{"RN":{"x":"1"},"ESR":{}}}').query, {}, 'only text values');
  assert.deepEqual(readRequestText('<Audit RN="r3"><Text>x</Text></Audit>').query, { rn: 'r3' });
});

test('a byte order mark is dropped; the text decodes', () => {
  const r = readRequestText('\uFEFF<Tra RN="r1"><ESR/></Tra>');
  assert.equal(r.text.startsWith('<Tra'), true);
  assert.equal(r.doc?.root, 'Tra');
  assert.equal(r.doc?.format, 'xml');
});

test('incomplete: empty or not well-formed; a whole document of the wrong kind is not', () => {
  for (const text of ['', '   ', '{"Tra":{"ESR":', '<Tra><ESR TL="1"/>', '{"Tra":{}} x']) assert.equal(looksIncomplete(readRequestText(text)), true, text);
  for (const text of ['{"Foo":{}}', '<Tra><ESR/></Tra>', '[1]', '<!DOCTYPE x><Tra/>']) assert.equal(looksIncomplete(readRequestText(text)), false, text);
});
