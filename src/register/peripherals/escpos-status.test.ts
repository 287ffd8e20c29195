import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusByte, statusOf } from './escpos-status.js';
import { targetOf } from './printer-config.js';
import { displayCommands, displayLines, printLines } from './escpos-commands.js';

test('DLE EOT answers: fixed bits, drawer, cover, paper near end and end, errors', () => {
  assert.ok(isStatusByte(0x12) && isStatusByte(0x16) && !isStatusByte(0x00) && !isStatusByte(0x5f));
  assert.deepEqual(statusOf({ 1: 0x12, 2: 0x12, 3: 0x12, 4: 0x12 }), { online: true, drawerOpen: false, coverOpen: false, paperNearEnd: false, paperEnd: false, error: null });
  const s = statusOf({ 1: 0x1e, 2: 0x36, 3: 0x1a, 4: 0x7e });
  assert.deepEqual(s, { online: false, drawerOpen: true, coverOpen: true, paperNearEnd: true, paperEnd: true, error: 'autocutter error' });
});

test('Printer_Port: host, host:port, [v6]:port; default 9100; refusals', () => {
  assert.deepEqual(targetOf('printer.local'), { host: 'printer.local', port: 9100 });
  assert.deepEqual(targetOf('10.0.0.5:9101'), { host: '10.0.0.5', port: 9101 });
  assert.deepEqual(targetOf('[::1]:9100'), { host: '::1', port: 9100 });
  for (const bad of ['', 'a b', 'host:0', 'host:70000', 'http://x']) assert.equal(targetOf(bad), undefined, bad);
});

test('display: two lines of 20, controls as spaces; print lines without controls', () => {
  assert.deepEqual(displayLines('Total\tX\n123456789012345678901234\nthird'), ['Total X', '12345678901234567890']);
  assert.deepEqual([...displayCommands(['A', 'B'])], [0x1b, 0x40, 0x1b, 0x74, 19, 0x0c, 0x41, 0x1f, 0x24, 1, 2, 0x42]);
  assert.deepEqual(printLines('a\x1bp\r\nb\tc\n'), ['ap', 'b c']);
});
