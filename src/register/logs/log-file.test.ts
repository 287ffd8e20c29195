import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogFile, logFileNames } from './log-file.js';

describe('the log file', () => {
  test('rotation by size keeps the bound: efr.log and at most `keep` rotated files, no line lost among them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'efr-logfile-'));
    try {
      let limits = { maxBytes: 1000, keep: 3 };
      const file = new LogFile(dir, () => limits);
      for (let i = 0; i < 300; i++) file.write(`${JSON.stringify({ n: i, pad: 'p'.repeat(20) })}\n`);
      assert.deepEqual(readdirSync(dir).sort(), ['efr.log', 'efr.log.1', 'efr.log.2', 'efr.log.3']);
      for (const name of readdirSync(dir)) assert.ok(statSync(join(dir, name)).size <= 1000, name);
      // oldest to newest, the files hold the last lines in order, without a gap
      const numbers = logFileNames(dir).flatMap((n) => readFileSync(join(dir, n), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { n: number }).n));
      assert.equal(numbers[numbers.length - 1], 299);
      numbers.forEach((n, i) => assert.equal(n, (numbers[0] as number) + i));
      assert.ok(numbers.length >= 75, `${numbers.length}`);
      // a smaller bound deletes the files beyond it at the next rotation
      limits = { maxBytes: 1000, keep: 1 };
      for (let i = 300; i < 340; i++) file.write(`${JSON.stringify({ n: i, pad: 'p'.repeat(20) })}\n`);
      assert.deepEqual(readdirSync(dir).sort(), ['efr.log', 'efr.log.1']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a file deleted by someone else (disk cleaning) is started again; the folder too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'efr-logfile-'));
    try {
      const file = new LogFile(join(dir, 'log'), () => ({ maxBytes: 1 << 20, keep: 2 }));
      file.write('one\n');
      rmSync(join(dir, 'log'), { recursive: true });
      file.write('two\n');
      assert.equal(readFileSync(join(dir, 'log', 'efr.log'), 'utf8'), 'two\n');
      writeFileSync(join(dir, 'log', 'efr.log.x'), 'not a log');
      assert.deepEqual(logFileNames(join(dir, 'log')), ['efr.log']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
