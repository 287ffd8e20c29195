import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEinvoice, saveEinvoice } from './store.js';

test('an e-invoice is kept whole, and a write that fails leaves no temporary file behind', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'efr-einvoice-store-'));
  try {
    await saveEinvoice(dataDir, 'ATU1$1_1', 1, '<Invoice/>');
    assert.equal(await loadEinvoice(dataDir, 'ATU1$1_1', 1), '<Invoice/>');
    const folder = join(dataDir, 'einvoice', 'ATU1_1_1');
    // the place of SQ 2 is taken by a folder: the rename fails
    mkdirSync(join(folder, '2.xml', 'x'), { recursive: true });
    await assert.rejects(saveEinvoice(dataDir, 'ATU1$1_1', 2, '<Invoice/>'));
    assert.deepEqual(readdirSync(folder).sort(), ['1.xml', '2.xml']);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
