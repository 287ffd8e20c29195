/**
 * The receipt laid out in fixed-width lines (42 or 48 columns, the common receipt printer widths):
 * one layout that the text, ESC/POS and PDF outputs all print, so that they show the same lines.
 * Every text line is at most `width` characters; long values (a TSE signature) are broken.
 */
import type { ReceiptView } from './receipt-view.js';

export type Align = 'left' | 'center';

export type ReceiptLine =
  | { kind: 'text'; text: string; align: Align; bold: boolean }
  | { kind: 'rule' }
  | { kind: 'blank' }
  /** the QR code of Fis.Code */
  | { kind: 'qr'; data: string };

export const WIDTHS: readonly number[] = [42, 48];
export const DEFAULT_WIDTH = 42;

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
  constructor(readonly width: number) {}

  /** Wrapped text; leading spaces indent every line of it. */
  text(text: string, align: Align = 'left', bold = false): void {
    const spaces = /^ */.exec(text)?.[0] ?? '';
    const indent = spaces.slice(0, Math.max(0, this.width - 8));
    for (const t of wrap(text.slice(spaces.length), this.width - indent.length)) this.lines.push({ kind: 'text', text: indent + t, align, bold });
  }

  /** Text on the left, an amount on the right of the same (last) line. */
  pair(left: string, right: string, bold = false, indent = 0): void {
    const room = this.width - printedLength(right) - 1;
    const prefix = ' '.repeat(indent);
    if (room < 8) {
      this.text(prefix + left, 'left', bold);
      this.lines.push({ kind: 'text', text: padStart(right, this.width), align: 'left', bold });
      return;
    }
    const wrapped = wrap(left, room - indent).map((l) => prefix + l);
    wrapped.slice(0, -1).forEach((l) => this.lines.push({ kind: 'text', text: l, align: 'left', bold }));
    const last = wrapped[wrapped.length - 1] ?? '';
    this.lines.push({ kind: 'text', text: padEnd(last, room) + ' ' + right, align: 'left', bold });
  }

  /** A label and its value: on one line when they fit, else the value broken below the label. */
  labelled(label: string, value: string): void {
    const one = label ? `${label} ${value}` : value;
    if (printedLength(one) <= this.width && !value.includes('\n')) {
      this.lines.push({ kind: 'text', text: one, align: 'left', bold: false });
      return;
    }
    if (label) this.text(label);
    this.text(value);
  }

  rule(): void {
    this.lines.push({ kind: 'rule' });
  }

  blank(): void {
    this.lines.push({ kind: 'blank' });
  }
}

function taxTable(b: Builder, view: ReceiptView): void {
  const { labels } = view;
  const rows = view.taxes.map((t) => [`${t.group} ${t.rate}`.trim(), t.net, t.tax, t.gross]);
  const header = [labels.rate, labels.net, labels.tax, labels.gross];
  const col = Math.max(9, ...rows.flatMap((r) => r.slice(1).map((c) => printedLength(c) + 1)), ...header.slice(1).map((h) => printedLength(h) + 1));
  const first = b.width - 3 * col;
  if (first < 8) {
    // amounts too long for four columns: one block per tax group
    for (const r of rows) {
      b.text(r[0] ?? '', 'left', true);
      header.slice(1).forEach((h, i) => b.pair(h, r[i + 1] ?? '', false, 2));
    }
    return;
  }
  const row = (cells: string[], bold: boolean): void => {
    const lead = wrap(cells[0] ?? '', first);
    lead.slice(0, -1).forEach((l) => b.text(l));
    b.lines.push({ kind: 'text', text: padEnd(lead[lead.length - 1] ?? '', first) + cells.slice(1).map((c) => padStart(c, col)).join(''), align: 'left', bold });
  };
  row(header, true);
  rows.forEach((r) => row(r, false));
}

export function receiptLines(view: ReceiptView, width: number = DEFAULT_WIDTH): ReceiptLine[] {
  const b = new Builder(width);
  const { labels } = view;
  if (view.company.name) b.text(view.company.name, 'center', true);
  view.company.lines.forEach((l) => b.text(l, 'center'));
  if (view.company.taxId) b.text(`${labels.taxId} ${view.company.taxId}`, 'center');
  if (view.company.tin) b.text(`${labels.tin} ${view.company.tin}`, 'center');
  if (view.location.name || view.location.lines.length) {
    if (view.location.name) b.text(view.location.name, 'center');
    view.location.lines.forEach((l) => b.text(l, 'center'));
  }
  if (view.terminal) b.text(`${labels.terminal} ${view.terminal}`, 'center');
  if (view.head.length) {
    b.blank();
    view.head.forEach((l) => b.text(l, 'center'));
  }
  b.blank();
  b.text(view.title, 'center', true);
  if (view.training) b.text(view.training, 'center', true);
  if (view.date) b.pair(labels.date, view.date);
  view.ids.forEach((id) => b.pair(id.label, id.value));

  if (view.items.length) {
    b.rule();
    for (const item of view.items) {
      const voided = item.voided ? ' [X]' : '';
      if (item.kind === 'pos') {
        b.pair(`${item.description}${voided}`, `${item.amount} ${item.taxGroup}`.trim());
        if (item.quantity) b.text(`  ${item.quantity}`);
        if (item.note) b.text(`  ${item.note}`);
      } else if (item.kind === 'mod') {
        b.pair(`${item.description}${item.percent ? ` ${item.percent}` : ''}${voided}`, item.amount, false, 2);
      } else {
        b.pair(item.description, item.amount);
      }
    }
  }
  if (view.total) {
    b.rule();
    b.pair(labels.total, view.total, true);
  }
  if (view.payments.length) {
    b.blank();
    for (const p of view.payments) {
      b.pair(p.description, p.amount);
      if (p.foreign) b.text(`  ${p.foreign}`);
    }
  }
  if (view.taxes.length) {
    b.rule();
    taxTable(b, view);
  }
  if (view.fields.length) {
    b.rule();
    view.fields.forEach((f) => b.labelled(f.label, f.value));
  }
  if (view.tags.length) {
    b.rule();
    view.tags.forEach((t) => b.labelled(t.label, t.value));
  }
  if (view.code) {
    b.blank();
    b.lines.push({ kind: 'qr', data: view.code });
  }
  if (view.link) b.text(view.link, 'center');
  if (view.foot.length) {
    b.blank();
    view.foot.forEach((l) => b.text(l, 'center'));
  }
  return b.lines;
}
