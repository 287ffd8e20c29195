/**
 * The customer of a full or rectifying invoice (VeriFactu Destinatarios): a Spanish NIF, else a VAT number
 * of another country with its country prefix (IDOtro, IDType 02 NIF-IVA). Anything else would make a record
 * the AEAT rejects (an "ES" id that is no NIF; an id without a country), so it is refused with 400.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import { nifOf } from './config.js';
import type { Recipient } from './registro.js';

/** A VAT number of another EU state: its prefix, then 2 to 13 letters, digits, + or *. */
const FOREIGN_VAT = /^([A-Z]{2})([0-9A-Z+*]{2,13})$/;

/** The tax id of ESR.Ctm, trimmed; undefined when there is none. */
export function customerTaxId(esr: Obj): string | undefined {
  return str(obj(esr, 'Ctm') ?? {}, 'TaxId')?.trim() || undefined;
}

/** The recipient named by an ESR's customer; undefined without a tax id; throws on one AEAT would reject. */
export function recipientOf(esr: Obj): Recipient | undefined {
  const taxId = customerTaxId(esr);
  if (!taxId) return undefined;
  const name = str(obj(esr, 'Ctm') ?? {}, 'Nam') ?? taxId;
  const nif = nifOf(taxId);
  if (nif) return { name, nif };
  const m = FOREIGN_VAT.exec(taxId.replace(/[\s.-]/g, '').toUpperCase());
  if (!m || m[1] === 'ES') {
    throw new FiscalError('#INVALID_VALUE', { field: 'ESR.Ctm.TaxId', detail: `a Spanish NIF (9 characters, optionally with ES) or another country's VAT number with its country prefix (e.g. DE123456789), got "${taxId}"` });
  }
  // VAT numbers of Greece start with EL; CodigoPais is the ISO code GR
  const country = m[1] === 'EL' ? 'GR' : (m[1] as string);
  return { name, other: { country, idType: '02', id: m[0] } };
}
