/**
 * Reads back the ESC/POS commands of a receipt as the lines a printer prints: text in PC858, centred
 * where `ESC a 1` says so, and the QR code's stored data. Any other command fails, so that a test sees
 * exactly what the renderer sends.
 */
import assert from 'node:assert/strict';
import { encodePc858 } from '../src/register/render/escpos-codepage.js';

export interface PrintedLine {
  text: string;
  centred: boolean;
  bold: boolean;
}

export type Printed = PrintedLine | { qr: string };

/** PC858's upper half, from what the encoder makes of Latin-1 and €: the first letter to a byte wins. */
const UPPER = ((): Map<number, string> => {
  const map = new Map<number, string>();
  for (const ch of ['€', ...Array.from({ length: 0x60 }, (_, i) => String.fromCharCode(0xa0 + i))]) {
    const b = encodePc858(ch);
    if (b.length === 1 && (b[0] ?? 0) >= 0x80 && !map.has(b[0] ?? 0)) map.set(b[0] ?? 0, ch);
  }
  return map;
})();

export function readEscpos(buf: Buffer): Printed[] {
  const out: Printed[] = [];
  let line: number[] = [];
  let centred = false;
  let bold = false;
  let lineBold = false;
  let afterQr = false;
  const at = (k: number): number => {
    const b = buf[k];
    assert.ok(b !== undefined, `command cut short at byte ${k}`);
    return b;
  };
  let i = 0;
  while (i < buf.length) {
    const b = at(i);
    if (b === 0x1b) {
      const c = String.fromCharCode(at(i + 1));
      assert.ok('@tadE'.includes(c), `ESC ${c} at ${i}`);
      if (c === 'a') centred = at(i + 2) === 1;
      if (c === 'E') bold = at(i + 2) === 1;
      i += c === '@' ? 2 : 3;
    } else if (b === 0x1d) {
      const c = String.fromCharCode(at(i + 1));
      if (c === 'V') {
        i += 3;
        continue;
      }
      assert.ok(c === '(' && at(i + 2) === 0x6b && at(i + 5) === 0x31, `GS ${c} at ${i}`);
      const len = at(i + 3) + 256 * at(i + 4);
      if (at(i + 6) === 0x50) out.push({ qr: buf.subarray(i + 8, i + 5 + len).toString('utf8') });
      if (at(i + 6) === 0x51) afterQr = true;
      i += 5 + len;
    } else if (b === 0x0a) {
      // the line feed after the printer's QR code ends the code, not a line of text
      if (!afterQr) out.push({ text: line.map((x) => (x < 0x80 ? String.fromCharCode(x) : (UPPER.get(x) ?? '\ufffd'))).join(''), centred, bold: lineBold });
      afterQr = false;
      line = [];
      lineBold = false;
      i += 1;
    } else {
      assert.ok(b >= 0x20, `control byte ${b} at ${i}`);
      line.push(b);
      lineBold ||= bold;
      i += 1;
    }
  }
  assert.deepEqual(line, [], 'every text line ends with LF');
  return out;
}
