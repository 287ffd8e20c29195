/**
 * The identifiers of a Slovak seller and its cash register as eKasa reads them: the DIČ (tax identification
 * number, 10 digits), the IČ DPH (VAT number: `SK` and 10 digits, only for VAT payers), the IČO
 * (organisation number, 8 digits) and the cash register code (kód pokladnice e-kasa klient, 17 digits,
 * assigned by the financial administration with the register's authentication data). Where each is taken
 * from is decided in docs/countries/sk.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import type { AuthorityCertificate } from '../authority.js';

export interface SellerIds {
  dic: string;
  icDph?: string;
  ico?: string;
}

const DIC = /^\d{10}$/;
const IC_DPH = /^SK\d{10}$/;
const ICO = /^\d{8}$/;
export const CASH_REGISTER_CODE = /^\d{17}$/;

function compact(text: string | undefined): string | undefined {
  const t = text?.replace(/\s+/g, '').toUpperCase();
  return t ? t : undefined;
}

/**
 * The seller's ids from the configuration: DIČ from Cfg.Cmp.TIN, else the digits of an `SK` VAT number in
 * Cfg.Cmp.TaxId; IČ DPH from Cfg.Cmp.TaxId when it is a Slovak VAT number; IČO from Cfg.Loc.LegalId.
 * Throws #MISSING_FIELD or #INVALID_VALUE naming the field.
 */
export function sellerIds(cfg: Obj): SellerIds {
  const cmp = obj(cfg, 'Cmp') ?? {};
  const taxId = compact(str(cmp, 'TaxId'));
  const tin = compact(str(cmp, 'TIN'));
  if (taxId !== undefined && /^SK/.test(taxId) && !IC_DPH.test(taxId)) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TaxId', detail: `"${taxId}" is not a Slovak VAT number (IČ DPH: SK and 10 digits)` });
  const icDph = taxId !== undefined && IC_DPH.test(taxId) ? taxId : undefined;
  const dic = tin?.replace(/^SK/, '') ?? icDph?.slice(2);
  if (!dic) throw new FiscalError('#MISSING_FIELD', { field: 'Cfg.Cmp.TIN' });
  if (!DIC.test(dic)) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TIN', detail: `"${dic}" is not a DIČ (10 digits)` });
  const ids: SellerIds = { dic };
  if (icDph) ids.icDph = icDph;
  const ico = compact(str(obj(cfg, 'Loc') ?? {}, 'LegalId'));
  if (ico !== undefined) {
    if (!ICO.test(ico)) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Loc.LegalId', detail: `"${ico}" is not an IČO (8 digits)` });
    ids.ico = ico;
  }
  return ids;
}

/** A 17-digit number the certificate's subject names (the financial administration's authentication data name the register by it). */
export function cashRegisterCodeOfCertificate(cert: AuthorityCertificate): string | undefined {
  return /(?:^|[^\d])(\d{17})(?:[^\d]|$)/.exec(cert.subject)?.[1];
}

/**
 * The cash register code: the profile attribute SK_CashRegisterCode, else the one the certificate's
 * subject names. Throws #MISSING_FIELD / #INVALID_VALUE naming the attribute.
 */
export function cashRegisterCodeOf(attributes: ReadonlyMap<string, string>, cert: AuthorityCertificate | undefined): string {
  const configured = attributes.get('sk_cashregistercode')?.trim();
  const code = configured ? configured : cert ? cashRegisterCodeOfCertificate(cert) : undefined;
  if (!code) throw new FiscalError('#MISSING_FIELD', { field: 'SK_CashRegisterCode' });
  if (!CASH_REGISTER_CODE.test(code)) throw new FiscalError('#INVALID_VALUE', { field: 'SK_CashRegisterCode', detail: `"${code}" is not a cash register code (kód pokladnice: 17 digits)` });
  return code;
}

/** The software id eKasa names the certified register software by (SwId): the profile attribute SK_SwId. */
export function swIdOf(attributes: ReadonlyMap<string, string>): string {
  const id = attributes.get('sk_swid')?.trim();
  if (!id) throw new FiscalError('#MISSING_FIELD', { field: 'SK_SwId' });
  if (!/^[0-9A-Za-z]{1,40}$/.test(id)) throw new FiscalError('#INVALID_VALUE', { field: 'SK_SwId', detail: 'the software id (SwId): 1 to 40 letters and digits' });
  return id;
}
