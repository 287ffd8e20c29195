/**
 * Text QR code with the block characters of code page 437: full block, upper half, lower half and
 * space; one text line holds two module rows. The text is Unicode (U+2588, U+2580, U+2584, U+0020),
 * answered as UTF-8; a printer that takes CP437 bytes gets them from `pc437Bytes` (0xDB, 0xDF, 0xDC,
 * 0x20). `size` repeats each module over that many characters across and half-lines down.
 */
import { darkWithMargin, type QrMatrix } from './matrix.js';
import { type QrImageOptions, sideOf } from './options.js';

export const BLOCKS = { full: '\u2588', upper: '\u2580', lower: '\u2584', none: ' ' } as const;

const CP437: Readonly<Record<string, number>> = { [BLOCKS.full]: 0xdb, [BLOCKS.upper]: 0xdf, [BLOCKS.lower]: 0xdc, [BLOCKS.none]: 0x20, '\n': 0x0a };

/** Lines ended by "\n"; a last line of an odd number of module rows has its lower half empty. */
export function qrPc437(m: QrMatrix, o: QrImageOptions): string {
  const side = sideOf(m, o);
  const units = side * o.size;
  const dark = (y: number, x: number): boolean => y < units && darkWithMargin(m, o.margin, Math.floor(y / o.size), Math.floor(x / o.size));
  let out = '';
  for (let y = 0; y < units; y += 2) {
    let line = '';
    for (let x = 0; x < units; x++) {
      const top = dark(y, x);
      const bottom = dark(y + 1, x);
      line += top && bottom ? BLOCKS.full : top ? BLOCKS.upper : bottom ? BLOCKS.lower : BLOCKS.none;
    }
    out += `${line}\n`;
  }
  return out;
}

/** The same text as CP437 bytes, for printers in that code page. */
export function pc437Bytes(text: string): Buffer {
  const out = Buffer.alloc(text.length);
  let i = 0;
  for (const ch of text) {
    const b = CP437[ch];
    if (b === undefined) throw new Error(`not a QR block character: U+${ch.codePointAt(0)?.toString(16) ?? ''}`);
    out[i++] = b;
  }
  return out.subarray(0, i);
}
