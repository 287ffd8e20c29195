/**
 * What Sweden's control unit signs and what the receipt prints of it. The control data (kontrolldata) of a
 * receipt is one line of text, every field as the SAF-T export writes it, so that `efr verify --country se`
 * rebuilds it from the export alone:
 *
 *     SE1;<previous signature>;<org.nr>;<register id>;<date>;<time>;<receipt nr>;<type>;<amount incl. VAT>;<amount excl. VAT>;<VAT per rate>
 *
 * type `normal` (sales, returns, voids, pay-ins and pay-outs), `ovning` (training) or `kopia` (a copy);
 * the VAT per rate `<rate>=<VAT amount>` joined by `,` in the order of ESR.TaxA (rates with two or three
 * decimals, amounts with two; consumption taxes are no VAT). The previous signature chains the receipts of
 * a register ('0' before its first); a copy is chained to the signature of its original instead, and
 * carries the original's number and amounts with the copy's own date and time. The control code printed
 * (kontrollkod) is the base32 (RFC 4648, no padding) of the first 20 bytes of the SHA-256 of the signature.
 */
import { createHash } from 'node:crypto';
import { base32 } from '../../../shared/base32.js';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import { percent } from '../saft-cash-register/format.js';
import { amount, money2, text, vatTaxA } from '../saft-cash-register/records.js';
import { sub } from '../../../shared/money.js';

export type ReceiptType = 'normal' | 'ovning' | 'kopia';

export interface ControlFields {
  prev: string;
  orgNr: string;
  registerId: string;
  /** YYYY-MM-DD */
  date: string;
  /** hh:mm:ss */
  time: string;
  nr: string;
  type: ReceiptType;
  amntIn: string;
  amntEx: string;
  /** `<rate>=<VAT>` joined by `,` */
  vat: string;
}

export const CONTROL_DATA_VERSION = 'SE1';

export function controlData(f: ControlFields): string {
  return [CONTROL_DATA_VERSION, f.prev, f.orgNr, f.registerId, f.date, f.time, f.nr, f.type, f.amntIn, f.amntEx, f.vat].join(';');
}

/** The VAT per rate of a receipt as the export's transaction VAT blocks write it (vatPerc=vatAmnt, in TaxA order). */
export function vatOf(esr: Obj): string {
  return vatTaxA(esr)
    .map((t) => {
      const gross = amount(text(t, 'Amt'));
      const tAmt = text(t, 'TAmt') !== undefined ? amount(text(t, 'TAmt')) : sub(gross, amount(text(t, 'Net')));
      return `${percent(amount(text(t, 'Prc')))}=${money2(tAmt)}`;
    })
    .join(',');
}

/** The printed control code of a signature (base64): base32 of the first 20 bytes of its SHA-256, 32 characters. */
export function controlCodeOf(signatureBase64: string): string {
  return base32(createHash('sha256').update(Buffer.from(signatureBase64, 'base64')).digest().subarray(0, 20));
}

/** True when the 10 digits pass the Luhn check Swedish organisation and personal numbers carry. */
export function luhnValid(digits: string): boolean {
  let total = 0;
  [...digits].forEach((c, i) => {
    const d = Number(c) * (i % 2 === 0 ? 2 : 1);
    total += d > 9 ? d - 9 : d;
  });
  return total % 10 === 0;
}

/**
 * The organisation number (10 digits) of Cfg.Cmp.Org (NNNNNN-NNNN, the interface's field), else of
 * Cfg.Cmp.TaxId (the VAT number SE<10 digits>01); #MISSING_FIELD or #INVALID_VALUE Cfg.Cmp.Org otherwise.
 */
export function orgNrOf(cfg: Obj): string {
  const cmp = obj(cfg, 'Cmp') ?? {};
  const org = str(cmp, 'Org');
  const taxId = str(cmp, 'TaxId');
  let digits: string | undefined;
  if (org !== undefined && org.trim() !== '') {
    const m = /^\s*(?:16)?(\d{6})-?(\d{4})\s*$/.exec(org);
    if (!m) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.Org', detail: `the organisation number is NNNNNN-NNNN (10 digits), got "${org}"` });
    digits = `${m[1] as string}${m[2] as string}`;
  } else if (taxId) {
    const m = /^\s*SE\s*(\d{10})\s*01\s*$/i.exec(taxId);
    if (m) digits = m[1] as string;
  }
  if (digits === undefined) throw new FiscalError('#MISSING_FIELD', { field: 'Cfg.Cmp.Org' });
  if (!luhnValid(digits)) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.Org', detail: `the organisation number ${digits.slice(0, 6)}-${digits.slice(6)} fails its check digit` });
  return digits;
}

/** The register's state key of the organisation number its receipts were signed for. */
export const ORG_NR = 'se|org';

/**
 * The organisation number a receipt is signed for: Cfg's, which must be the one the register's chain was
 * signed for (a register's export names one company, and every receipt is verified under it): a register of
 * another organisation is a new register. #INVALID_VALUE Cfg.Cmp.Org otherwise.
 */
export function signingOrgNr(state: { cfg: Obj; country: Readonly<Record<string, string>> }): string {
  const org = orgNrOf(state.cfg);
  const signed = state.country[ORG_NR];
  if (signed !== undefined && signed !== org) {
    throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.Org', detail: `the register's receipts are signed for ${printedOrgNr(signed)}: the receipts of ${printedOrgNr(org)} need a register of their own` });
  }
  return org;
}

/** NNNNNN-NNNN, as printed. */
export function printedOrgNr(digits: string): string {
  return `${digits.slice(0, 6)}-${digits.slice(6)}`;
}

/** The register's state key of the designation its receipts were signed with. */
export const REGISTER_ID = 'se|register';

/**
 * The cash register's designation (kassabeteckning), the export's registerID: the one its first receipt was
 * signed with, once it has one (the export has one registerID per register, and every receipt of its chain
 * is verified under it), else Cfg.Trm.TT, else the RN; without the spaces around it, which the export's
 * reader does not keep.
 */
export function registerIdOf(state: { cfg: Obj; rn: string; country?: Readonly<Record<string, string>> }): string {
  const signed = state.country?.[REGISTER_ID];
  if (signed !== undefined) return signed;
  return (str(obj(state.cfg, 'Trm') ?? {}, 'TT') ?? state.rn).trim().slice(0, 36).trim();
}

/** A designation a receipt may be signed with: not empty, no `;` (it separates the control data's fields), no control characters. */
export function checkRegisterId(id: string): void {
  // eslint-disable-next-line no-control-regex
  if (id === '' || /[;\u0000-\u001f\u007f]/.test(id)) {
    throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Trm.TT', detail: `the register's designation "${id}" is signed in the control data, whose fields ";" separates: it must be text without ";" or control characters` });
  }
}
