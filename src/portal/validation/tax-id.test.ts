import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atCheck, deCheck, taxIdProblem } from './tax-id.js';

test('published valid numbers pass, one changed digit fails', () => {
  assert.equal(taxIdProblem('ATU13585627', 'AT'), undefined);
  assert.equal(taxIdProblem('atu 135 856 27', 'AT'), undefined);
  assert.equal(taxIdProblem('DE136695976', 'DE'), undefined);
  assert.equal(taxIdProblem('DE 136.695.976', 'DE'), undefined);
  assert.equal(taxIdProblem('ATU13585628', 'AT')?.key, 'taxIdCheckDigit');
  assert.equal(taxIdProblem('DE136695970', 'DE')?.key, 'taxIdCheckDigit');
});

test('for any first digits exactly one check digit is accepted (AT and DE)', () => {
  for (let n = 0; n < 300; n++) {
    const at = String((n * 7_654_321 + 1_234_567) % 10_000_000).padStart(7, '0');
    const de = String(10_000_000 + ((n * 76_543_211) % 89_999_999));
    assert.equal([...'0123456789'].filter((d) => atCheck(at + d)).length, 1, at);
    assert.equal([...'0123456789'].filter((d) => deCheck(de + d)).length, 1, de);
  }
});

test('formats by country, prefixes of other states, countries outside the EU', () => {
  assert.equal(taxIdProblem('EL123456789', 'GR'), undefined);
  assert.equal(taxIdProblem('FRXX123456789', 'FR'), undefined);
  assert.equal(taxIdProblem('ESB12345678', 'ES'), undefined);
  assert.equal(taxIdProblem('SE123456789001', 'SE'), undefined);
  assert.equal(taxIdProblem('SE123456789002', 'SE')?.key, 'taxIdFormat');
  assert.equal(taxIdProblem('NL123456789A01', 'NL')?.key, 'taxIdFormat');
  assert.equal(taxIdProblem('ATU13585627', 'DE')?.key, 'taxIdCountry');
  assert.equal(taxIdProblem('CHE-123.456.789 MWST', 'CH'), undefined);
});
