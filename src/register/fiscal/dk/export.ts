/**
 * GET /export?type=saft of a Danish register: a zip with the SAF-T Cash Register XML of the period
 * (`SAF-T Cash Register_<CVR>_<yyyymmddhhmmss>_1_1.xml`, saft-xml.ts), each cash transaction carrying the
 * certificate it was signed with (that certificate alone, without its CA chain), as the Danish validator reads it, and, when the period's first cash
 * transaction is not nr 1, `previous-signature.txt` (`<registerID> <nr> <signature>` of the signed transaction
 * before it). The XML is streamed into the zip from the journal read in passes (saft-cash-register/passes.ts).
 */
import { ZipFile } from 'yazl';
import { obj, str } from '../../codec/index.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { fiscalCertificatePem } from '../certificate-store.js';
import { readRecords, streamIntoZip } from '../saft-cash-register/export-stream.js';
import type { SaftScan } from '../saft-cash-register/passes.js';
import { previousSignatureLine } from '../saft-cash-register/previous-signature.js';
import { danishSaftFileName, danishSaftXmlChunks } from './saft-xml.js';
import { cvrOf } from './cvr.js';
import { signingCertificatePem } from './certificate-data.js';

export async function exportSaft(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg, period } = req;
  const cfg = reg.state.cfg;
  const cvr = cvrOf(cfg);
  const rid = reg.state.rid;
  // every installed certificate is kept by serial: looked up once per serial
  const certificates = new Map<string, string | undefined>();
  const certificateOf = (serial: string): string | undefined => {
    if (!certificates.has(serial)) {
      const chain = serial ? fiscalCertificatePem(ctx.dataDir, reg.state.rn, serial.toUpperCase()) : undefined;
      // the stored PEM also holds the CA chain of the PKCS#12 file; certificateData is the signer's alone
      certificates.set(serial, chain === undefined ? undefined : signingCertificatePem(chain, serial));
    }
    return certificates.get(serial);
  };
  const created = ctx.clock.now();
  const registerId = (str(obj(cfg, 'Trm') ?? {}, 'TT') ?? reg.state.rn).slice(0, 36);
  let scan: SaftScan | undefined;
  // the whole journal of the register, read in passes: the period's records are chosen by the writer, the older ones give the grand totals
  const chunks = danishSaftXmlChunks({
    records: () => readRecords(ctx.store.range(rid, 1)), cfg, registerId, period, created,
    software: { name: 'efr fiscal register', version: ctx.version, company: 'efr' }, certificates: certificateOf,
    onScanned: (s) => { scan = s; },
  });
  const zip = new ZipFile();
  await streamIntoZip(zip, chunks, danishSaftFileName(cvr, created));
  const previous = previousSignatureLine(scan);
  if (previous) zip.addBuffer(Buffer.from(previous, 'utf8'), 'previous-signature.txt');
  zip.end();
  return { body: zip.outputStream, file: `saft-${cvr}.zip`, contentType: 'application/zip' };
}
