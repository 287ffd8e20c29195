import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { humanLine, localTime } from './log-format.js';

describe('a log line for people', () => {
  test('local time, level, message, fields; an error by type and message without its stack', () => {
    const time = new Date(2026, 4, 1, 8, 5, 9, 42).getTime();
    const line = JSON.stringify({ level: 50, time, pid: 1, hostname: 'h', reqId: 'req-1', err: { type: 'TypeError', message: 'x is undefined', stack: 'TypeError: x\n at y' }, msg: 'request failed', path: '/a b' });
    assert.equal(humanLine(line), '2026-05-01 08:05:09.042 ERROR request failed reqId=req-1 err="TypeError: x is undefined" path="/a b"');
    assert.equal(localTime(time), '2026-05-01 08:05:09.042');
  });

  test('lines that are no JSON are shown as they are, control characters as spaces', () => {
    assert.equal(humanLine('{"level":30,"ti'), '{"level":30,"ti');
    assert.equal(humanLine(JSON.stringify({ level: 30, time: 0, msg: 'a\nb\u0001c' })).slice(-5), 'a b c');
    assert.equal(humanLine(JSON.stringify({ level: 30, time: 0, msg: 'cut \ud83d' })).slice(-5), 'cut \ufffd');
  });
});
