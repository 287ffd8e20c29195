/**
 * GET /export?type=saft of a Norwegian register: a zip with the SAF-T Cash Register XML of the period
 * (`SAF-T Cash Register_<org.nr>_<yyyymmddhhmmss>.xml`, saft-xml.ts) and the public key of every key version
 * used (`public-key-<version>.pem`), so that Skatteetaten's signature validator (and `efr verify --country no`)
 * can check every signature.
 */
import { ZipFile } from 'yazl';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { orgNumber, saftCashRegisterXml, saftFileName } from './saft-xml.js';
import { KEY_VERSION, noSigningKey } from './signing-key.js';

export async function exportSaft(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg, period } = req;
  const cfg = reg.state.cfg;
  const org = orgNumber(str(obj(cfg, 'Cmp') ?? {}, 'TaxId'));
  if (!/^\d{9}$/.test(org)) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TaxId', detail: `the organisation number (9 digits, e.g. NO999999999MVA) is the companyIdent of the SAF-T file, got "${str(obj(cfg, 'Cmp') ?? {}, 'TaxId') ?? ''}"` });
  // the whole journal of the register: the period's records are chosen by the writer, the older ones give the grand totals
  const records: Obj[] = [];
  for await (const r of ctx.store.range(reg.state.rid, 1)) records.push(JSON.parse(r.data) as Obj);
  const created = ctx.clock.now();
  const registerId = str(obj(cfg, 'Trm') ?? {}, 'TT') ?? reg.state.rn;
  const xml = saftCashRegisterXml({ records, cfg, registerId, period, created, software: { name: 'efr fiscal register', version: ctx.version, company: 'efr' } });
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(xml, 'utf8'), saftFileName(org, created));
  zip.addBuffer(Buffer.from(noSigningKey(ctx.dataDir).publicPem), `public-key-${KEY_VERSION}.pem`);
  zip.end();
  return { body: zip.outputStream, file: `saft-${org}.zip`, contentType: 'application/zip' };
}
