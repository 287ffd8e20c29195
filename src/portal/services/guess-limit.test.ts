import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GuessLimit } from './guess-limit.js';

test('GuessLimit: misses per address and window; the window ends; the oldest addresses are dropped', () => {
  let now = 1_000_000;
  const l = new GuessLimit({ limit: 3, windowMs: 60_000, maxAddresses: 2 }, () => now);
  assert.equal(l.blocked('a'), false);
  l.miss('a');
  l.miss('a');
  assert.equal(l.blocked('a'), false, '2 of 3');
  l.miss('a');
  assert.equal(l.blocked('a'), true, '3 of 3');
  assert.equal(l.blocked('b'), false, 'another address is not');
  assert.equal(l.retryAfter('a'), 60);
  now += 59_000;
  assert.equal(l.blocked('a'), true);
  assert.equal(l.retryAfter('a'), 1);
  now += 1_000;
  assert.equal(l.blocked('a'), false, 'a new window');
  assert.equal(l.retryAfter('a'), 0);
  for (let i = 0; i < 3; i++) l.miss('b');
  l.miss('c');
  l.miss('d'); // beyond maxAddresses: b (the oldest) is dropped
  assert.equal(l.blocked('b'), false);
});
