import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatsOf } from './formats.js';

test('amounts keep every digit of their decimal text, with the language\'s separators', () => {
  assert.equal(formatsOf('en').amount('23.10'), '23.10');
  assert.equal(formatsOf('de').amount('23.10'), '23,10');
  assert.equal(formatsOf('de').amount('-1234567.891'), '−1.234.567,891');
  assert.equal(formatsOf('nl').amount('1000'), '1.000');
  assert.equal(formatsOf('fr').amount('1234.50').replace(/\s/g, ' '), '1 234,50');
  // 0.1 + 0.2 would not survive a JavaScript number
  assert.equal(formatsOf('de').amount('9007199254740993.30'), '9.007.199.254.740.993,30');
  assert.equal(formatsOf('de').amount('n/a'), 'n/a');
});

test('a journal time is shown with its own digits in the language\'s order, an offset named', () => {
  assert.equal(formatsOf('de').dateTime('2026-11-25T07:03:09'), '25.11.2026, 07:03:09');
  assert.equal(formatsOf('en').dateTime('2026-11-25T07:03:09'), '25/11/2026, 07:03:09');
  assert.equal(formatsOf('nl').dateTime('2026-11-25T23:59:59+01:00'), '25-11-2026, 23:59:59 (UTC+01:00)');
  assert.equal(formatsOf('de').dateTime('gestern'), 'gestern');
});

test('a duration in days, hours and minutes; seconds only in the first minute', () => {
  assert.equal(formatsOf('en').duration(281), '4 minutes');
  assert.equal(formatsOf('de').duration(281), '4 Minuten');
  assert.equal(formatsOf('de').duration(93_784), '1 Tag, 2 Stunden und 3 Minuten');
  assert.equal(formatsOf('fr').duration(3600).replace(/\s/g, ' '), '1 heure');
  assert.equal(formatsOf('nl').duration(86_400 + 60), '1 dag en 1 minuut');
  assert.equal(formatsOf('en').duration(30), '30 seconds');
});
