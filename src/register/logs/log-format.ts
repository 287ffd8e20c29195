/**
 * A log line as a person reads it (GET /log): local time, level, message, then the other fields as
 * `key=value` (`err=Type: message`, no stack). A line that is not JSON (cut, or changed by Log_remove)
 * is shown as it is.
 */
const LEVELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

const p2 = (n: number): string => String(n).padStart(2, '0');

/** `YYYY-MM-DD hh:mm:ss.mmm` in the service's local time. */
export function localTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function valueText(v: unknown): string {
  if (typeof v === 'string') return v === '' || /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? '';
}

function errorText(v: unknown): string {
  if (v === null || typeof v !== 'object') return valueText(v);
  const e = v as { type?: unknown; message?: unknown; code?: unknown };
  const head = [typeof e.type === 'string' ? e.type : 'Error', typeof e.code === 'string' || typeof e.code === 'number' ? `[${String(e.code)}]` : ''].filter(Boolean).join(' ');
  return JSON.stringify(`${head}: ${typeof e.message === 'string' ? e.message : ''}`);
}

/** Control characters become spaces, a lone surrogate (a cut emoji) U+FFFD: the line stays one line of valid XML text. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

export function humanLine(raw: string): string {
  const text = raw.replace(/\r?\n$/, '');
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return printable(text);
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return printable(text);
  const r = record as Record<string, unknown>;
  const parts: string[] = [];
  parts.push(typeof r.time === 'number' ? localTime(r.time) : '-');
  parts.push((typeof r.level === 'number' ? LEVELS[r.level] : undefined) ?? String(r.level ?? '-').toUpperCase());
  if (typeof r.msg === 'string' && r.msg !== '') parts.push(r.msg);
  for (const [k, v] of Object.entries(r)) {
    if (SKIP.has(k) || v === undefined) continue;
    parts.push(`${k}=${k === 'err' || k === 'error' ? errorText(v) : valueText(v)}`);
  }
  // control characters (a message with a line break) would break the line or an XML answer
  return printable(parts.join(' '));
}
