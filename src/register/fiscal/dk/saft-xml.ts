/**
 * Denmark: the SAF-T Cash Register file (UFST / Skattestyrelsen, Danish SAF-T Cash Register schema
 * v1.0.3, namespace urn:StandardAuditFile-Taxation-CashRegister:DK) of one register, built from its
 * journal records (records in, XML text out). Written by the shared writer (saft-cash-register/) after
 * DK_PROFILE here; what Denmark adds or requires:
 * - company and location `streetAddress` with streetname, number, city, postalCode, country (from Cfg
 *   Cmp/Loc Adr, AdrNr, City, Zip, Ctry; '-' where the schema needs a value and Cfg has none; country DK);
 * - `vatCodeDetails`, one `periods/period` (the export's period), `employees` (firstName/surName split from
 *   OprN; the employee 'POS' for events and transactions without an operator), `articles` and `basics`;
 * - ctLine `artID` on every line: Pos.SKU, else Pos.ID, else a generated article per description
 *   ('D' + 16 hex digits of the SHA-256 of the description), listed in `articles`;
 * - event `empID` (the record's operator or 'POS'), `reportEmpPayments` in X/Z reports;
 * - per cashtransaction the values that were signed (Fis: FN, TransID, TransType, EmpID, TransDate,
 *   TransTime, AmntIn, AmntEx) verbatim, `certificateData` = the PEM of the certificate with Fis.CertSerial,
 *   `voidTransaction` and `trainingID` always; every payment's `paymentRefID` (danishPaymentRefId).
 *   companyIdent and registerID are the signed Fis.CompanyIdent and Fis.RegisterID (an error when the
 *   period's transactions disagree), else the CVR and `registerId`.
 */
import { createHash } from 'node:crypto';
import { type Dec, ZERO, cmp, dec, parseDec, sign } from '../../../shared/money.js';
import type { Obj } from '../../codec/index.js';
import { OTHER_ART_GROUP } from '../saft-cash-register/codes.js';
import { saftXml, saftXmlChunks } from '../saft-cash-register/document-writer.js';
import { fileStamp, percent } from '../saft-cash-register/format.js';
import type { RecordSource, SaftScan } from '../saft-cash-register/passes.js';
import type { SaftOptions, SaftProfile, SaftVatCode } from '../saft-cash-register/profile.js';
import { type CashTx, amount, text } from '../saft-cash-register/records.js';
import type { XmlOut } from '../saft-cash-register/xml-out.js';
import { isPos } from '../../esr/tax.js';

export const SAFT_DK_NAMESPACE = 'urn:StandardAuditFile-Taxation-CashRegister:DK';
export const SAFT_DK_SCHEMA = 'Danish_SAF-T_Cash_Register_Schema_v_1.0.3.xsd';
/** The employee of events and transactions without an operator. */
export const POS_EMPLOYEE = 'POS';

export interface DanishSaftOptions extends Omit<SaftOptions, 'currency' | 'namespace'> {
  /** the Cfg (or a record `{ Cfg }`): Cmp {Nam, TaxId, Adr, AdrNr, Zip, City, Ctry}, Loc {TL, Nam, Adr, AdrNr, Zip, City, Ctry}, Trm {TT} */
  cfg: Obj;
  /** the signing certificates as PEM, by serial number (uppercase hex, as Fis.CertSerial), or a look-up by serial */
  certificates: Record<string, string> | ((serial: string) => string | undefined);
  currency?: 'DKK';
}

export interface DanishSaftInput extends DanishSaftOptions {
  /** journal record data of ONE register in SQ order, from its first record (older records feed the report grand totals) */
  records: readonly Obj[];
}

export interface DanishSaftStreamInput extends DanishSaftOptions {
  /** the same records, read again from the start on each call (see runPasses in saft-cash-register/passes.ts) */
  records: RecordSource;
  /** called after the first read, before any text is handed over */
  onScanned?: (scan: SaftScan) => void;
}

/** The CVR number: the digits of Cfg.Cmp.TaxId ('DK12345678' -> '12345678'). */
export function cvrNumber(taxId: string | undefined): string {
  return (taxId ?? '').replace(/^\s*DK/i, '').replace(/\D/g, '');
}

/** `SAF-T Cash Register_<cvr8>_<yyyymmddhhmmss>_1_1.xml` (local time of `created`; file 1 of 1). */
export function danishSaftFileName(cvr: string, created: Date): string {
  return `SAF-T Cash Register_${cvrNumber(cvr)}_${fileStamp(created)}_1_1.xml`;
}

/**
 * A VAT rate's code in the file and its standard VAT code. The Danish code list is not published with
 * the schema; 'S' (standard, 25 %) and 'Z' (zero-rated) as the Danish sample file uses them, other
 * rates get a code of their own with standard code 'O' (other) [to confirm with UFST's code list].
 */
export function danishVatCode(rate: Dec): SaftVatCode {
  const pct = percent(rate);
  if (cmp(rate, dec('25')) === 0) return { code: 'S', standard: 'S', desc: 'Moms 25 %' };
  if (sign(rate) === 0) return { code: 'Z', standard: 'Z', desc: 'Momsfri 0 %' };
  return { code: `R${pct}`.slice(0, 20), standard: 'O', desc: `Moms ${pct} %` };
}

/** The empID the transaction was signed with (Fis.EmpID), else its operator, else POS. */
function txEmp(tx: CashTx): string {
  return text(tx.fis, 'EmpID') || text(tx.esr, 'Opr') || POS_EMPLOYEE;
}

/** A line's article: SKU, else ID, else one generated from its description. */
export function articleIdOf(line: Obj): string {
  const own = (text(line, 'SKU') || text(line, 'ID') || '').trim();
  if (own) return [...own].slice(0, 36).join('');
  return `D${createHash('sha256').update(text(line, 'Dsc') ?? '', 'utf8').digest('hex').slice(0, 16).toUpperCase()}`;
}

/**
 * A payment's paymentRefID: its UID, else `<registerID>-<transID>-<n>` (the signed Fis.RegisterID and
 * Fis.TransID, n its place in PayA from 1). The Danish validator wants one on every card and mobile payment
 * (predefined basics 12002, 12003, 12011); every payment gets one, so a payment type the POS reports
 * differently later cannot miss it. The derived value is read from the journal, so every export of the
 * transaction writes the same, and register, transaction and line make it unique.
 */
export function danishPaymentRefId(tx: CashTx, pay: Obj, index: number): string {
  const uid = (text(pay, 'UID') ?? '').trim();
  if (uid) return uid;
  const register = text(tx.fis, 'RegisterID') ?? text(tx.record, 'RN') ?? '';
  return `${register}-${text(tx.fis, 'TransID') ?? tx.sq}-${index + 1}`;
}

/** streetAddress (required in DK, all five parts): from `a`, then `fallback` (the company), else '-'. */
function address(o: XmlOut, a: Obj, fallback: Obj): void {
  const has = Boolean(text(a, 'Adr') || text(a, 'City') || text(a, 'Zip'));
  const src = has ? a : fallback;
  const ctry = (text(src, 'Ctry') ?? '').trim().toUpperCase();
  o.open('streetAddress');
  o.leaf('streetname', text(src, 'Adr') || '-', 100);
  o.leaf('number', text(src, 'AdrNr') || '-', 20);
  o.leaf('city', text(src, 'City') || '-', 50);
  o.leaf('postalCode', text(src, 'Zip') || '-', 20);
  o.leaf('country', /^[A-Z]{2}$/.test(ctry) ? ctry : 'DK');
  o.close('streetAddress');
}

/** Denmark's file, for the shared writer. */
export const DK_PROFILE: SaftProfile = {
  namespace: SAFT_DK_NAMESPACE,
  currency: 'DKK',
  auditfileVersion: '1.0.3',
  country: 'DK',
  idMax: 36,
  blank: '-',
  texts: { copy: 'Kopi af kvittering nr', zReport: 'Z-rapport', xReport: 'X-rapport' },
  vatCode: danishVatCode,
  // a report lists Denmark's rates (0 and 25 %) always, others when they have an amount
  reportVatCode: (v) => {
    const rate = parseDec(v.perc) ?? ZERO;
    const dkRate = sign(rate) === 0 || cmp(rate, dec('25')) === 0;
    return !dkRate && sign(amount(v.base)) === 0 && sign(amount(v.vat)) === 0 ? undefined : danishVatCode(rate).code;
  },
  baseRates: ['0', '25'].map(dec),
  companyIdent: cvrNumber,
  taxRegIdent: (cvr) => cvr || undefined,
  address,
  txEmployee: txEmp,
  paymentRefId: danishPaymentRefId,
  employeeNames: (id, full) => {
    const name = (full ?? '').trim();
    const [firstName, ...rest] = name ? name.split(/\s+/) : [id === POS_EMPLOYEE ? 'POS' : id];
    return { firstName: firstName || id, surName: rest.join(' ') || (id === POS_EMPLOYEE ? 'System' : firstName || id) };
  },
  artGroupDesc: (line, group) => {
    const fallback = group === OTHER_ART_GROUP ? 'Other' : text(line, 'Cat') || group;
    return isPos(line) ? text(line, 'CatN') || fallback : fallback;
  },
  zNumberFromFis: false,
  creditBlocks: false,
  signedFields: true,
  required: { posEmployee: POS_EMPLOYEE, articleId: articleIdOf },
};

/** The Danish SAF-T Cash Register XML of one register for a period, as text chunks (records read twice, see runPasses). */
export function danishSaftXmlChunks(input: DanishSaftStreamInput): AsyncGenerator<string> {
  return saftXmlChunks(DK_PROFILE, input);
}

/** The Danish SAF-T Cash Register XML of one register for a period (all records in memory; see danishSaftXmlChunks). */
export function danishSaftXml(input: DanishSaftInput): string {
  return saftXml(DK_PROFILE, input);
}
