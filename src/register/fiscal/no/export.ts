/**
 * GET /export?type=saft of a Norwegian register: a zip with the SAF-T Cash Register XML of the period
 * (`SAF-T Cash Register_<org.nr>_<yyyymmddhhmmss>.xml`, saft-xml.ts), the public key of every key version
 * used (`public-key-<version>.pem`), so that Skatteetaten's signature validator (and `efr verify --country no`)
 * can check every signature, and, when the period's first cash transaction is not nr 1,
 * `previous-signature.txt` (`<registerID> <nr> <signature>` of the signed transaction before it) so that the
 * first signature can be checked too. The XML is streamed into the zip: the journal is read in passes
 * (saft-cash-register/passes.ts), never held in memory, and the export yields to the event loop as it goes.
 */
import { ZipFile } from 'yazl';
import { FiscalError } from '../../../shared/errors.js';
import { obj, str } from '../../codec/index.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { readRecords, streamIntoZip } from '../saft-cash-register/export-stream.js';
import type { SaftScan } from '../saft-cash-register/passes.js';
import { previousSignatureLine } from '../saft-cash-register/previous-signature.js';
import { orgNumber, saftCashRegisterXmlChunks, saftFileName } from './saft-xml.js';
import { KEY_VERSION, noSigningKey } from './signing-key.js';

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
