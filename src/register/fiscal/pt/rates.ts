/**
 * The Portuguese VAT rates and what SAF-T PT and the QR code call them. A rate belongs to one fiscal
 * space only (mainland 23/13/6, Madeira 22/12/5, the Azores 16/9/4), so the rate of a tax element names
 * its region too; 0 % is an exemption (isento) and is counted in the mainland space.
 */
import { type Dec, dec, eq } from '../../../shared/money.js';

export type Region = 'PT' | 'PT-AC' | 'PT-MA';
export type TaxCode = 'NOR' | 'INT' | 'RED' | 'ISE';

export interface PtRate {
  /** percentage as written in SAF-T (no decimals) */
  pct: string;
  region: Region;
  code: TaxCode;
}

export const PT_RATES: readonly PtRate[] = [
  { pct: '23', region: 'PT', code: 'NOR' },
  { pct: '13', region: 'PT', code: 'INT' },
  { pct: '6', region: 'PT', code: 'RED' },
  { pct: '0', region: 'PT', code: 'ISE' },
  { pct: '22', region: 'PT-MA', code: 'NOR' },
  { pct: '12', region: 'PT-MA', code: 'INT' },
  { pct: '5', region: 'PT-MA', code: 'RED' },
  { pct: '16', region: 'PT-AC', code: 'NOR' },
  { pct: '9', region: 'PT-AC', code: 'INT' },
  { pct: '4', region: 'PT-AC', code: 'RED' },
];

export function rateOf(prc: Dec): PtRate | undefined {
  return PT_RATES.find((r) => eq(dec(r.pct), prc));
}

const CODE_NAME: Readonly<Record<TaxCode, string>> = { NOR: 'Taxa normal', INT: 'Taxa intermédia', RED: 'Taxa reduzida', ISE: 'Isento' };
const REGION_NAME: Readonly<Record<Region, string>> = { PT: 'Continente', 'PT-AC': 'Região Autónoma dos Açores', 'PT-MA': 'Região Autónoma da Madeira' };

/** The TaxTable description of a rate, e.g. "Taxa normal - Continente". */
export function rateDescription(r: PtRate): string {
  return `${CODE_NAME[r.code]} - ${REGION_NAME[r.region]}`;
}
