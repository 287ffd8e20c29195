/**
 * Document types, series and their chains. A document's number is `<type> <series>/<n>` (e.g. "FS A/7"):
 * each type and series is numbered from 1 and chained by its own hashes, kept in the register's
 * country state (journaled with every record, so they survive restarts and roll back with a failed one).
 * The series comes from the profile attribute FN_series (default "A"), where `{TL}` and `{TT}` are
 * replaced by the POS's location and terminal; it must start with a letter A-Z other than M (M marks
 * documents recovered from manual series). A series belongs to one register (owners.ts). The ATCUD
 * validation code the AT gave for a series is the attribute `FN_ATCUD_<type>_<series>`, or
 * `FN_ATCUD_<type>` when FN_series is one fixed name (not a template with {TL}/{TT}).
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, isObj, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import type { RegisterState } from '../../journal/types.js';
import type { DocType } from './document.js';

const EXPLICIT: readonly DocType[] = ['FS', 'FT', 'FR'];

/** Returns and voids are credit notes; ESR.DT may ask for FS, FT or FR; a customer makes an FT; else FS. */
export function docTypeOf(esr: Obj, bc: BusinessCase): DocType {
  if (bc.kind === 'return' || bc.kind === 'void') return 'NC';
  const dt = (str(esr, 'DT') ?? '').trim().toUpperCase();
  if ((EXPLICIT as readonly string[]).includes(dt)) return dt as DocType;
  return isObj(esr.Ctm) ? 'FT' : 'FS';
}

export function seriesOf(attributes: ReadonlyMap<string, string>, esr: Obj): string {
  const template = attributes.get('fn_series') ?? 'A';
  const series = template
    .replace(/\{TL\}/gi, str(esr, 'TL') ?? '')
    .replace(/\{TT\}/gi, str(esr, 'TT') ?? '')
    .toUpperCase();
  if (!/^[A-LN-Z][A-Z0-9._-]{0,19}$/.test(series)) {
    throw new FiscalError('#INVALID_VALUE', { field: 'FN_series', detail: `"${series}" (from "${template}"): a series starts with a letter A-Z other than M, followed by at most 19 letters, digits, ".", "_" or "-"` });
  }
  return series;
}

/** Whether the series template names the POS (`{TL}`, `{TT}`): then every register has a series of its own. */
export function isPerPos(attributes: ReadonlyMap<string, string>): boolean {
  return /\{(TL|TT)\}/i.test(attributes.get('fn_series') ?? '');
}

/**
 * The ATCUD validation code of a series, if configured: `FN_ATCUD_<type>_<series>`, else `FN_ATCUD_<type>`
 * when the series is one fixed name. A template with {TL}/{TT} makes a series per register, each with its
 * own code from the AT: one code for all of them would give two documents the same ATCUD, so there the
 * per-type code is refused and each series needs its own attribute.
 */
export function validationCode(attributes: ReadonlyMap<string, string>, type: DocType, series: string): string | undefined {
  const name = `fn_atcud_${type.toLowerCase()}_${series.toLowerCase()}`;
  const typeName = `fn_atcud_${type.toLowerCase()}`;
  let code = attributes.get(name);
  if (code === undefined && attributes.has(typeName)) {
    if (isPerPos(attributes)) {
      throw new FiscalError('#MISSING_FIELD', { field: `FN_ATCUD_${type}_${series} (FN_series makes a series per register, each with its own validation code; FN_ATCUD_${type} would give them all the same ATCUDs)` });
    }
    code = attributes.get(typeName);
  }
  if (code === undefined) return undefined;
  if (!/^[A-Z0-9]{8,}$/.test(code)) {
    throw new FiscalError('#INVALID_VALUE', { field: attributes.has(name) ? `FN_ATCUD_${type}_${series}` : `FN_ATCUD_${type}`, detail: `"${code}" is not an ATCUD validation code (8 or more capital letters and digits)` });
  }
  return code;
}

/** The certificate number of the program (attribute Fis_Certification, default 0: not certified). */
export function certificateOf(attributes: ReadonlyMap<string, string>): string {
  const cert = attributes.get('fis_certification') ?? '0';
  if (!/^\d{1,4}$/.test(cert)) throw new FiscalError('#INVALID_VALUE', { field: 'Fis_Certification', detail: `the AT certificate number has 1 to 4 digits, got "${cert}"` });
  return String(Number(cert));
}

/** One series' chain in the country state: last number, hash, InvoiceDate and SystemEntryDate. */
export class SeriesChain {
  constructor(
    private readonly state: RegisterState,
    readonly key: string,
  ) {}
  private get(k: string): string {
    return this.state.country[`pt|${this.key}|${k}`] ?? '';
  }
  get number(): number {
    return Number(this.get('n') || '0');
  }
  get hash(): string {
    return this.get('h');
  }
  get invoiceDate(): string {
    return this.get('d');
  }
  get systemEntryDate(): string {
    return this.get('s');
  }
  advance(number: number, hash: string, invoiceDate: string, systemEntryDate: string): void {
    const c = this.state.country;
    c[`pt|${this.key}|n`] = String(number);
    c[`pt|${this.key}|h`] = hash;
    c[`pt|${this.key}|d`] = invoiceDate;
    c[`pt|${this.key}|s`] = systemEntryDate;
  }
}
