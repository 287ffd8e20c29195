/** The cashbox and the company an Austrian register signs for. */
import { type Obj, obj, str } from '../../codec/index.js';

/** The cashbox id: the attribute Fiscal_CashboxId, else TL-TT of the configuration (else TT). */
export function cashboxIdOf(attributes: ReadonlyMap<string, string>, cfg: Obj): string {
  const explicit = attributes.get('fiscal_cashboxid');
  if (explicit) return explicit;
  const tl = str(obj(cfg, 'Loc') ?? {}, 'TL') ?? '';
  const tt = str(obj(cfg, 'Trm') ?? {}, 'TT') ?? '1';
  return (tl ? `${tl}-${tt}` : tt).replace(/_/g, '/');
}

export function companyOf(cfg: Obj): string {
  return str(obj(cfg, 'Cmp') ?? {}, 'TaxId') ?? '';
}
