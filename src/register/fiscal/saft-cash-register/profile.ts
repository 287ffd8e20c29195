/**
 * What differs between the countries' SAF-T Cash Register files (SaftProfile), and the options of a file:
 * the writer (document-writer.ts) is the same for all; each country's saft-xml.ts holds its profile.
 */
import type { Dec } from '../../../shared/money.js';
import type { Obj } from '../../codec/index.js';
import type { RecordSource, SaftScan } from './passes.js';
import type { CashTx } from './records.js';
import type { Report, ReportVat } from './report.js';
import type { XmlOut } from './xml-out.js';

export interface SaftOptions {
  /** the Cfg (or a record `{ Cfg }`): Cmp {Nam, TaxId, Adr, Zip, City}, Loc {TL, Nam, Adr, Zip, City}, Trm {TT} */
  cfg: Obj;
  registerId: string;
  /** YYYY-MM-DD or a YYYY-MM-DDThh:mm:ss prefix, compared with each record's TS; both inclusive */
  period: { from?: string; till?: string };
  created: Date;
  software: { name: string; version: string; company: string };
  currency?: string;
  namespace?: string;
}

export interface SaftInput extends SaftOptions {
  /** journal record data of ONE register in SQ order, from its first record (older records feed the report grand totals) */
  records: readonly Obj[];
}

export interface SaftStreamInput extends SaftOptions {
  /** the same records, read again from the start on each call (two reads: see runPasses) */
  records: RecordSource;
  /** called after the first read, before any text is handed over */
  onScanned?: (scan: SaftScan) => void;
}

/** A VAT rate's code in the file, its standard VAT code and description. */
export interface SaftVatCode {
  code: string;
  standard: string;
  desc: string;
}

/**
 * What differs between the countries' SAF-T Cash Register files. Denmark's adds `required` and writes the
 * signed fields. Its `baseRates` and `vatCode` are also the VAT of the X/Z reports.
 */
export interface SaftProfile extends ReportVat {
  namespace: string;
  currency: string;
  auditfileVersion: string;
  /** taxRegistrationCountry */
  country: string;
  /** the longest ID the schema allows (eventID, transID, empID, reportID, basicID ...) */
  idMax: number;
  /** the value written where the schema wants one and there is none (undefined: the empty text) */
  blank?: string;
  texts: { copy: string; zReport: string; xReport: string };
  vatCode(rate: Dec): SaftVatCode;
  /** the vatCode of a report's VAT line, undefined to leave the line out */
  reportVatCode(v: Report['vat'][number]): string | undefined;
  /** the rates every file declares */
  baseRates: readonly Dec[];
  /** companyIdent from Cfg.Cmp.TaxId */
  companyIdent(taxId: string | undefined): string;
  taxRegIdent(ident: string): string | undefined;
  /** the streetAddress of `a` (the company or the location), `company` the company's */
  address(o: XmlOut, a: Obj, company: Obj): void;
  /** the empID of a cash transaction */
  txEmployee(tx: CashTx): string | undefined;
  employeeNames(id: string, name: string | undefined): { firstName?: string; surName: string };
  /** the description of a line's article group (undefined: the line names none) */
  artGroupDesc(line: Obj, group: string): string | undefined;
  /** a Z report's reportID is Fis.Z.ZI when the record has one */
  zNumberFromFis: boolean;
  /** reportCreditSales and reportCreditMemos in the reports */
  creditBlocks: boolean;
  /**
   * the cashtransaction's nr, transID, transType, amounts and empID are the signed Fis values verbatim, and
   * companyIdent and registerID the signed Fis.CompanyIdent and Fis.RegisterID of the period
   */
  signedFields: boolean;
  /**
   * a payment's paymentRefID (`index` its place in PayA, from 0); without it, the payment's UID when it has
   * one. A country whose validator wants a reference on every card payment derives one.
   */
  paymentRefId?(tx: CashTx, pay: Obj, index: number): string | undefined;
  /** the eventText of a copy's event (`fis` the copy's Fis, `rfn` its original's number); without it, `texts.copy` and the number */
  copyText?(fis: Obj, rfn: string): string;
  /** the elements a country requires on top (Denmark): periods, articles, employees, basics always, reportEmpPayments, certificateData */
  required?: {
    /** the employee of events and transactions without an operator */
    posEmployee: string;
    articleId(line: Obj): string;
  };
}

/** The options of the shared writer: a country's options, and the certificates where the profile writes certificateData. */
export interface SaftWriterOptions extends SaftOptions {
  /** the signing certificates as PEM, by serial number (uppercase hex, as Fis.CertSerial), or a look-up by serial */
  certificates?: Record<string, string> | ((serial: string) => string | undefined);
}
