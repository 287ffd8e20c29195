/**
 * `from` and `till` of GET /backup/log ("JSON dates"): a date `YYYY-MM-DD` (whole days of the service's
 * local time, `till` inclusive), a local date-time `YYYY-MM-DDThh:mm:ss` (`till` inclusive to the
 * second), or a JSON date with a zone (`2026-05-01T08:00:00.000Z`, `...+02:00`; `till` inclusive to the
 * millisecond). As epoch milliseconds: `from` inclusive, `till` exclusive.
 */
import { FiscalError } from '../../shared/errors.js';
import { isDate, nextDay, parseLocalDateTime } from '../esr/datetime.js';

const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

function localMidnight(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).getTime();
}

export function logBound(field: 'from' | 'till', text: string): number {
  const t = text.trim();
  if (isDate(t)) return localMidnight(field === 'from' ? t : nextDay(t));
  const local = parseLocalDateTime(t);
  if (local) return local.getTime() + (field === 'till' ? 1000 : 0);
  if (ZONED.test(t)) {
    const ms = Date.parse(t);
    if (!Number.isNaN(ms)) return ms + (field === 'till' ? 1 : 0);
  }
  throw new FiscalError('#INVALID_VALUE', { field, detail: `a date YYYY-MM-DD, a date-time YYYY-MM-DDThh:mm:ss or a JSON date (2026-05-01T08:00:00.000Z), got "${text}"` });
}

export function logPeriodOf(q: Readonly<Record<string, string>>): { from?: number; till?: number } {
  const out: { from?: number; till?: number } = {};
  if (q.from !== undefined && q.from !== '') out.from = logBound('from', q.from);
  if (q.till !== undefined && q.till !== '') out.till = logBound('till', q.till);
  if (out.from !== undefined && out.till !== undefined && out.from >= out.till) {
    throw new FiscalError('#INVALID_VALUE', { field: 'from', detail: `"${q.from ?? ''}" is after till "${q.till ?? ''}"` });
  }
  return out;
}
