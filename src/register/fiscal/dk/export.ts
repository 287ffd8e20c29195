/**
 * GET /export?type=saft of a Danish register: a zip with the SAF-T Cash Register XML of the period
 * (`SAF-T Cash Register_<CVR>_<yyyymmddhhmmss>_1_1.xml`, saft-xml.ts), each cash transaction carrying the
 * certificate it was signed with, as the Danish validator reads it.
 */
import { ZipFile } from 'yazl';
import { type Obj, isObj, obj, str } from '../../codec/index.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { fiscalCertificatePem } from '../certificate-store.js';
import { danishSaftFileName, danishSaftXml } from './saft-xml.js';
import { cvrOf } from './index.js';

export async function exportSaft(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg, period } = req;
  const cfg = reg.state.cfg;
  const cvr = cvrOf(cfg);
  // the whole journal of the register: the period's records are chosen by the writer, the older ones give the grand totals
  const records: Obj[] = [];
  const certificates: Record<string, string> = {};
  for await (const r of ctx.store.range(reg.state.rid, 1)) {
    const data = JSON.parse(r.data) as Obj;
    records.push(data);
    const serial = isObj(data.Fis) ? str(data.Fis, 'CertSerial') : undefined;
    if (serial && !(serial in certificates)) {
      const pem = fiscalCertificatePem(ctx.dataDir, reg.state.rn, serial);
      if (pem) certificates[serial] = pem;
    }
  }
  const created = ctx.clock.now();
  const registerId = (str(obj(cfg, 'Trm') ?? {}, 'TT') ?? reg.state.rn).slice(0, 36);
  const xml = danishSaftXml({ records, cfg, registerId, period, created, software: { name: 'efr fiscal register', version: ctx.version, company: 'efr' }, certificates });
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(xml, 'utf8'), danishSaftFileName(cvr, created));
  zip.end();
  return { body: zip.outputStream, file: `saft-${cvr}.zip`, contentType: 'application/zip' };
}
