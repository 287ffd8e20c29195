/** The verifier reads an export's records in the order of the numbers in their names, not of the text. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordFileName } from './export.js';
import { compareRecordNames } from './verify.js';

test('record files are ordered by number: 999,999 before 1,000,000 and 999,999,999 before 1,000,000,000', () => {
  const names = [1_000_000_000, 2, 1_000_000, 999_999_999, 999_999, 10, 1].map(recordFileName);
  assert.equal(recordFileName(7), 'records/000000007.xml');
  // as text, the 10-digit name would sort before 999,999,999
  assert.ok(recordFileName(1_000_000_000) < recordFileName(999_999_999));
  const sorted = [...names].sort(compareRecordNames);
  assert.deepEqual(sorted, [1, 2, 10, 999_999, 1_000_000, 999_999_999, 1_000_000_000].map(recordFileName));
  // the 6-digit names of older exports order the same way
  assert.deepEqual(['records/1000000.xml', 'records/999999.xml', 'records/000010.xml'].sort(compareRecordNames), ['records/000010.xml', 'records/999999.xml', 'records/1000000.xml']);
});
