/**
 * The date-time forms of eKasa, from a receipt's local time `YYYY-MM-DDThh:mm:ss` (ESR.D): the request's
 * xs:dateTime with the local offset (`2026-01-21T14:30:05+01:00`), the PKP input's `dd.MM.yyyy HH:mm:ss` and
 * the offline QR code's `yyMMddHHmmss`.
 */
import { formatWithOffset, parseLocalDateTime } from '../../esr/datetime.js';

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/;

function parts(local: string): [string, string, string, string, string, string] {
  const m = LOCAL.exec(local);
  if (!m) throw new Error(`not a local date-time: ${local}`);
  return m.slice(1) as [string, string, string, string, string, string];
}

/** xs:dateTime with the offset the local time has in the service's time zone. */
export function ekasaDateTime(local: string): string {
  const date = parseLocalDateTime(local.slice(0, 19));
  if (!date) throw new Error(`not a local date-time: ${local}`);
  return formatWithOffset(date);
}

/** `dd.MM.yyyy HH:mm:ss`: the issue time as it enters the PKP. */
export function pkpDateTime(local: string): string {
  const [y, mo, d, h, mi, s] = parts(local);
  return `${d}.${mo}.${y} ${h}:${mi}:${s}`;
}

/** `yyMMddHHmmss`: the issue time in the QR code of a receipt without its receipt id. */
export function qrDateTime(local: string): string {
  const [y, mo, d, h, mi, s] = parts(local);
  return `${y.slice(2)}${mo}${d}${h}${mi}${s}`;
}
