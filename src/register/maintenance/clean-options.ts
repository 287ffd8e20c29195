/** The parameters of POST /disk/clean: `quota` (MB) and `keep` (a date or a number of days). */
import { FiscalError } from '../../shared/errors.js';
import { isDate } from '../esr/datetime.js';
import { parseQuotaMb } from './disk-quota.js';

const MB = 1_048_576;
/** The quota when neither the request nor the profile names one: what GET /state shows as DiskQuota. */
export const DEFAULT_QUOTA_MB = 1024;

export interface CleanOptions {
  /** bytes; cleaning starts when the data folder is larger, and goes down to 80 % of it */
  quota: number;
  /** local date YYYY-MM-DD: journal records and backups dated before it may go */
  keepFrom: string;
}

const pad = (n: number): string => String(n).padStart(2, '0');
const localDate = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/** The default `keep`: the current month and the three full months before it (on 2026-11-23: from 2026-08-01). */
export function threeFullMonths(now: Date): string {
  return localDate(new Date(now.getFullYear(), now.getMonth() - 3, 1));
}

/** `keep`: a date (YYYY-MM-DD, not after today) or a number of days before today (0: keep today only). */
export function keepFromOf(keep: string | undefined, now: Date): string {
  if (keep === undefined || keep.trim() === '') return threeFullMonths(now);
  const v = keep.trim();
  const today = localDate(now);
  if (/^\d{1,5}$/.test(v)) return localDate(new Date(now.getFullYear(), now.getMonth(), now.getDate() - Number(v)));
  if (isDate(v)) {
    if (v > today) throw new FiscalError('#INVALID_VALUE', { field: 'keep', detail: `${v} is after today (${today}): nothing of today could be kept` });
    return v;
  }
  throw new FiscalError('#INVALID_VALUE', { field: 'keep', detail: `"${v}" is neither a date YYYY-MM-DD nor a number of days` });
}

/** `quota` of the request, else the profile's DiskQuota, else the default. */
export function cleanOptionsOf(q: Readonly<Record<string, string>>, now: Date, profileQuota: number | undefined): CleanOptions {
  let quota = profileQuota ?? DEFAULT_QUOTA_MB * MB;
  if (q.quota !== undefined && q.quota.trim() !== '') {
    const mb = parseQuotaMb(q.quota);
    if (mb === undefined) throw new FiscalError('#INVALID_VALUE', { field: 'quota', detail: `"${q.quota}" is not a number of MB (0 or more, e.g. 500 or 0.5)` });
    quota = mb * MB;
  }
  return { quota, keepFrom: keepFromOf(q.keep, now) };
}
