/**
 * One serialized log line on its way to the file: `Log_remove` strips its matches first (on the whole
 * line, so that no part of a secret survives a cut), then `Log_length` cuts it. A cut JSON line stays
 * JSON where it can: fields are kept in order while they fit, a long text is cut with `…`, and
 * `"cut":<original length>` marks it.
 */
import type { LogSettings } from './log-settings.js';

/** The line as it is written: without the final line break in, with one out. */
export function cleanLine(line: string, settings: Pick<LogSettings, 'maxLineLength' | 'remove'>): string {
  let text = line.endsWith('\n') ? line.slice(0, -1) : line;
  if (settings.remove) {
    settings.remove.lastIndex = 0;
    text = text.replace(settings.remove, '');
  }
  // a removal must not split the record into two lines
  text = text.replace(/[\r\n]/g, ' ');
  if (text.length > settings.maxLineLength) text = cutLine(text, settings.maxLineLength);
  return `${text}\n`;
}

const ELLIPSIS = '…';

/** A line of at most `max` characters; JSON objects stay valid JSON when `max` leaves room for one. */
export function cutLine(text: string, max: number): string {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    record = undefined;
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return plainCut(text, max);
  const marker = `"cut":${text.length}`;
  const parts: string[] = [];
  // {"…":…,"cut":n}: braces, marker and the comma before it
  let used = 2 + marker.length + 1;
  for (const [key, value] of Object.entries(record as Record<string, unknown>)) {
    const name = JSON.stringify(key);
    const whole = `${name}:${JSON.stringify(value)}`;
    const room = max - used - 1;
    if (whole.length <= room) {
      parts.push(whole);
      used += whole.length + 1;
      continue;
    }
    // a long text (or a nested object, as its JSON text) gets what is left
    const source = typeof value === 'string' ? value : JSON.stringify(value);
    const cut = fitString(source, room - name.length - 1);
    if (cut !== undefined) {
      parts.push(`${name}:${cut}`);
      used += name.length + 1 + cut.length + 1;
    }
    break;
  }
  if (parts.length === 0) return plainCut(text, max);
  const out = `{${[...parts, marker].join(',')}}`;
  return out.length <= max ? out : plainCut(text, max);
}

/** The longest JSON string of a prefix of `s` and `…` that has at most `room` characters. */
function fitString(s: string, room: number): string | undefined {
  if (room < 3) return undefined;
  let lo = 0;
  let hi = Math.min(s.length, room);
  // JSON escapes make the encoded length grow with the prefix; search the longest prefix that fits
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (JSON.stringify(s.slice(0, mid) + ELLIPSIS).length <= room) lo = mid;
    else hi = mid - 1;
  }
  const enc = JSON.stringify(s.slice(0, lo) + ELLIPSIS);
  return enc.length <= room ? enc : undefined;
}

function plainCut(text: string, max: number): string {
  return `${text.slice(0, Math.max(0, max - ELLIPSIS.length))}${ELLIPSIS}`;
}
