import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reply } from '../respond.js';
import { fitDatagram } from './datagram.js';

const answer = (format: 'json' | 'xml', qr: string) =>
  reply(format, { root: 'TraC', body: { SQ: '7', Result: { RC: 'OK' }, ESR: { D: '2024-01-01T10:00:00', TN: '3' }, Fis: { Code: 'C'.repeat(300), QR: qr } } });

test('an answer that fits is sent as it is', () => {
  const r = answer('json', 'Q'.repeat(100));
  assert.equal(fitDatagram(r, 2000).toString('utf8'), r.body);
});

test('too large: Fis.QR goes first, with a warning naming the sizes', () => {
  for (const format of ['json', 'xml'] as const) {
    const r = answer(format, 'Q'.repeat(5000));
    const out = fitDatagram(r, 2000).toString('utf8');
    assert.ok(out.length <= 2000);
    assert.ok(out.includes('C'.repeat(300)), 'Fis.Code stays');
    assert.ok(!out.includes('QQQQ'));
    assert.match(out, new RegExp(`larger than one datagram \\(${Buffer.byteLength(r.body)} (>|&gt;) 2000 bytes\\): Fis.QR left out`));
  }
});

test('still too large: SQ, ESR and Result only, RC kept', () => {
  const r = answer('json', 'Q'.repeat(5000));
  const out = JSON.parse(fitDatagram(r, 300).toString('utf8')).TraC;
  assert.equal(out.SQ, 7);
  assert.equal(out.Result.RC, 'OK');
  assert.equal(out.ESR.TN, '3');
  assert.equal(out.Fis, undefined);
  assert.match(out.Result.Warning[0], /only SQ, ESR and Result are sent/);
  const dup = reply('json', { root: 'TraC', body: { SQ: '7', Result: { RC: 'OK', ErrorCode: '#DUPLICATE', Warning: ['duplicate of SQ 7'] }, Fis: { QR: 'Q'.repeat(5000) } } });
  const d = JSON.parse(fitDatagram(dup, 400).toString('utf8')).TraC;
  assert.equal(d.Result.ErrorCode, '#DUPLICATE');
  assert.equal(d.Result.Warning[0], 'duplicate of SQ 7', 'earlier warnings stay');
});
