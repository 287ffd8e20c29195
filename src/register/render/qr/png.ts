/**
 * PNG writer: 1-bit grayscale, black modules on white. pngjs writes only 8 and 16 bits per sample,
 * so the few chunks are written here (signature, IHDR, one IDAT, IEND); pngjs reads them in the tests.
 */
import { deflateSync } from 'node:zlib';
import { darkWithMargin, type QrMatrix } from './matrix.js';
import { type QrImageOptions, sideOf } from './options.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = ((): Uint32Array => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export function qrPng(m: QrMatrix, o: QrImageOptions): Buffer {
  const side = sideOf(m, o);
  const px = side * o.size;
  const rowBytes = Math.ceil(px / 8);
  // one scanline per module row (filter byte 0, then bits: 1 = white, 0 = black), repeated `size` times
  const raw = Buffer.alloc((rowBytes + 1) * px);
  for (let mr = 0; mr < side; mr++) {
    const line = Buffer.alloc(rowBytes + 1, 0xff);
    line[0] = 0;
    for (let x = 0; x < px; x++) {
      if (darkWithMargin(m, o.margin, mr, Math.floor(x / o.size))) line[1 + (x >> 3)] = (line[1 + (x >> 3)] ?? 0) & ~(0x80 >> (x & 7));
    }
    for (let k = 0; k < o.size; k++) line.copy(raw, (mr * o.size + k) * (rowBytes + 1));
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(px, 0);
  ihdr.writeUInt32BE(px, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // grayscale
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering (all lines use filter 0)
  ihdr[12] = 0; // no interlace
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
