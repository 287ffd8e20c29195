/**
 * The receipt as plain fixed-width text (GET /render/text): the shared line layout, centred by spaces.
 * Text cannot hold an image, so Fis.Code is written out under its label for the POS to print as a QR code.
 */
import { type ReceiptLine, printedLength, receiptLines, wrap } from './receipt-lines.js';
import type { ReceiptView } from './receipt-view.js';

export function centred(text: string, width: number): string {
  return ' '.repeat(Math.max(0, Math.floor((width - printedLength(text)) / 2))) + text;
}

/** One laid-out line as printed text (a QR code as its label and its data, broken to the width). */
export function textOf(line: ReceiptLine, view: ReceiptView, width: number): string[] {
  switch (line.kind) {
    case 'text':
      return [line.align === 'center' ? centred(line.text, width) : line.text];
    case 'rule':
      return ['-'.repeat(width)];
    case 'blank':
      return [''];
    case 'qr':
      return [`${view.labels.qr}:`, ...wrap(line.data, width)];
  }
}

export function receiptText(view: ReceiptView, width: number): string {
  return `${receiptLines(view, width).flatMap((l) => textOf(l, view, width)).join('\n')}\n`;
}
