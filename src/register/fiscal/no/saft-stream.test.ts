/**
 * SAF-T Cash Register exports that scale (Norway, and Denmark's writer on the same passes): a register's
 * journal of 5,000 records with 25 Z reports is written to a real SQLite journal here; the export reads it in
 * two passes and streams it into the zip, giving the event loop a turn at least every 500 records read, so a
 * large export never holds the service up (how long the longest stall is on a given machine is measured by
 * bench/export-stall.ts, not asserted here). The big file's last Z report must carry the figures summed here
 * (grand totals from the first record, returns on sales receipts counted as returns), a Pos.Cat 'SAL' must
 * not collide with the line type SAL, a consumption tax (TTY) must stay out of the VAT figures, and a period
 * export must validate against the official XSD (keyrefs checked) and carry previous-signature.txt naming the
 * transaction before the period. Signatures are placeholders: the writer writes what Fis holds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { openPromise } from 'yauzl';
import { CFG, bigJournal, journalStore, money } from '../../../../test/saft-journal.js';
import { vectorPath } from '../../../shared/testing.js';
import type { Obj } from '../../codec/index.js';
import type { JournalRecord } from '../../journal/types.js';
import { danishSaftXmlChunks } from '../dk/saft-xml.js';
import type { ExportRequest } from '../module.js';
import { exportSaft, previousSignatureLine, readRecords, streamIntoZip } from './export.js';
import type { SaftScan } from './saft-xml.js';

const NO_XSD = vectorPath('no-saft', 'Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd');
const DK_VECTORS = vectorPath('dk-saft');
/** The writers give the event loop a turn at least this often (saft-xml.ts YIELD_EVERY). */
const YIELD_EVERY = 500;

/**
 * Runs `work` with a setImmediate loop beside it. `count` wraps a journal read so that every record read is
 * counted; at each turn of the loop the count so far is noted. A writer that yields to the event loop every
 * 500 records lets the loop turn at least that often; one that built the file in one go (the journal is read
 * without a macrotask in between) would read the whole journal without a single turn.
 */
async function withLoopTurns<T>(work: (count: (records: AsyncIterable<JournalRecord>) => AsyncIterable<JournalRecord>) => Promise<T>): Promise<{ result: T; read: number; turns: number; mostReadWithoutTurn: number }> {
  let read = 0;
  const noted = [0];
  let running = true;
  const turn = (): void => {
    if (!running) return;
    noted.push(read);
    setImmediate(turn);
  };
  setImmediate(turn);
  async function* count(records: AsyncIterable<JournalRecord>): AsyncIterable<JournalRecord> {
    for await (const r of records) {
      read += 1;
      yield r;
    }
  }
  try {
    const result = await work(count);
    noted.push(read);
    const gaps = noted.slice(1).map((n, k) => n - (noted[k] as number));
    return { result, read, turns: noted.length - 2, mostReadWithoutTurn: Math.max(...gaps) };
  } finally {
    running = false;
  }
}

async function drain(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function unzip(zip: Buffer, dir: string): Promise<Record<string, string>> {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(path, zip);
  const z = await openPromise(path, { lazyEntries: true, autoClose: false });
  const out: Record<string, string> = {};
  try {
    for await (const e of z.eachEntry()) out[e.fileName] = (await drain(await z.openReadStreamPromise(e))).toString('utf8');
  } finally {
    await z.close();
  }
  return out;
}

/** xmllint against the schema and against a copy whose identity constraints match namespaced elements (keyrefs, unique basicIDs). */
function xmllint(xml: string, xsd: string, ns: string, dir: string, env: NodeJS.ProcessEnv = process.env): { status: number | null; stderr: string } {
  const file = join(dir, 'saft.xml');
  writeFileSync(file, xml);
  const schema = readFileSync(xsd, 'utf8')
    .replace(/(<xsd:(?:selector|field) xpath=")([^"]*)"/g, (_m, head: string, path: string) =>
      `${head}${path.split('/').map((step) => (step === '.' || step === '' ? step : `n:${step}`)).join('/')}"`)
    .replace('<xsd:schema ', `<xsd:schema xmlns:n="${ns}" `);
  const keyrefs = join(dir, 'keyrefs.xsd');
  writeFileSync(keyrefs, schema);
  try {
    for (const s of [xsd, keyrefs]) {
      const r = spawnSync('xmllint', ['--nonet', '--noout', '--schema', s, file], { encoding: 'utf8', env });
      if (r.status !== 0) return { status: r.status, stderr: r.stderr.slice(0, 2000) };
    }
    return { status: 0, stderr: '' };
  } finally {
    rmSync(keyrefs, { force: true });
  }
}

const lastReport = (xml: string): string => xml.slice(xml.lastIndexOf('<eventReport>'), xml.lastIndexOf('</eventReport>'));
const field = (xml: string, name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

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
