/**
 * The receipt as ESC/POS commands (GET /render/escpos) for a receipt printer: initialise, code page,
 * the shared line layout (bold and centred where the layout says so), Fis.Code as the printer's own
 * QR code (GS ( k: model 2, module size, error level, store, print), feed and cut.
 */
import { PC858_SELECT, encodePc858 } from './escpos-codepage.js';
import { receiptLines } from './receipt-lines.js';
import type { ReceiptView } from './receipt-view.js';

const ESC = 0x1b;
const GS = 0x1d;
const LF = 0x0a;

/** QR error correction levels of GS ( k <function 169>: 48 L, 49 M, 50 Q, 51 H. */
const QR_LEVEL_M = 49;
/** Module size in dots: about 0.5 mm on a 203 dpi printer, so a long code (AT, DE) stays under 40 mm. */
const QR_MODULE_DOTS = 4;
/** The most a QR code stores (byte mode, version 40, level L). */
const QR_MAX_BYTES = 2953;

/** GS ( k with cn 49 (QR): pL pH count the bytes after themselves (cn, fn and the parameters). */
function qrFunction(fn: number, params: Buffer): Buffer {
  const len = params.length + 2;
  return Buffer.concat([Buffer.from([GS, 0x28, 0x6b, len & 0xff, len >> 8, 0x31, fn]), params]);
}

/** The native QR commands; the data stored in byte mode (the codes are ASCII). */
export function escposQr(data: string): Buffer {
  const bytes = Buffer.from(data, 'utf8').subarray(0, QR_MAX_BYTES);
  return Buffer.concat([
    qrFunction(0x41, Buffer.from([0x32, 0x00])), // model 2
    qrFunction(0x43, Buffer.from([QR_MODULE_DOTS])), // module size
    qrFunction(0x45, Buffer.from([QR_LEVEL_M])), // error correction
    qrFunction(0x50, Buffer.concat([Buffer.from([0x30]), bytes])), // store the data
    qrFunction(0x51, Buffer.from([0x30])), // print it
  ]);
}

export function receiptEscpos(view: ReceiptView, width: number): Buffer {
  const parts: Buffer[] = [Buffer.from([ESC, 0x40, ESC, 0x74, PC858_SELECT])];
  const align = (n: number): Buffer => Buffer.from([ESC, 0x61, n]);
  const bold = (on: boolean): Buffer => Buffer.from([ESC, 0x45, on ? 1 : 0]);
  for (const line of receiptLines(view, width)) {
    switch (line.kind) {
      case 'text':
        parts.push(align(line.align === 'center' ? 1 : 0));
        if (line.bold) parts.push(bold(true));
        parts.push(encodePc858(line.text), Buffer.from([LF]));
        if (line.bold) parts.push(bold(false));
        break;
      case 'rule':
        parts.push(align(0), Buffer.from(`${'-'.repeat(width)}\n`, 'latin1'));
        break;
      case 'blank':
        parts.push(Buffer.from([LF]));
        break;
      case 'qr':
        parts.push(align(1), escposQr(line.data), Buffer.from([LF]), align(0));
        break;
    }
  }
  // feed past the cutter, then a full cut
  parts.push(Buffer.from([ESC, 0x64, 4, GS, 0x56, 0x00]));
  return Buffer.concat(parts);
}

