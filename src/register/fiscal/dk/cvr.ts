// Apart from the module (index.ts), which imports the export, so that the export can read the CVR number too.
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';

/** The company's CVR number: 8 digits of Cfg.Cmp.TaxId (`DK12345678` or `12345678`). */
export function cvrOf(cfg: Obj): string {
  const taxId = str(obj(cfg, 'Cmp') ?? {}, 'TaxId') ?? '';
  const m = /^(?:DK)?\s*(\d{8})$/i.exec(taxId.trim());
  if (!m?.[1]) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TaxId', detail: `the CVR number (8 digits, e.g. DK12345678), got "${taxId}"` });
  return m[1];
}
