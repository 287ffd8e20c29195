/**
 * GET /export?type=verifactu (our own type; the spec lists no Spanish export): export.zip with the register's
 * VeriFactu records in chain order, one AEAT RegFactuSistemaFacturacion XML per record
 * (`records/000001.xml`, ...), each holding the RegistroAlta or RegistroAnulacion exactly as it was hashed.
 */
import { ZipFile } from 'yazl';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import { nextDay } from '../../esr/datetime.js';
import type { FindQuery } from '../../journal/types.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { envelope } from './registro.js';

/** The issuer named in a record (for the envelope's Cabecera). */
function issuerIn(xml: string, cfg: Obj): { nif: string; name: string } {
  const nif = /<sum1:IDEmisorFactura(?:Anulada)?>([^<]*)</.exec(xml)?.[1] ?? '';
  const name = /<sum1:NombreRazonEmisor>([^<]*)</.exec(xml)?.[1];
  // a name taken from the record is already escaped: unescape it, the envelope escapes again
  const plain = name?.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  return { nif, name: plain ?? str(obj(cfg, 'Cmp') ?? {}, 'Nam') ?? nif };
}

export async function verifactuExport(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg, period } = req;
  const query: FindQuery = { type: 'Tra', sort: 'asc' };
  if (period.from) query.from = period.from;
  if (period.till) query.before = nextDay(period.till);
  const zip = new ZipFile();
  let count = 0;
  for await (const r of ctx.store.find(reg.state.rid, query, 500)) {
    const fis = obj(JSON.parse(r.data) as Obj, 'Fis');
    const payload = fis ? str(fis, 'Payload') : undefined;
    if (!payload || !/^<sum1:Registro(Alta|Anulacion) /.test(payload)) continue;
    count += 1;
    zip.addBuffer(Buffer.from(envelope(issuerIn(payload, reg.state.cfg), payload)), `records/${String(count).padStart(6, '0')}.xml`);
  }
  if (count === 0) {
    const when = period.from || period.till ? ` dated ${period.from ?? '...'} to ${period.till ?? '...'}` : '';
    throw new FiscalError('#NOT_FOUND', { value: `VeriFactu records of ${reg.state.rn}${when}` });
  }
  zip.end();
  return { body: zip.outputStream, file: 'export.zip', contentType: 'application/zip' };
}
