import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endpointOfVat, unitOf } from './codes.js';

test('units: ESR words to Recommendation 20, its codes as sent, anything else one piece', () => {
  assert.deepEqual(['kg', 'Kg.', 'l', 'h', 'Stück', undefined, '', 'KGM', 'ltr', 'PCS', 'Fl'].map(unitOf), ['KGM', 'KGM', 'LTR', 'HUR', 'C62', 'C62', 'C62', 'KGM', 'LTR', 'C62', 'C62']);
});

test('Peppol ids of VAT numbers: the VAT scheme, or the register a country is addressed by', () => {
  assert.deepEqual(endpointOfVat('DE123456789'), { scheme: '9930', id: 'DE123456789' });
  assert.deepEqual(endpointOfVat('NO999999999MVA'), { scheme: '0192', id: '999999999' });
  assert.deepEqual(endpointOfVat('DK12345678'), { scheme: '0184', id: 'DK12345678' });
  assert.deepEqual(endpointOfVat('SE556036079301'), { scheme: '0007', id: '5560360793' });
  assert.deepEqual(endpointOfVat('FI12345678'), { scheme: '0213', id: 'FI12345678' });
  assert.equal(endpointOfVat('XX123'), undefined);
});
