import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seal, unseal } from './secret-box.js';

test('sealed secrets open only in the same data folder, for the same purpose, unchanged', () => {
  const a = mkdtempSync(join(tmpdir(), 'efr-box-'));
  const b = mkdtempSync(join(tmpdir(), 'efr-box-'));
  try {
    const sealed = seal(a, 'p', 'pässwort');
    assert.doesNotMatch(sealed, /pässwort|p%C3/);
    assert.equal(unseal(a, 'p', sealed), 'pässwort');
    assert.notEqual(seal(a, 'p', 'pässwort'), sealed, 'a fresh IV each time');
    assert.equal(unseal(a, 'other', sealed), undefined);
    assert.equal(unseal(b, 'p', sealed), undefined, 'another instance has another key');
    const parsed = JSON.parse(sealed) as { data: string };
    const data = Buffer.from(parsed.data, 'base64');
    data[0] = (data[0] ?? 0) ^ 1;
    assert.equal(unseal(a, 'p', JSON.stringify({ ...parsed, data: data.toString('base64') })), undefined);
    assert.equal(unseal(a, 'p', 'not json'), undefined);
    assert.equal(readFileSync(join(a, 'keys', 'secret.key')).length, 32);
    assert.equal(statSync(join(a, 'keys', 'secret.key')).mode & 0o077, 0, 'only the owner reads the key');
  } finally {
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  }
});
