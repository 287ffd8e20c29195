/**
 * Norway: the SAF-T Cash Register file (Skatteetaten, Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd) of
 * one register, built from its journal records (a pure function: records in, XML text out) by the shared
 * writer (saft-cash-register/) after Norway's profile: its namespace and version, the organisation number
 * as companyIdent, its VAT codes (vat-codes.ts), an address only where Cfg has one, the report's own Z
 * number and credit blocks, and the file name.
 */
import type { Obj } from '../../codec/index.js';
import { saftXml, saftXmlChunks } from '../saft-cash-register/document-writer.js';
import { fileStamp } from '../saft-cash-register/format.js';
import type { SaftInput, SaftProfile, SaftStreamInput } from '../saft-cash-register/profile.js';
import { text } from '../saft-cash-register/records.js';
import type { XmlOut } from '../saft-cash-register/xml-out.js';
import { REPORT_RATES, vatCodeOf } from './vat-codes.js';
import { isPos } from '../../esr/tax.js';

// bench/export-stall.ts names the first pass's findings from here

export const SAFT_NO_NAMESPACE = 'urn:StandardAuditFile-Taxation-CashRegister:NO';
export const SAFT_NO_SCHEMA = 'Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd';

/** The organisation number: digits only ('NO 999 999 999 MVA' -> '999999999'). */
export function orgNumber(taxId: string | undefined): string {
  return (taxId ?? '').replace(/^\s*NO/i, '').replace(/MVA\s*$/i, '').replace(/\D/g, '');
}

/** `SAF-T Cash Register_<orgnr>_<yyyymmddhhmmss>.xml` (local time of `created`). */
export function saftFileName(orgnr: string, created: Date): string {
  return `SAF-T Cash Register_${orgNumber(orgnr)}_${fileStamp(created)}.xml`;
}

/** Norway's streetAddress: streetname, city, postalCode, country NO; none when Cfg has no address. */
function norwegianAddress(o: XmlOut, a: Obj): void {
  const street = text(a, 'Adr');
  const city = text(a, 'City');
  const zip = text(a, 'Zip');
  if (!street && !city && !zip) return;
  o.open('streetAddress');
  o.leaf('streetname', street, 100);
  o.leaf('city', city, 50);
  o.leaf('postalCode', zip, 20);
  o.leaf('country', 'NO');
  o.close('streetAddress');
}

/** Norway's file, for the shared writer. */
export const NO_PROFILE: SaftProfile = {
  namespace: SAFT_NO_NAMESPACE,
  currency: 'NOK',
  auditfileVersion: '1.0',
  country: 'NO',
  idMax: 35,
  texts: { copy: 'Copy of receipt nr', zReport: 'Z-report', xReport: 'X-report' },
  vatCode: vatCodeOf,
  reportVatCode: (v) => v.code,
  baseRates: REPORT_RATES,
  companyIdent: orgNumber,
  taxRegIdent: (orgnr) => `${orgnr}MVA`,
  address: (o, a) => norwegianAddress(o, a),
  txEmployee: (tx) => text(tx.esr, 'Opr') || undefined,
  employeeNames: (id, name) => ({ surName: name || id }),
  artGroupDesc: (line) => (isPos(line) ? text(line, 'CatN') || text(line, 'Cat') || 'Other' : undefined),
  zNumberFromFis: true,
  creditBlocks: true,
  signedFields: false,
};

/** The SAF-T Cash Register XML of one register for a period, as text chunks (records read twice, see runPasses). */
export function saftCashRegisterXmlChunks(input: SaftStreamInput): AsyncGenerator<string> {
  return saftXmlChunks(NO_PROFILE, input);
}

/** The SAF-T Cash Register XML of one register for a period (all records in memory; see saftCashRegisterXmlChunks). */
export function saftCashRegisterXml(input: SaftInput): string {
  return saftXml(NO_PROFILE, input);
}
