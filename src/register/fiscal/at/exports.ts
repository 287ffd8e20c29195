/** Austria's GET /export type: `dep`, the DEP7 export of the register's cashbox (docs/countries/at.md). */
import { FiscalError } from '../../../shared/errors.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { cashboxIdOf, companyOf } from './cashbox.js';
import { buildDep, depZip } from './dep.js';

async function exportDep(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg, query } = req;
  const cashboxId = cashboxIdOf(ctx.profiles.settings(reg.state.rn).raw, reg.state.cfg);
  // the AES key leaves the cashbox only when asked for, and only locally or with the password
  const withAes = ['1', 'true', 'on'].includes((query.aes ?? '').toLowerCase());
  if (withAes) req.requireLocalOrPassword('GET /export?type=dep&aes=1');
  const exp = await buildDep(ctx.store, ctx.dataDir, reg.state.rid, cashboxId, companyOf(reg.state.cfg), withAes);
  if (exp.count === 0) throw new FiscalError('#NOT_FOUND', { value: `signed receipts of cashbox ${cashboxId}` });
  return { body: depZip(exp), file: 'dep-export.zip', contentType: 'application/zip' };
}

export const AT_EXPORTS: Readonly<Record<string, (req: ExportRequest) => Promise<ExportFile>>> = { dep: exportDep };
