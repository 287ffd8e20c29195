/**
 * The QR code of a Slovak receipt (docs/countries/sk.md, "QR code"): the receipt id eKasa answered
 * (`O-` and 32 hex digits) once it is known; before that (offline) the OKP, the cash register code, the
 * issue time `yyMMddHHmmss`, the receipt number and the amount, separated by `:`
 * (`9f48fa6c-e456da6a-9c996816-94fcd75e-a54aab7a:88812345678900001:260121143005:17:22.58`).
 */
import { qrDateTime } from './ekasa-date.js';

export interface OfflineQr {
  okp: string;
  cashRegisterCode: string;
  /** local `YYYY-MM-DDThh:mm:ss` */
  issued: string;
  receiptNumber: string;
  /** two decimals with a point */
  amount: string;
}

export function offlineQr(q: OfflineQr): string {
  return `${q.okp}:${q.cashRegisterCode}:${qrDateTime(q.issued)}:${q.receiptNumber}:${q.amount}`;
}

export function onlineQr(uid: string): string {
  return uid;
}
