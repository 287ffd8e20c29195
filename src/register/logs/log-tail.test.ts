import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogFile } from './log-file.js';
import { LogSnapshot } from './log-snapshot.js';
import { IidMarks, type LogMark, linesAfter } from './log-tail.js';

function read(dir: string, mark: LogMark | undefined, limits = { first: 5, max: 50, maxBytes: 1 << 20 }): { lines: string[]; mark: LogMark } {
  const snap = LogSnapshot.open(dir);
  try {
    return linesAfter(snap, mark, limits);
  } finally {
    snap.close();
  }
}

describe('the lines a client has not seen', () => {
  test('first the last lines, then only what came after, across rotations', () => {
    const dir = mkdtempSync(join(tmpdir(), 'efr-tail-'));
    try {
      const file = new LogFile(dir, () => ({ maxBytes: 200, keep: 4 }));
      const none = read(dir, undefined);
      assert.deepEqual(none.lines, []);
      for (let i = 0; i < 10; i++) file.write(`line ${i}\n`);
      const first = read(dir, none.mark);
      // the client saw the empty log: everything written since is new
      assert.deepEqual(first.lines, Array.from({ length: 10 }, (_, i) => `line ${i}`));
      assert.deepEqual(read(dir, undefined).lines, ['line 5', 'line 6', 'line 7', 'line 8', 'line 9']);
      assert.deepEqual(read(dir, first.mark).lines, []);
      // 30 more lines make two rotations: the mark's file is now efr.log.1 or older
      for (let i = 10; i < 40; i++) file.write(`line ${i}\n`);
      const second = read(dir, first.mark);
      assert.deepEqual(second.lines, Array.from({ length: 30 }, (_, i) => `line ${i + 10}`));
      // a client whose place was rotated away gets what is left, at most `max`
      for (let i = 40; i < 400; i++) file.write(`line ${i}\n`);
      const lagging = read(dir, second.mark);
      assert.equal(lagging.lines.length, 50);
      assert.equal(lagging.lines[49], 'line 399');
      // a byte budget cuts an answer too
      assert.deepEqual(read(dir, undefined, { first: 100, max: 100, maxBytes: 20 }).lines, ['line 398', 'line 399']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the clients remembered are bounded, the least recently seen forgotten', () => {
    const marks = new IidMarks(3);
    for (const iid of ['a', 'b', 'c']) marks.set(iid, { id: iid, offset: 1 });
    marks.set('a', { id: 'a', offset: 2 });
    marks.set('d', { id: 'd', offset: 1 });
    assert.equal(marks.size, 3);
    assert.equal(marks.get('b'), undefined);
    assert.deepEqual(marks.get('a'), { id: 'a', offset: 2 });
  });
});
