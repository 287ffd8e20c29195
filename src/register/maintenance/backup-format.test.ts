import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JournalRecord } from '../journal/types.js';
import { backupName, parseBackupName, parseManifest, parseRecordLine, recordLine, safeRn } from './backup-format.js';
import { safeRelative } from './restore-read.js';

test('backup names: <RN>_<lastSQ>, read back from a name, a file name or a path', () => {
  assert.equal(backupName('def', 42), 'def_42');
  assert.equal(backupName('ATU1$wien_3', 7), 'ATU1_wien_3_7');
  assert.equal(safeRn('a/b c'), 'a_b_c');
  assert.deepEqual(parseBackupName('def_42'), { rn: 'def', lastSq: 42 });
  assert.deepEqual(parseBackupName('def_42.zip'), { rn: 'def', lastSq: 42 });
  assert.deepEqual(parseBackupName('/x/y/ATU1_wien_3_7.ZIP'), { rn: 'ATU1_wien_3', lastSq: 7 });
  assert.equal(parseBackupName('def'), undefined);
  assert.equal(parseBackupName('def_x.zip'), undefined);
  assert.equal(parseBackupName('_5'), undefined);
});

test('a record survives journal.jsonl unchanged, every column', () => {
  const r: JournalRecord = {
    rid: 3, sq: 9, type: 'Tra', d: '2025-01-02T10:00:00', tl: '1', tt: '2', tn: '7', fn: '12', t: '4.70', nfs: 'Z', bc: 'sale',
    ch: Buffer.from([1, 2, 3]), rh: Buffer.from([4, 5]), ref: 'FN:1', resume: '3', data: '{"_":"Tra","SQ":"9","x":"line\\nfeed"}',
    hash: Buffer.alloc(32, 7), sig: Buffer.alloc(64, 9),
  };
  const line = recordLine(r);
  assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'));
  assert.deepEqual(parseRecordLine(line.trim(), 3), r);
  const bare: JournalRecord = { rid: 1, sq: 1, type: 'Cfg', d: 'x', data: '{}', hash: Buffer.alloc(32), sig: Buffer.alloc(64) };
  assert.deepEqual(parseRecordLine(recordLine(bare).trim(), 1), bare);
  assert.throws(() => parseRecordLine('{"sq":0}', 1), /sq/);
  assert.throws(() => parseRecordLine('{"sq":1,"type":"Nope","d":"","data":"","hash":"","sig":""}', 1), /type/);
  assert.throws(() => parseRecordLine('[1]', 1), /object/);
});

test('a manifest is checked: format, RN, a consistent SQ range', () => {
  const good = { format: 'efr-backup-1', name: 'def_2', RN: 'def', kind: 'full', firstSQ: 1, lastSQ: 2, count: 2, prevHash: '0', lastHash: '1', sha256: {}, createdAt: '', generator: '', keyId: '' };
  assert.equal(parseManifest(JSON.stringify(good)).RN, 'def');
  assert.throws(() => parseManifest(JSON.stringify({ ...good, count: 3 })), /count/);
  assert.throws(() => parseManifest(JSON.stringify({ ...good, format: 'x' })), /format/);
  assert.throws(() => parseManifest(JSON.stringify({ ...good, kind: 'x' })), /kind/);
  assert.throws(() => parseManifest('nope'), /JSON/);
});

test('file paths of a backup stay inside the data folder', () => {
  assert.equal(safeRelative('at/1/device-0/key.pem'), true);
  for (const p of ['', '/etc/passwd', '../x', 'a/../../x', 'a//b', 'a\\b', './a']) assert.equal(safeRelative(p), false, p);
});
