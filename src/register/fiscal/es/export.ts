/**
 * GET /export?type=verifactu (our own type; the spec lists no Spanish export): export.zip with the register's
 * VeriFactu records in chain order, one AEAT RegFactuSistemaFacturacion XML per record
 * (`records/000000001.xml`, ...), each holding the RegistroAlta or RegistroAnulacion exactly as it was hashed.
 * A period is the journal's contiguous range from the first to the last record dated in it (periodSqRange):
 * a receipt dated back by an offline POS sits inside today's chain and is exported with it, so the chain of
 * the export has no gap.
 */
import { ZipFile } from 'yazl';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import { unescapeText } from '../../codec/xml-text.js';
import { periodSqRange } from '../../journal/period-range.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { envelope } from './registro.js';

/** The issuer named in a record (for the envelope's Cabecera). */
function issuerIn(xml: string, cfg: Obj): { nif: string; name: string } {
  const nif = /<sum1:IDEmisorFactura(?:Anulada)?>([^<]*)</.exec(xml)?.[1] ?? '';
  const name = /<sum1:NombreRazonEmisor>([^<]*)</.exec(xml)?.[1];
  // a name taken from the record is escaped: read as its value, the envelope escapes it again
  const plain = name === undefined ? undefined : unescapeText(name);
  return { nif, name: plain ?? str(obj(cfg, 'Cmp') ?? {}, 'Nam') ?? nif };
}

/** `records/<n>.xml`, n padded to 9 digits (the verifier orders by the number, not the text). */
export function recordFileName(n: number): string {
  return `records/${String(n).padStart(9, '0')}.xml`;
}

export async function verifactuExport(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg, period } = req;
  const rid = reg.state.rid;
  // what is committed (the in-memory head may be ahead while a commit is in flight)
  const head = (await ctx.store.loadRegisters()).find((s) => s.rid === rid)?.sq ?? 0;
  const range = await periodSqRange(ctx.store, rid, head, period);
  const zip = new ZipFile();
  let count = 0;
  for await (const r of range ? ctx.store.range(rid, range.firstSQ, range.lastSQ) : []) {
    if (r.type !== 'Tra') continue;
    const fis = obj(JSON.parse(r.data) as Obj, 'Fis');
    const payload = fis ? str(fis, 'Payload') : undefined;
    if (!payload || !/^<sum1:Registro(Alta|Anulacion) /.test(payload)) continue;
    count += 1;
    zip.addBuffer(Buffer.from(envelope(issuerIn(payload, reg.state.cfg), payload)), recordFileName(count));
  }
  if (count === 0) {
    const when = period.from || period.till ? ` dated ${period.from ?? '...'} to ${period.till ?? '...'}` : '';
    throw new FiscalError('#NOT_FOUND', { value: `VeriFactu records of ${reg.state.rn}${when}` });
  }
  zip.end();
  return { body: zip.outputStream, file: 'export.zip', contentType: 'application/zip' };
}
