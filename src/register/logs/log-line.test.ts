import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanLine, cutLine } from './log-line.js';

describe('a log line on its way to the file', () => {
  test('Log_remove strips every match before anything else; the line stays one line', () => {
    const line = `${JSON.stringify({ level: 30, time: 1, msg: 'token abc123 and abc456', note: 'x' })}\n`;
    const out = cleanLine(line, { maxLineLength: 10_000, remove: /abc\d+/g });
    assert.ok(!out.includes('abc'));
    assert.ok(out.endsWith('\n') && out.indexOf('\n') === out.length - 1);
    assert.equal((JSON.parse(out) as { msg: string }).msg, 'token  and ');
    // an expression that takes a quote leaves text that is no JSON, but never a second line
    const broken = cleanLine(line, { maxLineLength: 10_000, remove: /"note"/g });
    assert.equal(broken.split('\n').length, 2);
  });

  test('Log_length cuts a JSON line to valid JSON with the original length', () => {
    const long = JSON.stringify({ level: 50, time: 1714550400000, msg: 'failed', err: { type: 'Error', message: 'x'.repeat(5000), stack: 'y'.repeat(5000) } });
    const out = cutLine(long, 300);
    assert.ok(out.length <= 300, `${out.length}`);
    const r = JSON.parse(out) as Record<string, unknown>;
    assert.equal(r.level, 50);
    assert.equal(r.time, 1714550400000);
    assert.equal(r.msg, 'failed');
    assert.equal(r.cut, long.length);
    assert.match(String(r.err), /…$/);
  });

  test('a long message is cut inside, escapes included', () => {
    const long = JSON.stringify({ level: 30, time: 2, msg: '"quoted"\\'.repeat(400) });
    for (const max of [120, 121, 122, 500]) {
      const out = cutLine(long, max);
      assert.ok(out.length <= max);
      assert.match((JSON.parse(out) as { msg: string }).msg, /^"quoted"\\.*…$/);
    }
  });

  test('text that is no JSON is cut plainly; short lines are left alone', () => {
    assert.equal(cutLine('a'.repeat(200), 100), `${'a'.repeat(99)}…`);
    assert.equal(cleanLine('{"a":1}\n', { maxLineLength: 100 }), '{"a":1}\n');
    assert.equal(cleanLine('{"a":1}', { maxLineLength: 100 }), '{"a":1}\n');
  });
});
