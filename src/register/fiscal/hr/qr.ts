/**
 * The QR code a Croatian receipt must carry (Pravilnik o fiskalizaciji u prometu gotovinom, articles 18.a-18.c;
 * mandatory since 1 January 2021): the Tax Administration's receipt check page with the JIR, or the ZKI while
 * the receipt has no JIR yet, the issue time `yyyyMMdd_HHmm` and the total in cents without a separator
 * (`https://porezna.gov.hr/rn?jir=...&datv=20260121_1430&izn=1250`).
 */
import { parseDec, round } from '../../../shared/money.js';
import { qrDateTime } from './cis-date.js';

export const QR_BASE_URL = 'https://porezna.gov.hr/rn';

export type QrId = { jir: string } | { zki: string };

/** The total as the QR code writes it: cents, no separator, no leading zeros, a minus for negative totals. */
export function qrAmount(total: string): string {
  const d = parseDec(total);
  if (!d) throw new Error(`not an amount: ${total}`);
  return round(d, 2).v.toString();
}

/** The QR code content of a receipt: `issued` is its local date-time `YYYY-MM-DDThh:mm:ss`, `total` IznosUkupno. */
export function qrUrl(id: QrId, issued: string, total: string): string {
  const first = 'jir' in id ? `jir=${id.jir}` : `zki=${id.zki}`;
  return `${QR_BASE_URL}?${first}&datv=${qrDateTime(issued)}&izn=${qrAmount(total)}`;
}
