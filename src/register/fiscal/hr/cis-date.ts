/**
 * The date-time formats of the CIS (Croatian fiscalization) from the receipt's local time `YYYY-MM-DDThh:mm:ss`:
 * the request's `dd.MM.yyyyTHH:mm:ss` (DatumVrijemeType), the ZKI input's `dd.MM.yyyy HH:mm:ss` and the QR
 * code's `yyyyMMdd_HHmm`.
 */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

function parts(local: string): [string, string, string, string, string, string] {
  const m = LOCAL.exec(local);
  if (!m) throw new Error(`not a local date-time: ${local}`);
  return m.slice(1) as [string, string, string, string, string, string];
}

/** `dd.MM.yyyyTHH:mm:ss`: DatVrijeme and the header's DatumVrijeme. */
export function cisDateTime(local: string): string {
  const [y, mo, d, h, mi, s] = parts(local);
  return `${d}.${mo}.${y}T${h}:${mi}:${s}`;
}

/** `dd.MM.yyyy HH:mm:ss`: the date-time as it enters the ZKI. */
export function zkiDateTime(local: string): string {
  const [y, mo, d, h, mi, s] = parts(local);
  return `${d}.${mo}.${y} ${h}:${mi}:${s}`;
}

/** `yyyyMMdd_HHmm`: the date-time of the QR code (datv). */
export function qrDateTime(local: string): string {
  const [y, mo, d, h, mi] = parts(local);
  return `${y}${mo}${d}_${h}${mi}`;
}
