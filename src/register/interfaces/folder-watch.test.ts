import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderWatch } from './folder-watch.js';

function changes(polling: boolean): Promise<{ mode: string; calls: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'efr-watch-'));
  return new Promise((resolve, reject) => {
    let calls = 0;
    const w = new FolderWatch(dir, () => {
      calls += 1;
      w.close();
      rmSync(dir, { recursive: true, force: true });
      resolve({ mode: w.mode, calls });
    }, { pollMs: 300, sweepMs: 60_000, polling }, undefined);
    setTimeout(() => writeFileSync(join(dir, 'a.req'), 'x'), 20);
    setTimeout(() => {
      w.close();
      reject(new Error('no change seen'));
    }, 10_000);
  });
}

test('native watching reports a new file', async () => {
  assert.equal((await changes(false)).mode, 'native');
});

test('polling (a network folder) calls every 300 ms', async () => {
  assert.equal((await changes(true)).mode, 'polling');
});

test('a folder that cannot be watched natively is polled', () => {
  const w = new FolderWatch(join(tmpdir(), 'efr-no-such-folder-here'), () => undefined, { pollMs: 300, sweepMs: 5000, polling: false }, undefined);
  try {
    assert.equal(w.mode, 'polling');
  } finally {
    w.close();
  }
});
