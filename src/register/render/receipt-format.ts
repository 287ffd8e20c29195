/**
 * Numbers, dates and country names as the receipt's language writes them: a customer reading a German
 * receipt expects 8,38 and 25.11.2026, an English one 8.38 and 25 Nov 2026. Amounts are formatted from
 * their decimal text, never through a JS number, so that what is printed is exactly what was recorded.
 */
import type { Lang } from '../../shared/errors.js';
import { type Dec, fmt, fmtMoney, parseDec, significantScale } from '../../shared/money.js';
import { decimalSeparatorOf } from './receipt-labels.js';

const EN_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A local date with an optional time, as the journal records them (no zone: the register's wall clock). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?)?$/;
/** A tag value that is an amount (to the cent, as the modules write them), with an optional rate before it ("20 % 2.50"). */
const TAG_AMOUNT = /^(?:(\d+(?:\.\d+)?) ?% +)?(-?\d+\.\d{2})$/;

export class Formatter {
  private readonly separator: string;
  private readonly regions: Intl.DisplayNames;

  constructor(readonly lang: Lang) {
    this.separator = decimalSeparatorOf(lang);
    this.regions = new Intl.DisplayNames([lang], { type: 'region', fallback: 'code' });
  }

  private localized(text: string): string {
    return this.separator === '.' ? text : text.replace('.', this.separator);
  }

  /** Money with at least 2 decimals, exactly as recorded; text that is no decimal stays as it is. */
  amount(raw: string | undefined): string {
    if (raw === undefined || raw === '') return '';
    const d = parseDec(raw.trim());
    return d ? this.localized(fmtMoney(d)) : raw;
  }

  amountOf(d: Dec): string {
    return this.localized(fmtMoney(d));
  }

  /** A quantity or percentage without trailing zeros ("2", "1,5"). */
  number(raw: string | undefined): string {
    if (raw === undefined || raw === '') return '';
    const d = parseDec(raw.trim());
    return d ? this.localized(fmt(d, significantScale(d))) : raw;
  }

  percent(raw: string | undefined): string {
    const n = this.number(raw?.replace(/\s*%\s*$/, ''));
    return n ? `${n} %` : '';
  }

  /**
   * A recorded date or date and time in the language's order (de 25.11.2026, fr 25/11/2026, nl 25-11-2026,
   * en 25 Nov 2026: a month name, since the English-speaking countries disagree on the order of numbers).
   * Text that is no such date stays as it is.
   */
  date(raw: string | undefined): string {
    if (raw === undefined) return '';
    const m = DATE_TIME.exec(raw.trim());
    if (!m) return raw.replace('T', ' ');
    const [, y, mo, d, h, mi, s] = m;
    let day: string;
    if (this.lang === 'en') day = `${d} ${EN_MONTHS[Number(mo) - 1] ?? mo} ${y}`;
    else day = [d, mo, y].join(this.lang === 'de' ? '.' : this.lang === 'fr' ? '/' : '-');
    return h === undefined ? day : `${day} ${h}:${mi}${s === undefined ? '' : `:${s}`}`;
  }

  /**
   * A country module's tag value: amounts and dates in the receipt's language, everything else (numbers
   * of the fiscal device, signatures) exactly as the module gave it. An amount keeps every digit the module
   * wrote, only its decimal mark is the language's: the value may be a number the POS gave (a receipt number
   * 2024.100 is no 2024,10).
   */
  tagValue(raw: string): string {
    const amount = TAG_AMOUNT.exec(raw);
    if (amount) return `${amount[1] !== undefined ? `${this.localized(amount[1])} % ` : ''}${this.localized(amount[2] ?? '')}`;
    return DATE_TIME.test(raw) ? this.date(raw) : raw;
  }

  /** A country module's tag label: the module's words, a rate in them ("TTC 20.00 % :") with the language's decimal mark. */
  tagLabel(raw: string): string {
    return raw.replace(/(?<![\d.])(\d+)\.(\d+)(?= ?%)/g, (_, whole: string, fraction: string) => `${whole}${this.separator}${fraction}`);
  }

  /** An ISO 3166 country code as the country's name in the receipt's language. */
  country(code: string): string {
    return /^[A-Za-z]{2}$/.test(code) ? this.regions.of(code.toUpperCase()) ?? code : code;
  }
}
