/**
 * A Norwegian SAF-T Cash Register export that scales: a register's journal of 5,000 records with 25 Z
 * reports is written to a real SQLite journal here; the export reads it in two passes and streams it into the
 * zip, giving the event loop a turn at least every 500 records read, so a large export never holds the service
 * up (how long the longest stall is on a given machine is measured by bench/export-stall.ts, not asserted
 * here). The big file's last Z report must carry the figures summed here (grand totals from the first record,
 * returns on sales receipts counted as returns), a Pos.Cat 'SAL' must not collide with the line type SAL, a
 * consumption tax (TTY) must stay out of the VAT figures, and a period export must validate against the
 * official XSD (keyrefs checked) and carry previous-signature.txt naming the transaction before the period.
 * Signatures are placeholders: the writer writes what Fis holds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CFG, bigJournal, journalStore, money } from '../../../../test/saft-journal.js';
import { vectorPath } from '../../../shared/testing.js';
import type { Obj } from '../../codec/index.js';
import type { JournalRecord } from '../../journal/types.js';
import type { ExportRequest } from '../module.js';
import { YIELD_EVERY, drain, field, lastReport, unzip, withLoopTurns, xmllint } from '../saft-cash-register/export.testing.js';
import { exportSaft } from './export.js';

const NO_XSD = vectorPath('no-saft', 'Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd');

test('a journal of 5,000 records and 25 Z reports: the Norwegian export reads it in two passes with a turn of the event loop at least every 500 records, the figures add up', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saft-stream-'));
  const { records, sums } = bigJournal(25, 200);
  assert.equal(records.length, 5_000);
  const { store, rid } = await journalStore(dir, records);
  try {
    type Count = (records: AsyncIterable<JournalRecord>) => AsyncIterable<JournalRecord>;
    const req = (period: ExportRequest['period'], count: Count = (r) => r): ExportRequest => {
      const ctx = { store: { range: (id: number, from: number) => count(store.range(id, from)) }, clock: { now: () => new Date(2024, 3, 10, 12, 0, 0) }, dataDir: dir, version: 'test' };
      return ({ ctx, reg: { state: { rid, rn: 'R1', cfg: CFG.Cfg } }, period, query: {}, requireLocalOrPassword: () => undefined }) as unknown as ExportRequest;
    };

    const run = await withLoopTurns(async (count) => drain((await exportSaft(req({}, count))).body as NodeJS.ReadableStream));
    assert.equal(run.read, 2 * 5_000, 'two passes over the journal, each read from the store');
    assert.ok(run.mostReadWithoutTurn <= YIELD_EVERY, `${run.mostReadWithoutTurn} records were read without a turn of the event loop`);
    assert.ok(run.turns >= run.read / YIELD_EVERY, `the event loop turned ${run.turns} times while ${run.read} records were read`);

    const files = await unzip(run.result, dir);
    assert.deepEqual(Object.keys(files).sort(), ['SAF-T Cash Register_999888777_20240410120000.xml', 'public-key-1.pem'], 'from nr 1: no previous-signature.txt');
    const xml = files['SAF-T Cash Register_999888777_20240410120000.xml'] as string;
    assert.ok(xml.endsWith('</auditfile>\n'));
    assert.equal(xml.split('<cashtransaction>').length - 1, 25 * 193);
    assert.equal(xml.split('<reportType>Z report</reportType>').length - 1, 25);
    assert.equal(xml.split('<reportType>X report</reportType>').length - 1, 25);
    const z = lastReport(xml);
    assert.equal(field(z, 'reportID'), '25');
    assert.equal(field(z, 'reportGrandTotalSales'), money(sums.grandSales));
    assert.equal(field(z, 'reportGrandTotalReturn'), money(sums.grandReturn));
    assert.equal(field(z, 'reportGrandTotalSalesNet'), money(sums.grandSales - sums.grandReturn));
    assert.equal(field(z, 'totalCashSaleAmnt'), money(sums.dayCashSale));
    assert.equal(field(z, 'reportReturnNum'), String(sums.dayReturnNum), 'returns on sales receipts count');
    assert.equal(field(z, 'reportReturnAmnt'), money(sums.dayReturnAmnt));
    const vat25 = /<reportCashSaleVat>\s*<vatCode>3<\/vatCode>[\s\S]*?<vatAmnt>([^<]*)<\/vatAmnt>/.exec(z)?.[1];
    assert.equal(vat25, money(sums.dayVat25), 'the consumption tax is not VAT');
    // Pos.Cat 'SAL' is the article group AG-SAL, the line type SAL stays SAL; each basicID once
    assert.match(xml, /<artGroupID>AG-SAL<\/artGroupID>/);
    const basicIds = [...xml.matchAll(/<basicID>([^<]*)<\/basicID>/g)].map((m) => m[1]);
    assert.equal(new Set(basicIds).size, basicIds.length, 'no basicID twice');
    assert.ok(basicIds.includes('SAL') && basicIds.includes('AG-SAL'));

    // a period: the zip names the transaction before it, the file validates (keyrefs too)
    const period = await exportSaft(req({ from: '2024-01-11', till: '2024-01-13' }));
    const pfiles = await unzip(await drain(period.body as NodeJS.ReadableStream), dir);
    const pxml = pfiles['SAF-T Cash Register_999888777_20240410120000.xml'] as string;
    const firstNr = Number(field(pxml.slice(pxml.indexOf('<cashtransaction>')), 'nr'));
    assert.equal(firstNr, 10 * 193 + 1, 'the period starts on day 11');
    const before = records.filter((r) => (r.Fis as Obj | undefined)?.FN === String(firstNr - 1))[0] as Obj;
    assert.equal(pfiles['previous-signature.txt'], `1 ${firstNr - 1} ${(before.Fis as Obj).Signature as string}\n`);
    const lint = xmllint(pxml, NO_XSD, 'urn:StandardAuditFile-Taxation-CashRegister:NO', dir);
    assert.equal(lint.status, 0, lint.stderr);
    assert.doesNotMatch(pxml, /<vat>\s*<vatCode>[^<]*<\/vatCode>\s*<vatPerc>25.00<\/vatPerc>\s*<vatAmnt>[^<]*<\/vatAmnt>\s*<vatAmntTp>[CD]<\/vatAmntTp>\s*<vatBasAmnt>(-?\d+\.\d\d)<\/vatBasAmnt>\s*<\/vat>\s*<vat>\s*<vatCode>[^<]*<\/vatCode>\s*<vatPerc>25.00/, 'no second 25 % block (the consumption tax)');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
