/**
 * Sweden: the journal export (GET /export?type=saft) as a SAF-T Cash Register file, a profile of the shared
 * writer (saft-cash-register/). Skatteverket publishes no SAF-T format for cash registers; the file follows
 * the Norwegian schema v1.00 in the namespace `urn:StandardAuditFile-Taxation-CashRegister:SE` (the layout
 * the Norwegian and Danish authorities read, with Sweden's currency, VAT codes and organisation number), and
 * carries per receipt the values its control unit signed verbatim (nr, transID, transType, amounts, date and
 * time, registerID and companyIdent, the VAT blocks), the signature and, as keyVersion, the control unit's
 * manufacturing number; a copy's event text carries the copy's own signature. See docs/countries/se.md.
 */
import { type Dec, cmp, dec, sign } from '../../../shared/money.js';
import type { Obj } from '../../codec/index.js';
import { isPos } from '../../esr/tax.js';
import { saftXml, saftXmlChunks } from '../saft-cash-register/document-writer.js';
import { fileStamp, percent } from '../saft-cash-register/format.js';
import type { SaftInput, SaftProfile, SaftStreamInput, SaftVatCode } from '../saft-cash-register/profile.js';
import { text } from '../saft-cash-register/records.js';
import type { XmlOut } from '../saft-cash-register/xml-out.js';

export const SAFT_SE_NAMESPACE = 'urn:StandardAuditFile-Taxation-CashRegister:SE';

/** The prefix of a copy's event text before its signature. */
export const COPY_TEXT = 'Kopia av kvitto nr';

/** `SAF-T Cash Register_<org.nr>_<yyyymmddhhmmss>.xml` (local time of `created`). */
export function saftFileName(orgNr: string, created: Date): string {
  return `SAF-T Cash Register_${orgNr}_${fileStamp(created)}.xml`;
}

/** Sweden's rates and their codes in the file (ours: Sweden publishes no SAF-T code list): 25 % MP1, 12 % MP2, 6 % MP3, 0 % MF (exempt). */
const RATES: ReadonlyArray<[string, string, string]> = [
  ['25', 'MP1', 'Moms 25 %'],
  ['12', 'MP2', 'Moms 12 %'],
  ['6', 'MP3', 'Moms 6 %'],
  ['0', 'MF', 'Momsfri'],
];

export function swedishVatCode(rate: Dec): SaftVatCode {
  const known = RATES.find(([r]) => cmp(dec(r), rate) === 0);
  if (known) return { code: known[1], standard: known[1], desc: known[2] };
  const pct = percent(rate);
  return { code: `R${pct}`.slice(0, 20), standard: sign(rate) === 0 ? 'MF' : 'MO', desc: `Moms ${pct} %` };
}

/** streetAddress: streetname, number, city, postalCode, country SE; none when Cfg has no address. */
function swedishAddress(o: XmlOut, a: Obj): void {
  const street = text(a, 'Adr');
  const city = text(a, 'City');
  const zip = text(a, 'Zip');
  if (!street && !city && !zip) return;
  o.open('streetAddress');
  o.leaf('streetname', street, 100);
  o.leaf('number', text(a, 'AdrNr'), 20);
  o.leaf('city', city, 50);
  o.leaf('postalCode', zip, 20);
  o.leaf('country', 'SE');
  o.close('streetAddress');
}

/** Sweden's file, for the shared writer. */
export const SE_PROFILE: SaftProfile = {
  namespace: SAFT_SE_NAMESPACE,
  currency: 'SEK',
  auditfileVersion: '1.0',
  country: 'SE',
  idMax: 35,
  texts: { copy: COPY_TEXT, zReport: 'Z-dagrapport', xReport: 'X-dagrapport' },
  vatCode: swedishVatCode,
  reportVatCode: (v) => swedishVatCode(dec(v.perc)).code,
  baseRates: RATES.map(([r]) => dec(r)),
  companyIdent: (taxId) => (/^\s*SE\s*(\d{10})\s*01\s*$/i.exec(taxId ?? '')?.[1] ?? ''),
  taxRegIdent: (orgNr) => (orgNr ? `SE${orgNr}01` : undefined),
  address: (o, a) => swedishAddress(o, a),
  txEmployee: (tx) => text(tx.esr, 'Opr') || undefined,
  employeeNames: (id, name) => ({ surName: name || id }),
  artGroupDesc: (line) => (isPos(line) ? text(line, 'CatN') || text(line, 'Cat') || 'Övrigt' : undefined),
  zNumberFromFis: true,
  creditBlocks: true,
  signedFields: true,
  copyText: (fis, rfn) => `${COPY_TEXT} ${rfn}; kontrollenhet ${text(fis, 'ControlUnit') ?? ''}; signatur ${text(fis, 'CopySignature') ?? ''}`,
};

/** The Swedish SAF-T Cash Register XML of one register for a period, as text chunks (records read twice, see runPasses). */
export function swedishSaftXmlChunks(input: SaftStreamInput): AsyncGenerator<string> {
  return saftXmlChunks(SE_PROFILE, input);
}

/** The same, all records in memory (the unit tests). */
export function swedishSaftXml(input: SaftInput): string {
  return saftXml(SE_PROFILE, input);
}
