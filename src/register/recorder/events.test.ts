import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fiscalStateEvents } from './fiscal-state-events.js';

const codes = (before: Record<string, string>, after: Record<string, string>): string[] => fiscalStateEvents(before, after).map((e) => e.code);

test('German TSE: initialized, failing and answering again are events; nothing else is', () => {
  assert.deepEqual(codes({}, { 'de|initialized': '1' }), ['TSE_ACTIVATED']);
  assert.deepEqual(codes({ 'de|initialized': '1' }, { 'de|initialized': '1', 'de|failedSince': '1700000000' }), ['TSE_FAILURE']);
  assert.deepEqual(codes({ 'de|initialized': '1', 'de|failedSince': '1700000000' }, { 'de|initialized': '1', 'de|failedSince': '1700000000' }), [], 'still failing: no new event');
  assert.deepEqual(codes({ 'de|initialized': '1', 'de|failedSince': '1700000000', 'de|failedCount': '3' }, { 'de|initialized': '1' }), ['TSE_RECOVERED']);
  assert.match(fiscalStateEvents({ 'de|failedSince': '1', 'de|failedCount': '3' }, {})[0]?.detail ?? '', /3 operation/);
});

test('Austrian signature device per cashbox: start receipt signed, Sicherheitseinrichtung ausgefallen, signing again', () => {
  assert.deepEqual(codes({}, { 'KASSE-1|started': '1', 'KASSE-1|failed': '' }), ['TSE_ACTIVATED']);
  assert.deepEqual(codes({ 'KASSE-1|started': '1', 'KASSE-1|failed': '' }, { 'KASSE-1|started': '1', 'KASSE-1|failed': '1' }), ['SIGNATURE_DEVICE_FAILURE']);
  assert.deepEqual(codes({ 'KASSE-1|started': '1', 'KASSE-1|failed': '1' }, { 'KASSE-1|started': '1', 'KASSE-1|failed': '1' }), []);
  assert.deepEqual(codes({ 'KASSE-1|started': '1', 'KASSE-1|failed': '1' }, { 'KASSE-1|started': '1', 'KASSE-1|failed': '' }), ['SIGNATURE_DEVICE_RECOVERED']);
  assert.match(fiscalStateEvents({ 'KASSE-1|started': '1' }, { 'KASSE-1|started': '1', 'KASSE-1|failed': '1' })[0]?.detail ?? '', /KASSE-1/);
  // the turnover counter and the chain move on every receipt: no event
  assert.deepEqual(codes({ 'KASSE-1|started': '1', 'KASSE-1|turnover': '100' }, { 'KASSE-1|started': '1', 'KASSE-1|turnover': '250' }), []);
});
