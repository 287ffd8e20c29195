/** Times cross the store as ISO 8601 UTC strings with milliseconds; anything else is normalized or refused. */
import { StoreBadQuery } from './types.js';

export function isoTime(value: string, field: string): string {
  const t = Date.parse(value);
  if (!Number.isFinite(t)) throw new StoreBadQuery(field, `not a date-time: ${JSON.stringify(value)}`);
  return new Date(t).toISOString();
}

export function isoTimeOrNull(value: string | null, field: string): string | null {
  return value === null ? null : isoTime(value, field);
}
