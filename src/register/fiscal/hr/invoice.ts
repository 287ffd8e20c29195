/**
 * The CIS invoice (RacunType of FiskalizacijaSchema.xsd v1.3) of a journaled Croatian receipt: the company's
 * OIB and VAT status, the issue time, the number TN/TL/TT, the VAT per rate (Pdv), the consumption tax (Pnp,
 * from the TaxA lines with TTY=CT), the exempt amount (IznosOslobPdv, the 0 % lines), the total, the payment
 * method, the operator's OIB, the ZKI, the subsequent delivery mark and the special purpose text (HR_SpecNamj).
 * Amounts have two decimals; returns and voids keep their negative signs. docs/countries/hr.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Dec, ZERO, add, fmt, parseDec, round } from '../../../shared/money.js';
import { type Obj, clone, lines, obj, str } from '../../codec/index.js';
import { completeTax } from '../../esr/tax.js';
import { cisDateTime } from './cis-date.js';
import { oibOf } from './oib.js';
import { type NacinPlac, nacinPlacOf } from './payment.js';

export interface Porez {
  /** Stopa: the rate in percent, two decimals */
  stopa: string;
  /** Osnovica: the taxable amount */
  osnovica: string;
  /** Iznos: the tax */
  iznos: string;
}

export interface Racun {
  oib: string;
  uSustPdv: boolean;
  /** dd.MM.yyyyTHH:mm:ss */
  datVrijeme: string;
  /** N: numbered per payment device (TL/TT) */
  oznSlijed: 'N' | 'P';
  brOznRac: string;
  oznPosPr: string;
  oznNapUr: string;
  pdv: Porez[];
  pnp: Porez[];
  iznosOslobPdv?: string;
  iznosUkupno: string;
  nacinPlac: NacinPlac;
  oibOper: string;
  zastKod: string;
  nakDost: boolean;
  paragonBrRac?: string;
  specNamj?: string;
}

/** An amount with exactly two decimals (rounded half away from zero when it has more). */
export function amount2(text: string | undefined, field: string): string {
  const d = parseDec(text ?? '');
  if (!d) throw new FiscalError('#INVALID_VALUE', { field, detail: `not an amount: "${text ?? ''}"` });
  return fmt(round(d, 2), 2);
}

function dec2(d: Dec): string {
  return fmt(round(d, 2), 2);
}

/** Whether the company is in the VAT system (USustPdv): yes unless the profile attribute HR_USustPdv is 0. */
export function inVatSystem(attributes: ReadonlyMap<string, string>): boolean {
  return attributes.get('hr_usustpdv')?.trim() !== '0';
}

/** The VAT per rate, the consumption tax lines and the exempt amount of a receipt's TaxA. */
export function taxesOf(esr: Obj, vatSystem: boolean): { pdv: Porez[]; pnp: Porez[]; oslobodjeno?: string } {
  const perRate = new Map<string, { rate: Dec; net: Dec; tax: Dec }>();
  const pnp: Porez[] = [];
  let exempt: Dec | undefined;
  lines(esr, 'TaxA').forEach((line, i) => {
    const field = `ESR.TaxA[${i}]`;
    const rate = parseDec(str(line, 'Prc') ?? '');
    if (!rate) throw new FiscalError('#INVALID_VALUE', { field: `${field}.Prc`, detail: 'a tax rate is required' });
    const tty = str(line, 'TTY');
    if (tty) {
      if (tty.toUpperCase() !== 'CT') throw new FiscalError('#INVALID_VALUE', { field: `${field}.TTY`, detail: `"${tty}" is not a Croatian tax; CT (porez na potrošnju) is` });
      pnp.push({ stopa: dec2(rate), osnovica: amount2(str(line, 'Base'), `${field}.Base`), iznos: amount2(str(line, 'Amt'), `${field}.Amt`) });
      return;
    }
    const tax = clone(line);
    completeTax(tax);
    const amt = parseDec(str(tax, 'Amt') ?? '') ?? ZERO;
    if (rate.v === 0n) {
      exempt = add(exempt ?? ZERO, amt);
      return;
    }
    const key = dec2(rate);
    const known = perRate.get(key) ?? { rate, net: ZERO, tax: ZERO };
    known.net = add(known.net, parseDec(str(tax, 'Net') ?? '') ?? ZERO);
    known.tax = add(known.tax, parseDec(str(tax, 'TAmt') ?? '') ?? ZERO);
    perRate.set(key, known);
  });
  // outside the VAT system there is no VAT to report: neither rates nor exemptions
  if (!vatSystem) return { pdv: [], pnp };
  const pdv = [...perRate.values()].map((r) => ({ stopa: dec2(r.rate), osnovica: dec2(r.net), iznos: dec2(r.tax) }));
  return exempt === undefined ? { pdv, pnp } : { pdv, pnp, oslobodjeno: dec2(exempt) };
}

export interface RacunInput {
  /** the journaled ESR */
  esr: Obj;
  /** the journaled Fis (ZKI, D) */
  fis: Obj;
  cfg: Obj;
  attributes: ReadonlyMap<string, string>;
  /** subsequent delivery (NakDost) */
  later: boolean;
}

/** The CIS invoice of a journaled receipt; throws FiscalError when a required element is missing or malformed. */
export function racunOf(input: RacunInput): Racun {
  const { esr, fis } = input;
  const oib = oibOf(str(obj(input.cfg, 'Cmp') ?? {}, 'TaxId'));
  if (!oib) throw new FiscalError('#MISSING_FIELD', { field: 'Cfg.Cmp.TaxId' });
  const zki = str(fis, 'ZKI');
  if (!zki) throw new FiscalError('#MISSING_FIELD', { field: 'Fis.ZKI' });
  const oibOper = str(esr, 'OprTIN');
  if (!oibOper) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.OprTIN' });
  const d = str(esr, 'D') ?? str(fis, 'D');
  if (!d) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.D' });
  const vatSystem = inVatSystem(input.attributes);
  const taxes = taxesOf(esr, vatSystem);
  const racun: Racun = {
    oib,
    uSustPdv: vatSystem,
    datVrijeme: cisDateTime(d),
    oznSlijed: 'N',
    brOznRac: str(esr, 'TN') ?? '',
    oznPosPr: str(esr, 'TL') ?? '',
    oznNapUr: str(esr, 'TT') ?? '1',
    pdv: taxes.pdv,
    pnp: taxes.pnp,
    iznosUkupno: amount2(str(esr, 'T') ?? '0', 'ESR.T'),
    nacinPlac: nacinPlacOf(esr),
    oibOper: oibOper.replace(/^HR/i, ''),
    zastKod: zki,
    nakDost: input.later,
  };
  if (taxes.oslobodjeno !== undefined) racun.iznosOslobPdv = taxes.oslobodjeno;
  const paragon = str(esr, 'HR_ParagonBrRac')?.trim();
  if (paragon) racun.paragonBrRac = paragon.slice(0, 100);
  const spec = str(esr, 'HR_SpecNamj')?.trim();
  if (spec) racun.specNamj = spec.slice(0, 1000);
  return racun;
}
