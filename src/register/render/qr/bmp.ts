/**
 * BMP writer (BITMAPFILEHEADER + BITMAPINFOHEADER, uncompressed): 1 bit per pixel with a black/white
 * palette (what receipt printer drivers take) or 24 bits; rows bottom-up, each padded to 4 bytes.
 */
import { darkWithMargin, type QrMatrix } from './matrix.js';
import { type QrImageOptions, sideOf } from './options.js';

const FILE_HEADER = 14;
const INFO_HEADER = 40;
/** 72 dpi in pixels per metre */
const PPM = 2835;

export function qrBmp(m: QrMatrix, o: QrImageOptions): Buffer {
  const bits = o.bits ?? 1;
  const side = sideOf(m, o);
  const px = side * o.size;
  const stride = Math.floor((bits * px + 31) / 32) * 4;
  const palette = bits === 1 ? 8 : 0;
  const offset = FILE_HEADER + INFO_HEADER + palette;
  const out = Buffer.alloc(offset + stride * px);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(offset, 10);
  out.writeUInt32LE(INFO_HEADER, 14);
  out.writeInt32LE(px, 18);
  out.writeInt32LE(px, 22); // positive height: bottom-up
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(bits, 28);
  out.writeUInt32LE(0, 30); // BI_RGB
  out.writeUInt32LE(stride * px, 34);
  out.writeInt32LE(PPM, 38);
  out.writeInt32LE(PPM, 42);
  out.writeUInt32LE(bits === 1 ? 2 : 0, 46);
  out.writeUInt32LE(0, 50);
  if (bits === 1) out.fill(0xff, FILE_HEADER + INFO_HEADER + 4, FILE_HEADER + INFO_HEADER + 7); // index 0 black, index 1 white
  for (let mr = 0; mr < side; mr++) {
    const line = Buffer.alloc(stride, bits === 1 ? 0 : 0xff);
    for (let x = 0; x < px; x++) {
      const dark = darkWithMargin(m, o.margin, mr, Math.floor(x / o.size));
      if (bits === 1) {
        if (!dark) line[x >> 3] = (line[x >> 3] ?? 0) | (0x80 >> (x & 7));
      } else if (dark) line.fill(0, x * 3, x * 3 + 3);
    }
    // the top module row is the last rows of the file
    for (let k = 0; k < o.size; k++) line.copy(out, offset + (px - 1 - (mr * o.size + k)) * stride);
  }
  return out;
}
