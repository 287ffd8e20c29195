/** RFC 4648 base32 (A–Z, 2–7): Austria's OCR form of its receipts' fields and Sweden's printed control code. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The base32 of `bytes`; with `pad`, `=` fills the last group to 8 characters. */
export function base32(bytes: Buffer, pad = false): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = ((value << 8) | b) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  if (pad) while (out.length % 8) out += '=';
  return out;
}
