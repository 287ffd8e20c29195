import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEinvoice, saveEinvoice } from './store.js';

test('an e-invoice is kept whole, and a write that fails leaves no temporary file behind', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'efr-einvoice-store-'));
  try {
    await saveEinvoice(dataDir, 'K1', 1, '<Invoice/>');
    assert.equal(await loadEinvoice(dataDir, 'K1', 1), '<Invoice/>');
    const folder = join(dataDir, 'einvoice', 'K1');
    // the place of SQ 2 is taken by a folder: the rename fails
    mkdirSync(join(folder, '2.xml', 'x'), { recursive: true });
    await assert.rejects(saveEinvoice(dataDir, 'K1', 2, '<Invoice/>'));
    assert.deepEqual(readdirSync(folder).sort(), ['1.xml', '2.xml']);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('each register keeps its e-invoices apart, whatever characters its number holds', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'efr-einvoice-store-'));
  try {
    await saveEinvoice(dataDir, 'ATU1$1_1', 1, '<Invoice>of ATU1$1_1</Invoice>');
    for (const other of ['ATU1_1_1', 'ATU1 1_1', 'ATU1/1_1']) assert.equal(await loadEinvoice(dataDir, other, 1), undefined, other);
    await saveEinvoice(dataDir, '..', 1, '<Invoice/>');
    assert.deepEqual(readdirSync(dataDir), ['einvoice'], 'nothing beside the e-invoice folder');
    assert.equal(await loadEinvoice(dataDir, 'ATU1$1_1', 1), '<Invoice>of ATU1$1_1</Invoice>');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
