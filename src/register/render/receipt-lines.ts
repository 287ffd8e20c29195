/**
 * The receipt laid out once in fixed-width lines (32, 42 or 48 columns, the common receipt printer widths):
 * the text, ESC/POS, PDF and HTML outputs all print these lines, so that they show the same thing.
 *
 * Columns: every amount (items, modifiers, total, payments, the tax table's gross, a report's figures)
 * ends in one amount column; the items' tax groups stand right of it in a column as wide as the widest
 * group, so that amounts line up whatever group their item has. Dates and numbers (TL, FN) end at the
 * right edge. Every text line is at most `width` characters and has no trailing spaces; long values (a
 * TSE signature) are broken.
 */
import type { ReceiptView, ReportSection, TaxView } from './receipt-view.js';
import { reportLabelsOf } from './report-labels.js';

export type Align = 'left' | 'center';

/** Which part of the receipt a line belongs to (the HTML groups lines by it). */
export type Section = 'header' | 'title' | 'items' | 'total' | 'payments' | 'taxes' | 'report' | 'fields' | 'tags' | 'code' | 'foot';

export type ReceiptLine =
  | { kind: 'text'; text: string; align: Align; bold: boolean; section: Section }
  | { kind: 'rule'; section: Section }
  | { kind: 'blank'; section: Section }
  /** the QR code of Fis.Code */
  | { kind: 'qr'; data: string; section: Section };

/** The columns a receipt is laid out for: 32 (58 mm paper), 42 (80 mm, font A), 48 (80 mm, font B). */
export const WIDTHS: readonly number[] = [32, 42, 48];
export const DEFAULT_WIDTH = 42;

/** A tax table or count column narrower than this wraps its label instead of squeezing the figures. */
const MIN_LABEL = 8;
/** The report's count column ends at least this far left of the amount column's end (room for -999999,99). */
const COUNT_GAP = 11;

/** Length in characters as printed (code points, not UTF-16 units). */
export function printedLength(s: string): number {
  return Array.from(s).length;
}

/** Breaks text into lines of at most `width` characters, at spaces where it can, inside words where it must. */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line: string[] = [];
    for (const word of paragraph.split(/[ \t]+/).filter((w) => w !== '')) {
      let chars = Array.from(word);
      if (line.length > 0 && line.length + 1 + chars.length <= width) {
        line.push(' ', ...chars);
        continue;
      }
      if (line.length > 0) out.push(line.join(''));
      while (chars.length > width) {
        out.push(chars.slice(0, width).join(''));
        chars = chars.slice(width);
      }
      line = chars;
    }
    out.push(line.join(''));
  }
  return out;
}

function padStart(s: string, n: number): string {
  return ' '.repeat(Math.max(0, n - printedLength(s))) + s;
}

function padEnd(s: string, n: number): string {
  return s + ' '.repeat(Math.max(0, n - printedLength(s)));
}

class Builder {
  readonly lines: ReceiptLine[] = [];
  section: Section = 'header';

  /**
   * @param amountEnd the column after the last character of every amount
   * @param groupWidth the width of the tax group column right of the amounts (0: none)
   */
  constructor(
    readonly width: number,
    readonly amountEnd: number,
    readonly groupWidth: number,
  ) {}

  private push(text: string, align: Align, bold: boolean): void {
    this.lines.push({ kind: 'text', text: text.trimEnd(), align, bold, section: this.section });
  }

  /** Wrapped text; leading spaces indent every line of it. */
  text(text: string, align: Align = 'left', bold = false): void {
    const spaces = /^ */.exec(text)?.[0] ?? '';
    const indent = spaces.slice(0, Math.max(0, this.width - MIN_LABEL));
    for (const t of wrap(text.slice(spaces.length), this.width - indent.length)) this.push(indent + t, align, bold);
  }

  /**
   * Text on the left and cells that end at given columns on its last line; the text wraps so that it
   * never runs into the first cell.
   */
  private cells(left: string, cells: ReadonlyArray<{ text: string; end: number }>, bold: boolean, indent: number): void {
    const shown = cells.filter((c) => c.text !== '');
    // the column where the first cell starts; the cells after it are placed relative to it, a space at least apart
    let start = Math.min(this.width, ...shown.map((c) => c.end - printedLength(c.text)));
    let tail = '';
    for (const c of shown) tail = padEnd(tail, Math.max(c.end - printedLength(c.text) - start, tail === '' ? 0 : printedLength(tail) + 1)) + c.text;
    // cells too long for their columns end at the right edge; wider than the line, they are broken
    start = Math.min(start, this.width - printedLength(tail));
    const prefix = ' '.repeat(indent);
    if (start < 0) {
      if (left.trim() !== '') this.text(prefix + left.trimStart(), 'left', bold);
      wrap(tail, this.width).forEach((l) => this.push(l, 'left', bold));
      return;
    }
    const room = (shown.length ? start - 1 : this.width) - indent;
    if (room < MIN_LABEL) {
      if (left.trim() !== '') this.text(prefix + left.trimStart(), 'left', bold);
      this.push(' '.repeat(start) + tail, 'left', bold);
      return;
    }
    const wrapped = wrap(left, room).map((l) => prefix + l);
    wrapped.slice(0, -1).forEach((l) => this.push(l, 'left', bold));
    this.push(padEnd(wrapped[wrapped.length - 1] ?? '', start) + tail, 'left', bold);
  }

  /** Text with an amount in the amount column and, for items, the tax group right of it. */
  amount(left: string, amount: string, options: { group?: string; bold?: boolean; indent?: number } = {}): void {
    const cells = [{ text: amount, end: this.amountEnd }];
    if (options.group) cells.push({ text: options.group, end: this.amountEnd + 1 + printedLength(options.group) });
    this.cells(left, cells, options.bold ?? false, options.indent ?? 0);
  }

  /** A report row: a count in the count column, which ends `gap` left of the amount column's end, and an amount in the amount column. */
  counted(left: string, count: string, amount: string, gap: number, bold = false): void {
    this.cells(left, [{ text: count, end: this.amountEnd - gap }, { text: amount, end: this.amountEnd }], bold, 0);
  }

  /** Text with a value (a date, a number) ending at the right edge. */
  value(left: string, value: string, bold = false): void {
    this.cells(left, [{ text: value, end: this.width }], bold, 0);
  }

  /** A label and its value: on one line when they fit, else the value broken below the label. */
  labelled(label: string, value: string): void {
    const one = label ? `${label} ${value}` : value;
    if (printedLength(one) <= this.width && !value.includes('\n')) {
      this.push(one, 'left', false);
      return;
    }
    if (label) this.text(label);
    this.text(value);
  }

  rule(): void {
    this.lines.push({ kind: 'rule', section: this.section });
  }

  blank(): void {
    this.lines.push({ kind: 'blank', section: this.section });
  }

  qr(data: string): void {
    this.lines.push({ kind: 'qr', data, section: this.section });
  }
}

/** Rate, net, tax and gross per group; the gross ends in the amount column. */
function taxTable(b: Builder, view: ReceiptView, taxes: readonly TaxView[]): void {
  const { labels } = view;
  const rows = taxes.map((t) => [`${t.group} ${t.rate}`.trim(), t.net, t.tax, t.gross]);
  const header = [labels.rate, labels.net, labels.tax, labels.gross];
  const col = Math.max(9, ...rows.flatMap((r) => r.slice(1).map((c) => printedLength(c) + 1)), ...header.slice(1).map((h) => printedLength(h) + 1));
  const first = b.amountEnd - 3 * col;
  if (first < MIN_LABEL) {
    // amounts too long for four columns: one block per tax group
    for (const r of rows) {
      b.text(r[0] ?? '', 'left', true);
      // a figure the group has not (a non-VAT tax's gross) leaves out its label too
      header.slice(1).forEach((h, i) => {
        if (r[i + 1]) b.amount(`  ${h}`, r[i + 1] ?? '', { indent: 2 });
      });
    }
    return;
  }
  const row = (cells: string[], bold: boolean): void => {
    const lead = wrap(cells[0] ?? '', first - 1);
    lead.slice(0, -1).forEach((l) => b.text(l));
    b.lines.push({ kind: 'text', text: (padEnd(lead[lead.length - 1] ?? '', first) + cells.slice(1).map((c) => padStart(c, col)).join('')).trimEnd(), align: 'left', bold, section: b.section });
  };
  row(header, true);
  rows.forEach((r) => row(r, false));
}

function reportSection(b: Builder, view: ReceiptView, s: ReportSection): void {
  b.rule();
  if (s.title) b.text(s.title, 'left', true);
  if (s.taxes.length) taxTable(b, view, s.taxes);
  const l = reportLabelsOf(view.lang);
  // the count column stands left of the section's longest amount, so that no count runs into its amount
  const gap = Math.max(COUNT_GAP, ...s.rows.filter((r) => r.value === '').map((r) => printedLength(r.amount) + 1), printedLength(l.amount) + 1);
  if (s.rows.some((r) => r.count !== '')) b.counted('', l.count, l.amount, gap, true);
  for (const r of s.rows) {
    if (r.value !== '') b.value(r.label, r.value);
    else b.counted(r.label, r.count, r.amount, gap);
  }
}

function header(b: Builder, view: ReceiptView): void {
  const { labels } = view;
  if (view.company.name) b.text(view.company.name, 'center', true);
  view.company.lines.forEach((l) => b.text(l, 'center'));
  if (view.company.country) b.text(view.company.country, 'center');
  if (view.company.taxId) b.text(`${labels.taxId} ${view.company.taxId}`, 'center');
  if (view.company.tin) b.text(`${labels.tin} ${view.company.tin}`, 'center');
  if (view.location.name) b.text(view.location.name, 'center');
  view.location.lines.forEach((l) => b.text(l, 'center'));
  if (view.location.country) b.text(view.location.country, 'center');
  if (view.terminal) b.text(`${labels.terminal} ${view.terminal}`, 'center');
  if (view.head.length) {
    b.blank();
    view.head.forEach((l) => b.text(l, 'center'));
  }
}

function itemLines(b: Builder, view: ReceiptView): void {
  for (const item of view.items) {
    const voided = item.voided ? ' [X]' : '';
    if (item.kind === 'pos') {
      b.amount(`${item.description}${voided}`, item.amount, { group: item.taxGroup });
      if (item.quantity) b.text(`  ${item.quantity}`);
      if (item.note) b.text(`  ${item.note}`);
    } else if (item.kind === 'mod') {
      b.amount(`${item.description}${item.percent ? ` ${item.percent}` : ''}${voided}`, item.amount, { indent: 2, group: item.taxGroup });
    } else {
      b.amount(item.description, item.amount);
    }
  }
}

export function receiptLines(view: ReceiptView, width: number = DEFAULT_WIDTH): ReceiptLine[] {
  const groupWidth = Math.max(0, ...view.items.filter((i) => i.kind !== 'lin').map((i) => printedLength(i.taxGroup)));
  const b = new Builder(width, width - (groupWidth ? groupWidth + 1 : 0), groupWidth);
  const { labels } = view;
  header(b, view);

  b.section = 'title';
  b.blank();
  b.text(view.title, 'center', true);
  if (view.training) b.text(view.training, 'center', true);
  if (view.date) b.value(labels.date, view.date);
  view.ids.forEach((id) => b.value(id.label, id.value));

  b.section = 'items';
  if (view.items.length) {
    b.rule();
    itemLines(b, view);
  }
  b.section = 'total';
  if (view.total) {
    b.rule();
    b.amount(labels.total, view.total, { bold: true });
  }
  b.section = 'payments';
  if (view.payments.length) {
    b.blank();
    for (const p of view.payments) {
      b.amount(p.description, p.amount);
      if (p.foreign) b.text(`  ${p.foreign}`);
    }
  }
  b.section = 'taxes';
  if (view.taxes.length) {
    b.rule();
    taxTable(b, view, view.taxes);
  }
  b.section = 'report';
  view.report?.sections.forEach((s) => reportSection(b, view, s));
  b.section = 'fields';
  if (view.fields.length) {
    b.rule();
    view.fields.forEach((f) => b.labelled(f.label, f.value));
  }
  b.section = 'tags';
  if (view.tags.length) {
    b.rule();
    view.tags.forEach((t) => b.labelled(t.label, t.value));
  }
  b.section = 'code';
  if (view.code) {
    b.blank();
    b.qr(view.code);
  }
  if (view.link) b.text(view.link, 'center');
  b.section = 'foot';
  if (view.foot.length) {
    b.blank();
    view.foot.forEach((l) => b.text(l, 'center'));
  }
  return b.lines;
}
