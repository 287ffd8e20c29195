/**
 * The shared line layout as the default HTML template prints it: the lines grouped by the part of the
 * receipt they belong to, each line the same text as /render/text prints (centring included), so that
 * the page shows what the paper shows. The QR code stays an image.
 */
import { type ReceiptLine, type Section, receiptLines } from './receipt-lines.js';
import { textOf } from './receipt-text.js';
import type { ReceiptView } from './receipt-view.js';

export interface HtmlLine {
  text: string;
  bold: boolean;
  /** the place of the QR image (its `text` is empty) */
  qr: boolean;
}

export interface HtmlBlock {
  section: Section;
  lines: HtmlLine[];
}

function htmlLines(line: ReceiptLine, view: ReceiptView, width: number): HtmlLine[] {
  if (line.kind === 'qr' && view.qr) return [{ text: '', bold: false, qr: true }];
  const bold = line.kind === 'text' && line.bold;
  return textOf(line, view, width).map((text) => ({ text, bold, qr: false }));
}

export function htmlBlocks(view: ReceiptView, width: number): HtmlBlock[] {
  const blocks: HtmlBlock[] = [];
  for (const line of receiptLines(view, width)) {
    let block = blocks[blocks.length - 1];
    if (!block || block.section !== line.section) {
      block = { section: line.section, lines: [] };
      blocks.push(block);
    }
    block.lines.push(...htmlLines(line, view, width));
  }
  return blocks;
}
