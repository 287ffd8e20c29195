import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLOUD_MAX_POS, maxPosOf } from './register-limit.js';

test('the POS limit: 100 for a cloud instance, none locally, EFR_MAX_POS for either (0: none)', () => {
  assert.equal(maxPosOf({}, true), CLOUD_MAX_POS);
  assert.equal(maxPosOf({}, false), undefined);
  assert.equal(maxPosOf({ EFR_MAX_POS: '250' }, true), 250);
  assert.equal(maxPosOf({ EFR_MAX_POS: '0' }, true), undefined);
  assert.equal(maxPosOf({ EFR_MAX_POS: '5' }, false), 5);
  assert.throws(() => maxPosOf({ EFR_MAX_POS: 'many' }, true), /EFR_MAX_POS/);
});
