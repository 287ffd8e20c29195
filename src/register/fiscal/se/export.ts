/**
 * GET /export?type=saft of a Swedish register: a zip with the SAF-T Cash Register XML of the period
 * (`SAF-T Cash Register_<org.nr>_<yyyymmddhhmmss>.xml`, saft-xml.ts), the public key of every control unit
 * the register used (`control-unit-<manufacturing number>.pem`, the export's keyVersion), and, when the
 * period's first receipt is not nr 1, `previous-signature.txt` (`<registerID> <nr> <signature>` of the
 * receipt before it) so that the first signature of the period can be checked too. The XML is streamed into
 * the zip from the journal read in passes (saft-cash-register/passes.ts).
 */
import { ZipFile } from 'yazl';
import { obj } from '../../codec/index.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { readRecords, streamIntoZip } from '../saft-cash-register/export-stream.js';
import type { SaftScan } from '../saft-cash-register/passes.js';
import { previousSignatureLine } from '../saft-cash-register/previous-signature.js';
import { ORG_NR, orgNrOf, registerIdOf } from './control-data.js';
import { unitPublicKeys } from './control-unit.js';
import { saftFileName, swedishSaftXmlChunks } from './saft-xml.js';

export async function exportSaft(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg, period } = req;
  const cfg = reg.state.cfg;
  // the organisation number the register's receipts were signed for, once it has signed
  const orgNr = reg.state.country[ORG_NR] ?? orgNrOf(cfg);
  const created = ctx.clock.now();
  let scan: SaftScan | undefined;
  // the whole journal of the register, read in passes: the period's records are chosen by the writer, the older ones give the grand totals
  // the file's companyIdent is the organisation number (Cmp.Org or the VAT number's), also when no receipt of the period signed one
  const cmp = obj(cfg, 'Cmp') ?? {};
  const chunks = swedishSaftXmlChunks({
    records: () => readRecords(ctx.store.range(reg.state.rid, 1)), cfg: { ...cfg, Cmp: { ...cmp, TaxId: `SE${orgNr}01` } }, registerId: registerIdOf(reg.state), period, created,
    software: { name: 'efr fiscal register', version: ctx.version, company: 'efr' },
    onScanned: (s) => { scan = s; },
  });
  const zip = new ZipFile();
  await streamIntoZip(zip, chunks, saftFileName(orgNr, created));
  for (const [id, pem] of unitPublicKeys(ctx.dataDir, reg.state.rn)) zip.addBuffer(Buffer.from(pem), `control-unit-${id}.pem`);
  const previous = previousSignatureLine(scan);
  if (previous) zip.addBuffer(Buffer.from(previous, 'utf8'), 'previous-signature.txt');
  zip.end();
  return { body: zip.outputStream, file: `saft-${orgNr}.zip`, contentType: 'application/zip' };
}
