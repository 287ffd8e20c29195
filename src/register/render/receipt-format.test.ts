/**
 * Numbers, dates and tag values in the receipt's language: decimal commas in de, fr and nl, points in
 * en; each language's date order; tag values changed only where they are amounts or dates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Formatter } from './receipt-format.js';

test('amounts exactly as recorded, with the language\'s decimal mark', () => {
  assert.equal(new Formatter('de').amount('8.7'), '8,70');
  assert.equal(new Formatter('fr').amount('-1234.567'), '-1234,567');
  assert.equal(new Formatter('en').amount('8.70'), '8.70');
  assert.equal(new Formatter('nl').percent('19.00'), '19 %');
  assert.equal(new Formatter('de').number('1.50'), '1,5');
});

test('dates in each language\'s order; text that is no date stays', () => {
  const d = '2026-03-01T09:05:07';
  assert.equal(new Formatter('de').date(d), '01.03.2026 09:05:07');
  assert.equal(new Formatter('fr').date(d), '01/03/2026 09:05:07');
  assert.equal(new Formatter('nl').date(d), '01-03-2026 09:05:07');
  assert.equal(new Formatter('en').date(d), '01 Mar 2026 09:05:07');
  assert.equal(new Formatter('de').date('2026-03-01'), '01.03.2026');
  assert.equal(new Formatter('de').date('gestern'), 'gestern');
});

test('tag values: amounts and dates localized, device numbers and signatures as given', () => {
  const de = new Formatter('de');
  assert.equal(de.tagValue('20 % 15.20'), '20 % 15,20');
  assert.equal(de.tagValue('-3.50'), '-3,50');
  assert.equal(de.tagValue('2026-11-25 18:24:15'), '25.11.2026 18:24:15');
  for (const v of ['4', 'wien-3', '3194c616953599f2', 'VuSS+KQ==', '001/1', 'V1.2.3']) assert.equal(de.tagValue(v), v);
});

test('a tag value keeps every digit the module wrote: a number that is no amount is not made one', () => {
  const de = new Formatter('de');
  // an Austrian Beleg-Nr. is the POS's TN as given
  for (const v of ['2024.100', '1.5', '7.0', '20 % 1.5']) assert.equal(de.tagValue(v), v);
  assert.equal(de.tagValue('10.50 % 3.20'), '10,50 % 3,20');
  assert.equal(new Formatter('en').tagValue('20 % 15.20'), '20 % 15.20');
});

test('a rate in a tag label takes the language\'s decimal mark, the words stay', () => {
  assert.equal(new Formatter('fr').tagLabel('TTC 20.00 % :'), 'TTC 20,00 % :');
  assert.equal(new Formatter('en').tagLabel('TTC 20.00 % :'), 'TTC 20.00 % :');
  assert.equal(new Formatter('de').tagLabel('Beleg-Nr.:'), 'Beleg-Nr.:');
});

test('a country code as the country\'s name in the language', () => {
  assert.equal(new Formatter('de').country('AT'), 'Österreich');
  assert.equal(new Formatter('fr').country('de'), 'Allemagne');
  assert.equal(new Formatter('en').country(''), '');
});
