/**
 * What a Spanish register is: which system applies (VeriFactu of the AEAT, or TicketBAI of a Basque
 * province), the issuer's NIF, test or production hosts. Decided from the configuration and the profile
 * attributes (docs/countries/es.md).
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import type { Province } from './tbai.js';

export type EsSystem = { kind: 'VERIFACTU' } | { kind: 'TBAI'; province: Province };

/** Basque provinces by the names (Spanish, Basque, with or without accents) a Loc.State may carry. */
const PROVINCES: Readonly<Record<string, Province>> = {
  ARABA: 'ARABA', ALAVA: 'ARABA', 'ARABA/ALAVA': 'ARABA', 'ALAVA/ARABA': 'ARABA', VI: 'ARABA',
  BIZKAIA: 'BIZKAIA', VIZCAYA: 'BIZKAIA', BI: 'BIZKAIA',
  GIPUZKOA: 'GIPUZKOA', GUIPUZCOA: 'GIPUZKOA', SS: 'GIPUZKOA',
};

function plain(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/\s+/g, '').toUpperCase();
}

export function provinceOf(text: string | undefined): Province | undefined {
  if (!text) return undefined;
  const p = plain(text);
  return Object.hasOwn(PROVINCES, p) ? PROVINCES[p] : undefined;
}

/**
 * The attribute Fiscal_System (VERIFACTU, ARABA, BIZKAIA, GIPUZKOA) wins; else a Basque province in
 * Cfg.Loc.State selects TicketBAI of that province; else VeriFactu.
 */
export function systemOf(cfg: Obj, attributes: ReadonlyMap<string, string>): EsSystem {
  const explicit = attributes.get('fiscal_system');
  if (explicit !== undefined) {
    if (plain(explicit) === 'VERIFACTU') return { kind: 'VERIFACTU' };
    const province = provinceOf(explicit);
    if (!province) throw new FiscalError('#INVALID_VALUE', { field: 'Fiscal_System', detail: `VERIFACTU, ARABA, BIZKAIA or GIPUZKOA, got "${explicit}"` });
    return { kind: 'TBAI', province };
  }
  const province = provinceOf(str(obj(cfg, 'Loc') ?? {}, 'State'));
  return province ? { kind: 'TBAI', province } : { kind: 'VERIFACTU' };
}

/** Fiscal_Test: the AEAT's preproduction QR host and the provinces' test hosts. */
export function isTest(attributes: ReadonlyMap<string, string>): boolean {
  return attributes.has('fiscal_test');
}

const NIF = /^[0-9A-Z][0-9]{7}[0-9A-Z]$/;

/** A Spanish NIF (9 characters) from a tax id, with or without the ES prefix of a VAT number. */
export function nifOf(taxId: string | undefined): string | undefined {
  if (!taxId) return undefined;
  const t = taxId.replace(/[\s.-]/g, '').toUpperCase();
  const bare = t.startsWith('ES') && t.length === 11 ? t.slice(2) : t;
  return NIF.test(bare) ? bare : undefined;
}

/** The issuer: Cfg.Cmp.TaxId as a NIF, and the company name. */
export function issuerOf(cfg: Obj): { nif: string; name: string } {
  const cmp = obj(cfg, 'Cmp') ?? {};
  const taxId = str(cmp, 'TaxId');
  if (!taxId) throw new FiscalError('#MISSING_FIELD', { field: 'Cfg.Cmp.TaxId' });
  const nif = nifOf(taxId);
  if (!nif) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TaxId', detail: `a Spanish NIF of 9 characters (optionally with the prefix ES), got "${taxId}"` });
  return { nif, name: str(cmp, 'Nam') ?? nif };
}
