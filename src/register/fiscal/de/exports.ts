/** The German exports as zip streams: DSFinV-K (`type=dsfinvk`) and GoBD (`type=gobd`). */
import type { Obj } from '../../codec/index.js';
import { obj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import type { Register } from '../../registers.js';
import { buildDsfinvk } from './dsfinvk/build.js';
import { gdpduZip } from './gdpdu/data-set.js';
import { buildGobd } from './gobd.js';
import { tseCertificate } from './tse-export.js';
import { openTse } from './tse.js';

export interface DatePeriod {
  from?: string;
  till?: string;
}

function supplier(cfg: Obj, comment: string): { name: string; location: string; comment: string } {
  const cmp = obj(cfg, 'Cmp') ?? {};
  return { name: str(cmp, 'Nam') ?? 'unknown company', location: [str(cmp, 'Zip'), str(cmp, 'City')].filter(Boolean).join(' ') || 'unknown', comment };
}

const nextDay = (d: string): string => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export async function dsfinvkZip(ctx: ServiceContext, reg: Register, period: DatePeriod, open: boolean): Promise<{ zip: NodeJS.ReadableStream; closings: number; receipts: number }> {
  const rn = reg.state.rn;
  const tse = openTse(ctx.dataDir, rn);
  const cert = await tseCertificate(ctx.dataDir, rn);
  const result = await buildDsfinvk({
    store: ctx.store, rid: reg.state.rid, rn, cfg: reg.state.cfg,
    tse: { serialHex: tse.serial.toString('hex'), publicKeyB64: tse.publicKey.toString('base64'), certificateB64: cert.toString('base64') },
    ...(period.from ? { from: period.from } : {}), ...(period.till ? { till: period.till } : {}),
    open, now: formatLocalDateTime(ctx.clock.now()), software: { brand: 'efr', version: ctx.version },
  });
  const validity = result.first && result.last ? { validity: { from: result.first, to: result.last } } : {};
  const zip = gdpduZip(result.tables, { supplier: supplier(reg.state.cfg, `DSFinV-K 2.3 der Kasse ${rn}, erstellt von efr ${ctx.version}`), media: 'DSFinV-K', ...validity });
  return { zip, closings: result.closings, receipts: result.receipts };
}

export async function gobdZip(ctx: ServiceContext, reg: Register, period: DatePeriod): Promise<{ zip: NodeJS.ReadableStream; records: number }> {
  const rn = reg.state.rn;
  const result = await buildGobd(ctx.store, reg.state.rid, { ...(period.from ? { from: period.from } : {}), ...(period.till ? { before: nextDay(period.till) } : {}) });
  const validity = period.from && period.till ? { validity: { from: period.from, to: period.till } } : {};
  const zip = gdpduZip(
    result.tables,
    { supplier: supplier(reg.state.cfg, `GoBD-Datenträgerüberlassung (Z3) der Kasse ${rn}, erstellt von efr ${ctx.version}`), media: 'GoBD', ...validity },
    [{ name: 'journal-public-key.pem', data: Buffer.from(ctx.signer.publicKeyPem()) }],
  );
  return { zip, records: result.records };
}
