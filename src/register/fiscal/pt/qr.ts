/**
 * The QR code of Portaria 195/2020 (technical specification of the AT): `field:value` pairs joined by
 * `*`, in the fixed order A B C D E F G H, the tax blocks, N O Q R. A tax block describes one fiscal
 * space: X1 the space, X2 the exempt base, X3/X4 base and VAT at the reduced rate, X5/X6 intermediate,
 * X7/X8 normal; a field is written only when the document has lines at that rate. In a document of
 * several fiscal spaces each space has its block, as in the AT's example 1 (`I1:PT*…*J1:PT-AC*…*K1:PT-MA`):
 * I the mainland, J the Azores, K Madeira, so an Azores and Madeira document has J and K. A document of one
 * space writes it in I, whichever it is, as the AT's examples 6 (`I1:PT-MA`) and 7 (`I1:PT-AC`) do. A
 * document without VAT lines has `I1:0`. Amounts have two decimals with a point.
 */
import { type Dec, ZERO, add } from '../../../shared/money.js';
import { type DocType, type PtTax, money2 } from './document.js';
import type { Region, TaxCode } from './rates.js';

export interface QrInput {
  companyNif: string;
  customerNif: string;
  customerCountry: string;
  type: DocType;
  status: string;
  /** YYYY-MM-DD */
  invoiceDate: string;
  invoiceNo: string;
  atcud: string;
  taxes: readonly PtTax[];
  taxPayable: Dec;
  grossTotal: Dec;
  hash4: string;
  certificate: string;
}

const BLOCK_OF: Readonly<Record<Region, string>> = { PT: 'I', 'PT-AC': 'J', 'PT-MA': 'K' };
const REGIONS = Object.keys(BLOCK_OF) as Region[];
const FIELD_OF: Readonly<Record<TaxCode, readonly [number, number?]>> = { ISE: [2], RED: [3, 4], INT: [5, 6], NOR: [7, 8] };

/** The tax blocks: [block letter, region] in the order they are written. */
export function taxBlocks(taxes: readonly PtTax[]): Array<[string, Region]> {
  const present = REGIONS.filter((r) => taxes.some((t) => t.rate.region === r));
  return present.map((r): [string, Region] => [present.length === 1 ? 'I' : BLOCK_OF[r], r]);
}

export function qrText(q: QrInput): string {
  const f: Array<[string, string]> = [
    ['A', q.companyNif],
    ['B', q.customerNif],
    ['C', q.customerCountry],
    ['D', q.type],
    ['E', q.status],
    ['F', q.invoiceDate.replace(/-/g, '')],
    ['G', q.invoiceNo],
    ['H', q.atcud],
  ];
  const blocks = taxBlocks(q.taxes);
  if (blocks.length === 0) f.push(['I1', '0']);
  for (const [letter, region] of blocks) {
    f.push([`${letter}1`, region]);
    const values = new Map<number, Dec>();
    for (const t of q.taxes.filter((x) => x.rate.region === region)) {
      const [baseField, taxField] = FIELD_OF[t.rate.code];
      values.set(baseField, add(values.get(baseField) ?? ZERO, t.net));
      if (taxField !== undefined) values.set(taxField, add(values.get(taxField) ?? ZERO, t.tax));
    }
    for (const n of [...values.keys()].sort((a, b) => a - b)) f.push([`${letter}${n}`, money2(values.get(n) as Dec)]);
  }
  f.push(['N', money2(q.taxPayable)], ['O', money2(q.grossTotal)], ['Q', q.hash4], ['R', q.certificate]);
  return f.map(([k, v]) => `${k}:${v}`).join('*');
}
