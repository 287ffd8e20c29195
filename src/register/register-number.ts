/**
 * Which register a request is for. Single POS: `rn` (default `def`). Multi POS (profile RN_TT):
 * TL and TT select the register `TaxId$TL_TT`; Multi Company: the TaxId comes with every request.
 */
import { FiscalError } from '../shared/errors.js';
import { type Obj, str } from './codec/index.js';
import type { ServiceContext } from './context.js';
import { identityOf } from './esr/normalize.js';

/** `TaxId$TL_TT`; `$` and `_` would make it ambiguous, so TL and TT may not contain them (nor TaxId `$`). */
export function registerNumber(taxId: string, tl: string, tt: string, prefix = ''): string {
  for (const [name, v] of [['TL', tl], ['TT', tt]] as const) {
    if (/[$_]/.test(v)) throw new FiscalError('#INVALID_VALUE', { field: `${prefix}${name}`, detail: `"${v}" may not contain $ or _ when one instance serves several registers (register number TaxId$TL_TT)` });
  }
  if (taxId.includes('$')) throw new FiscalError('#INVALID_VALUE', { field: `${prefix}TaxId`, detail: `"${taxId}" may not contain $` });
  return `${taxId}$${tl}_${tt}`;
}

/** From a transaction's ESR (POST /register, /restart). */
export function rnOfTransaction(ctx: ServiceContext, esr: Obj | undefined, query: Readonly<Record<string, string>>): string {
  if (!ctx.profiles.multiPos()) return (esr && str(esr, 'RN')) || query.rn || 'def';
  const rawTt = esr ? str(esr, 'TT') : undefined;
  const rawTl = esr ? str(esr, 'TL') : undefined;
  if (!rawTl && !(rawTt ?? '').includes('/')) throw new FiscalError('#REGISTER_REQUIRED', { field: 'ESR.TL' });
  if (!rawTt) throw new FiscalError('#REGISTER_REQUIRED', { field: 'ESR.TT' });
  const { tl, tt } = identityOf(esr ?? {});
  const taxId = (esr && str(esr, 'TaxId')) || query.taxid || ctx.profiles.own('def').TaxId;
  if (!taxId) throw new FiscalError('#REGISTER_REQUIRED', { field: 'ESR.TaxId' });
  return registerNumber(taxId, tl, tt, 'ESR.');
}

/**
 * From the query of the other routes: `rn`, or (Multi POS) TaxId/TL/TT. With a single register, TL and
 * TT are not register selectors (routes such as /find and /tra use them as filters).
 */
export function rnOfQuery(ctx: ServiceContext, query: Readonly<Record<string, string>>): string {
  if (query.rn) return query.rn;
  if (ctx.profiles.multiPos() && query.tl && query.tt) {
    const taxId = query.taxid || ctx.profiles.own('def').TaxId || '';
    return registerNumber(taxId, query.tl, query.tt);
  }
  if (ctx.profiles.multiPos()) throw new FiscalError('#REGISTER_REQUIRED', { field: 'rn (or TaxId, TL and TT)' });
  return 'def';
}
