/**
 * GET /export?type=saft of a Norwegian register: a zip with the SAF-T Cash Register XML of the period
 * (`SAF-T Cash Register_<org.nr>_<yyyymmddhhmmss>.xml`, saft-xml.ts), the public key of every key version
 * used (`public-key-<version>.pem`), so that Skatteetaten's signature validator (and `efr verify --country no`)
 * can check every signature, and, when the period's first cash transaction is not nr 1,
 * `previous-signature.txt` (`<registerID> <nr> <signature>` of the signed transaction before it) so that the
 * first signature can be checked too. The XML is streamed into the zip: the journal is read in passes
 * (saft-xml.ts runPasses), never held in memory, and the export yields to the event loop as it goes.
 */
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import type { JournalRecord } from '../../journal/types.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { type SaftScan, orgNumber, saftCashRegisterXmlChunks, saftFileName } from './saft-xml.js';
import { KEY_VERSION, noSigningKey } from './signing-key.js';

/** The journal records' data (JournalRecord.data parsed), in the order read. */
export async function* readRecords(records: AsyncIterable<JournalRecord>): AsyncGenerator<Obj> {
  for await (const r of records) yield JSON.parse(r.data) as Obj;
}

/** The line of previous-signature.txt, when the file's first cash transaction is not the register's first. */
export function previousSignatureLine(scan: SaftScan | undefined): string | undefined {
  return scan?.previous ? `${scan.registerId} ${scan.previous.nr} ${scan.previous.signature}\n` : undefined;
}

/**
 * Puts streamed XML chunks into a zip entry: the first chunk is awaited here (the first pass over the journal
 * runs, and its errors, e.g. an invalid value, still reach the caller before the response starts), the rest
 * flow as yazl reads them. An error later destroys the zip's output stream.
 */
export async function streamIntoZip(zip: ZipFile, chunks: AsyncGenerator<string>, name: string): Promise<void> {
  const first = await chunks.next();
  async function* buffers(): AsyncGenerator<Buffer> {
    if (!first.done) yield Buffer.from(first.value, 'utf8');
    for await (const c of chunks) yield Buffer.from(c, 'utf8');
  }
  zip.on('error', (err: Error) => (zip.outputStream as unknown as Readable).destroy(err));
  zip.addReadStream(Readable.from(buffers()), name);
}

export async function exportSaft(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg, period } = req;
  const cfg = reg.state.cfg;
  const org = orgNumber(str(obj(cfg, 'Cmp') ?? {}, 'TaxId'));
  if (!/^\d{9}$/.test(org)) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TaxId', detail: `the organisation number (9 digits, e.g. NO999999999MVA) is the companyIdent of the SAF-T file, got "${str(obj(cfg, 'Cmp') ?? {}, 'TaxId') ?? ''}"` });
  const rid = reg.state.rid;
  const created = ctx.clock.now();
  const registerId = str(obj(cfg, 'Trm') ?? {}, 'TT') ?? reg.state.rn;
  let scan: SaftScan | undefined;
  // the whole journal of the register, read in passes: the period's records are chosen by the writer, the older ones give the grand totals
  const chunks = saftCashRegisterXmlChunks({
    records: () => readRecords(ctx.store.range(rid, 1)), cfg, registerId, period, created,
    software: { name: 'efr fiscal register', version: ctx.version, company: 'efr' },
    onScanned: (s) => { scan = s; },
  });
  const zip = new ZipFile();
  await streamIntoZip(zip, chunks, saftFileName(org, created));
  zip.addBuffer(Buffer.from(noSigningKey(ctx.dataDir).publicPem), `public-key-${KEY_VERSION}.pem`);
  const previous = previousSignatureLine(scan);
  if (previous) zip.addBuffer(Buffer.from(previous, 'utf8'), 'previous-signature.txt');
  zip.end();
  return { body: zip.outputStream, file: `saft-${org}.zip`, contentType: 'application/zip' };
}
