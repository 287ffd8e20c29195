/**
 * Date-times of requests (RFC 3339, as the schemas' `date-time` format checks them). A leap second (`23:59:60`),
 * which the format allows but JavaScript cannot represent, counts as the second before it (`23:59:59`).
 */
import type { Issues } from '../envelope.js';

const LEAP_SECOND = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:)60(\.\d+)?/;

/** Milliseconds since the epoch, or undefined when the text is no date-time JavaScript can represent. */
export function parseDateTime(text: string): number | undefined {
  const t = Date.parse(text.replace(LEAP_SECOND, (_all, head: string, fraction: string | undefined) => `${head}59${fraction ?? ''}`));
  return Number.isFinite(t) ? t : undefined;
}

/** The time of a request field; an issue under that field (named as the API names it) when it is none. */
export function dateTimeField(issues: Issues, field: string, text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  const t = parseDateTime(text);
  if (t === undefined) issues.add(field, 'dateTime');
  return t;
}
