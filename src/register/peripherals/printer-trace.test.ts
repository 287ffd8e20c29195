import { test } from 'node:test';
import assert from 'node:assert/strict';
import { traceText } from './printer-trace.js';

test('Printer_Log trace: commands readable, text only as its length', () => {
  const bytes = Buffer.concat([Buffer.from([0x1b, 0x40, 0x1b, 0x74, 19, 0x10, 0x04, 0x04]), Buffer.from('Article 1  3.50'), Buffer.from([0x0a, 0x1d, 0x56, 0x00])]);
  assert.equal(traceText(bytes), 'ESC @ ESC t 13 DLE EOT 04 <15 bytes> LF GS V 00');
});

test('Printer_Log trace: short texts (PIN, 4711) are counted too, never shown', () => {
  const text = traceText(Buffer.concat([Buffer.from([0x1b, 0x40]), Buffer.from('PIN'), Buffer.from([0x0a]), Buffer.from('4711'), Buffer.from([0x0a]), Buffer.from('A'), Buffer.from([0x1b, 0x69])]));
  assert.equal(text, 'ESC @ <3 bytes> LF <4 bytes> LF <1 bytes> ESC i');
  assert.ok(!/PIN|4711/.test(text));
});
