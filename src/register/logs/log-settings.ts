/**
 * The profile attributes of the service log, as the spec lists them ("Log_debug, Log_length, Log_remove:
 * log size, line length, regular expression of items to strip"):
 * - `Log_debug` raises the level to debug; a size as its value (`Log_debug=20`, `Log_debug=512K`, `Log_debug=5M`;
 *   a bare number is MB) is also the size at which the log file is rotated (the spec's "log size").
 * - `Log_length` is the longest line in characters (longer lines are cut).
 * - `Log_remove` is a regular expression (`pattern` or `/pattern/flags`) whose matches are removed from
 *   each line before it is written.
 */
import { FiscalError } from '../../shared/errors.js';
import type { AttributeMap } from '../profile/attributes.js';

export type LogLevel = 'info' | 'debug';

export interface LogSettings {
  level: LogLevel;
  /** a file is rotated before it would grow past this many bytes */
  maxBytes: number;
  /** rotated files kept beside the current one (efr.log.1 is the newest) */
  keep: number;
  /** longest line in characters, the line break not counted */
  maxLineLength: number;
  /** matches are removed from each serialized line before it is written */
  remove?: RegExp;
}

const KiB = 1024;
const MiB = 1024 * KiB;
export const LOG_DEFAULTS: Readonly<Omit<LogSettings, 'remove'>> = { level: 'info', maxBytes: 10 * MiB, keep: 5, maxLineLength: 8192 };
export const LOG_SIZE_BOUNDS = { min: 16 * KiB, max: 1024 * MiB };
export const LOG_LINE_BOUNDS = { min: 100, max: 1_000_000 };

const OFF = ['false', '0', 'no', 'off'];
const SIZE = /^(\d{1,7})(?:\.(\d{1,3}))?\s*(k|kb|m|mb|g|gb)?$/i;

/** A size of `Log_debug`: bytes, undefined when the text is no size. A bare number is MB. */
export function logSizeOf(text: string): number | undefined {
  const m = SIZE.exec(text.trim());
  if (!m) return undefined;
  const unit = (m[3] ?? 'm').toLowerCase()[0];
  const factor = unit === 'k' ? KiB : unit === 'g' ? 1024 * MiB : MiB;
  // whole units and thousandths, in integers: "0.5" MB is 500/1000 of a MB
  const thousandths = Number(m[1]) * 1000 + Number((m[2] ?? '').padEnd(3, '0'));
  return Math.floor((thousandths * factor) / 1000);
}

/** `pattern` or `/pattern/flags` (flags i, m, s, u), always global. Throws the engine's SyntaxError. */
export function logRemoveRegExp(text: string): RegExp {
  const m = /^\/(.+)\/([imsu]*)$/s.exec(text);
  return m ? new RegExp(m[1] as string, `${m[2] as string}g`) : new RegExp(text, 'g');
}

/**
 * Refuses values the log could not use (POST /profile): `#INVALID_TYPE` naming `Attributes.<name>`.
 */
export function checkLogAttributes(attrs: AttributeMap): void {
  const remove = attrs.get('log_remove');
  if (remove !== undefined && remove !== 'true') {
    try {
      logRemoveRegExp(remove);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.Log_remove', expected: `a regular expression (${why})`, value: remove });
    }
  }
  const length = attrs.get('log_length');
  if (length !== undefined && !(/^\d{1,7}$/.test(length) && Number(length) >= LOG_LINE_BOUNDS.min && Number(length) <= LOG_LINE_BOUNDS.max)) {
    throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.Log_length', expected: `a number of characters ${LOG_LINE_BOUNDS.min}-${LOG_LINE_BOUNDS.max}`, value: length });
  }
  const debug = attrs.get('log_debug');
  if (debug !== undefined && debug !== 'true' && !OFF.includes(debug.toLowerCase())) {
    const size = logSizeOf(debug);
    if (size === undefined || size < LOG_SIZE_BOUNDS.min || size > LOG_SIZE_BOUNDS.max) {
      throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.Log_debug', expected: 'true, false or a log size from 16K to 1024M (a bare number is MB)', value: debug });
    }
  }
}

/** The log settings of the instance's attributes; values that are not usable keep the defaults. */
export function logSettingsOf(raw: AttributeMap): LogSettings {
  const s: LogSettings = { ...LOG_DEFAULTS };
  const debug = raw.get('log_debug');
  if (debug !== undefined && !OFF.includes(debug.toLowerCase())) {
    s.level = 'debug';
    const size = debug === 'true' ? undefined : logSizeOf(debug);
    if (size !== undefined) s.maxBytes = Math.min(LOG_SIZE_BOUNDS.max, Math.max(LOG_SIZE_BOUNDS.min, size));
  }
  const length = raw.get('log_length');
  if (length !== undefined && /^\d{1,7}$/.test(length)) s.maxLineLength = Math.min(LOG_LINE_BOUNDS.max, Math.max(LOG_LINE_BOUNDS.min, Number(length)));
  const remove = raw.get('log_remove');
  if (remove !== undefined && remove !== 'true' && remove !== '') {
    try {
      s.remove = logRemoveRegExp(remove);
    } catch {
      // refused by POST /profile; an environment setting with a bad expression strips nothing
    }
  }
  return s;
}
