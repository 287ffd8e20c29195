/**
 * ESR date-times are local wall-clock times `YYYY-MM-DDThh:mm:ss` without a zone.
 */
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function valid(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): boolean {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

/** Parses a local date-time; undefined when malformed or impossible (2026-02-30). */
export function parseLocalDateTime(text: string): Date | undefined {
  const m = DATETIME.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (!valid(y, mo, d, h, mi, s)) return undefined;
  return new Date(y, mo - 1, d, h, mi, s);
}

export function isDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = m.slice(1).map(Number) as [number, number, number];
  return valid(y, mo, d);
}

const p2 = (n: number): string => String(n).padStart(2, '0');

export function formatLocalDateTime(date: Date): string {
  return `${date.getFullYear()}-${p2(date.getMonth() + 1)}-${p2(date.getDate())}T${p2(date.getHours())}:${p2(date.getMinutes())}:${p2(date.getSeconds())}`;
}

/** ISO 8601 with the local offset, e.g. 2026-11-21T23:44:00+01:00. */
export function formatWithOffset(date: Date): string {
  const off = -date.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const a = Math.abs(off);
  return `${formatLocalDateTime(date)}${sign}${p2(Math.floor(a / 60))}:${p2(a % 60)}`;
}

export function yearOf(localDateTime: string): number {
  return Number(localDateTime.slice(0, 4));
}

/** The day after a date YYYY-MM-DD. */
export function nextDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}
