/**
 * A Danish SAF-T Cash Register export that scales: the writer reads a register's journal of 5,000 records
 * with 25 Z reports from a real SQLite journal in two passes, giving the event loop a turn at least every 500
 * records read; the last Z report carries the grand totals summed here, and a period export validates
 * against the Danish XSD (keyrefs checked) and carries previous-signature.txt naming the transaction before
 * the period. Signatures and the certificate are placeholders: the writer writes what Fis holds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { CFG, bigJournal, journalStore, money } from '../../../../test/saft-journal.js';
import { vectorPath } from '../../../shared/testing.js';
import type { Obj } from '../../codec/index.js';
import type { JournalRecord } from '../../journal/types.js';
import { readRecords, streamIntoZip } from '../saft-cash-register/export-stream.js';
import { YIELD_EVERY, drain, field, lastReport, unzip, withLoopTurns, xmllint } from '../saft-cash-register/export.testing.js';
import type { SaftScan } from '../saft-cash-register/passes.js';
import { previousSignatureLine } from '../saft-cash-register/previous-signature.js';
import { danishSaftXmlChunks } from './saft-xml.js';

const DK_VECTORS = vectorPath('dk-saft');

test('the Danish writer reads the same 5,000 records with a turn of the event loop at least every 500 records; a period validates against the Danish XSD', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saft-stream-dk-'));
  const { records, sums } = bigJournal(25, 200);
  const { store, rid } = await journalStore(dir, records);
  try {
    const cert = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----';
    const exportDk = async (period: { from?: string; till?: string }, count = (r: AsyncIterable<JournalRecord>): AsyncIterable<JournalRecord> => r): Promise<{ zip: Buffer; scan: SaftScan | undefined }> => {
      let scan: SaftScan | undefined;
      const chunks = danishSaftXmlChunks({
        records: () => readRecords(count(store.range(rid, 1))), cfg: CFG, registerId: '1', period, created: new Date(2024, 3, 10, 12, 0, 0),
        software: { name: 'efr', version: 'test', company: 'efr' }, certificates: { '0A': cert }, onScanned: (s) => { scan = s; },
      });
      const zip = new ZipFile();
      await streamIntoZip(zip, chunks, 'saft.xml');
      const line = previousSignatureLine(scan);
      if (line) zip.addBuffer(Buffer.from(line), 'previous-signature.txt');
      zip.end();
      return { zip: await drain(zip.outputStream), scan };
    };
    const run = await withLoopTurns((count) => exportDk({}, count));
    assert.equal(run.read, 2 * 5_000, 'two passes over the journal');
    assert.ok(run.mostReadWithoutTurn <= YIELD_EVERY, `${run.mostReadWithoutTurn} records were read without a turn of the event loop`);
    assert.ok(run.turns >= run.read / YIELD_EVERY, `the event loop turned ${run.turns} times while ${run.read} records were read`);
    const xml = (await unzip(run.result.zip, dir))['saft.xml'] as string;
    assert.equal(xml.split('<cashtransaction>').length - 1, 25 * 193);
    const z = lastReport(xml);
    assert.equal(field(z, 'reportGrandTotalSales'), money(sums.grandSales));
    assert.equal(field(z, 'reportGrandTotalReturn'), money(sums.grandReturn));
    assert.equal(field(z, 'reportReturnNum'), String(sums.dayReturnNum));

    const p = await exportDk({ from: '2024-01-11', till: '2024-01-11' });
    const pfiles = await unzip(p.zip, dir);
    const nr = 10 * 193;
    const before = records.find((r) => (r.Fis as Obj | undefined)?.FN === String(nr)) as Obj;
    assert.equal(pfiles['previous-signature.txt'], `1 ${nr} ${(before.Fis as Obj).Signature as string}\n`);
    const lint = xmllint(pfiles['saft.xml'] as string, join(DK_VECTORS, 'Danish_SAF-T_Cash_Register_Schema_v_1.0.3.xsd'), 'urn:StandardAuditFile-Taxation-CashRegister:DK', dir,
      { ...process.env, XML_CATALOG_FILES: join(DK_VECTORS, 'catalog.xml') });
    assert.equal(lint.status, 0, lint.stderr);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
