/**
 * Numbers, amounts, times and durations as the page's language writes them (Intl with the page language):
 * 23,10 and 25.11.2026, 14:03:07 on a German page, 23.10 and 25 Nov 2026, 14:03:07 on an English one. Amounts
 * are written from their decimal text, never through a JavaScript number, so that no digit changes.
 */
import type { UiLang } from './i18n.js';

/** The locale of each page language: the country whose conventions the language's readers expect. */
const LOCALES: Readonly<Record<UiLang, string>> = { en: 'en-GB', de: 'de-DE', fr: 'fr-FR', nl: 'nl-NL' };

export interface Formats {
  lang: UiLang;
  /** a decimal text (`1234.5`, `-0.10`) with the language's separators; any other text as it is */
  amount(text: string): string;
  /** a whole or decimal number (counts, bytes, MB) */
  number(n: number, fractionDigits?: number): string;
  /**
   * A date-time as the journal writes it (`2026-11-25T14:03:07`, local time of the register, or with an offset
   * `+01:00`/`Z`): shown with the digits it has, never moved to another time zone; any other text as it is.
   */
  dateTime(text: string): string;
  /** a duration in seconds as days, hours and minutes, leaving out what is 0 (seconds only under a minute) */
  duration(seconds: number): string;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

function separatorsOf(locale: string): { group: string; decimal: string } {
  const parts = new Intl.NumberFormat(locale).formatToParts(12345.6);
  return {
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
  };
}

export function formatsOf(lang: UiLang): Formats {
  const locale = LOCALES[lang];
  const { group, decimal } = separatorsOf(locale);
  // the digits as written, read as UTC so that no time zone moves them
  const dateTimeFormat = new Intl.DateTimeFormat(locale, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: 'UTC' });
  const unit = (u: 'day' | 'hour' | 'minute' | 'second', n: number): string => new Intl.NumberFormat(locale, { style: 'unit', unit: u, unitDisplay: 'long' }).format(n);
  const list = new Intl.ListFormat(locale, { style: 'long', type: 'unit' });
  return {
    lang,
    amount(text) {
      const m = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
      if (!m) return text;
      const whole = (m[2] as string).replace(/\B(?=(\d{3})+(?!\d))/g, group);
      return `${m[1] === '-' ? '−' : ''}${whole}${m[3] !== undefined ? `${decimal}${m[3]}` : ''}`;
    },
    number(n, fractionDigits) {
      return new Intl.NumberFormat(locale, fractionDigits === undefined ? {} : { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }).format(n);
    },
    dateTime(text) {
      const m = DATE_TIME.exec(text.trim());
      if (!m) return text;
      const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
      const shown = dateTimeFormat.format(new Date(Date.UTC(y, mo - 1, d, h, mi, s)));
      const zone = m[7];
      return zone === undefined ? shown : `${shown} (${zone === 'Z' ? 'UTC' : `UTC${zone}`})`;
    },
    duration(seconds) {
      const total = Math.max(0, Math.floor(seconds));
      if (total < 60) return unit('second', total);
      const days = Math.floor(total / 86_400);
      const hours = Math.floor((total % 86_400) / 3600);
      const minutes = Math.floor((total % 3600) / 60);
      const parts = [days > 0 ? unit('day', days) : '', hours > 0 ? unit('hour', hours) : '', minutes > 0 || total < 3600 ? unit('minute', minutes) : ''].filter(Boolean);
      return list.format(parts);
    },
  };
}
