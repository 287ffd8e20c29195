import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalError } from '../../shared/errors.js';
import { cleanOptionsOf, keepFromOf, threeFullMonths } from './clean-options.js';
import { fileCandidates } from './clean.js';
import type { FolderEntry } from './disk-usage.js';

const MB = 1_048_576;

test('keep: by default the current month and the three full months before it', () => {
  assert.equal(threeFullMonths(new Date(2026, 10, 23, 10, 0)), '2026-08-01');
  assert.equal(threeFullMonths(new Date(2026, 1, 28, 23, 59)), '2025-11-01');
  assert.equal(threeFullMonths(new Date(2026, 0, 1, 0, 0)), '2025-10-01');
  assert.equal(keepFromOf(undefined, new Date(2026, 10, 23)), '2026-08-01');
  assert.equal(keepFromOf('', new Date(2026, 10, 23)), '2026-08-01');
});

test('keep: a number of days before today, or a date not after today', () => {
  const now = new Date(2026, 2, 2, 12, 0);
  assert.equal(keepFromOf('0', now), '2026-03-02');
  assert.equal(keepFromOf('2', now), '2026-02-28');
  assert.equal(keepFromOf('365', now), '2025-03-02');
  assert.equal(keepFromOf('2026-01-15', now), '2026-01-15');
  assert.equal(keepFromOf('2026-03-02', now), '2026-03-02');
  for (const bad of ['2026-03-03', '2026-02-30', '-1', '1.5', 'soon', '99999999']) {
    assert.throws(() => keepFromOf(bad, now), (e: unknown) => e instanceof FiscalError && e.code === '#INVALID_VALUE' && e.params.field === 'keep', bad);
  }
});

test('quota: the request, else the profile DiskQuota, else 1024 MB', () => {
  const now = new Date(2026, 10, 23);
  assert.equal(cleanOptionsOf({}, now, undefined).quota, 1024 * MB);
  assert.equal(cleanOptionsOf({}, now, 5 * MB).quota, 5 * MB);
  assert.equal(cleanOptionsOf({ quota: '0.5' }, now, 5 * MB).quota, 0.5 * MB);
  assert.equal(cleanOptionsOf({ quota: '0' }, now, undefined).quota, 0);
  for (const bad of ['-1', 'abc', '1e3', 'NaN', '1,5']) {
    assert.throws(() => cleanOptionsOf({ quota: bad }, now, undefined), (e: unknown) => e instanceof FiscalError && e.params.field === 'quota', bad);
  }
});

test('clean candidates: rotated logs, then exports, then TSE backups before keep except the newest of each folder; never keys or incremental chains', () => {
  const at = (y: number, m: number, d: number): number => new Date(y, m - 1, d).getTime();
  const f = (path: string, mtimeMs: number, size = 10): FolderEntry => ({ path, dir: false, size, mtimeMs });
  const entries: FolderEntry[] = [
    f('log/efr.log', at(2026, 1, 1)),
    f('log/efr.2.log', at(2026, 3, 1)),
    f('log/efr.1.log', at(2026, 2, 1)),
    f('retrieve/a/0001.jou', at(2026, 11, 1)),
    // an incremental chain: under the configured root, and one elsewhere recognised by its names
    f('backup/def/0001.zip', at(2026, 1, 1)),
    f('backup/def/0002.zip', at(2026, 2, 1)),
    f('backup/def/0003.zip.tmp', at(2026, 2, 1)),
    f('retrieve/chain/def/0001.zip', at(2026, 1, 1)),
    f('log/def/0001.zip', at(2026, 1, 1)),
    f('de/R/backup/tse-1.tar', at(2026, 1, 1)),
    f('de/R/backup/tse-2.tar', at(2026, 9, 1)),
    // a register named backup: its TSE's key, certificate and counters are no backups
    f('de/backup/tse.key.pem', at(2020, 1, 1)),
    f('de/backup/tse.cert.pem', at(2020, 1, 1)),
    f('de/backup/backup/tse-1.tar', at(2026, 1, 1)),
    f('de/backup/backup/dsfinvk-2.zip', at(2026, 2, 1)),
    f('de/backup/backup/tse-3.tar', at(2026, 9, 1)),
    f('de/R/backups/x.tar', at(2020, 1, 1)),
    f('journal/journal.sqlite', at(2020, 1, 1)),
    f('keys/instance.key.pem', at(2020, 1, 1)),
    f('at/box/backup.pem', at(2020, 1, 1)),
    f('at/backup/device-1/key.pem', at(2020, 1, 1)),
    f('fr/backup/key.pem', at(2020, 1, 1)),
    { path: 'backup', dir: true, size: 0, mtimeMs: 0 },
  ];
  const picked = fileCandidates({ entries, total: 0, truncated: false }, '2026-08-01', ['backup']).map((c) => `${c.kind} ${c.entry.path}`);
  assert.deepEqual(picked, [
    'log log/efr.1.log',
    'log log/efr.2.log',
    'export retrieve/a/0001.jou',
    'backup de/R/backup/tse-1.tar',
    'backup de/backup/backup/tse-1.tar',
    'backup de/backup/backup/dsfinvk-2.zip',
  ]);
  // without the configured root, the chain's half-written file is an ordinary file outside every cleaned folder
  const bare = fileCandidates({ entries, total: 0, truncated: false }, '2026-08-01').map((c) => c.entry.path);
  assert.ok(!bare.some((p) => p.startsWith('backup/') || p.endsWith('0001.zip')), bare.join(' '));
});
