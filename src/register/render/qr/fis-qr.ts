/**
 * The profile attribute Fis_QR (`type=png&size=2&ec_level=L`): the QR code of Fis.Code as a base64
 * image in the answer, and as `<name>.bmp` from the file interface.
 */
import { FiscalError } from '../../../shared/errors.js';
import { qrBmp } from './bmp.js';
import { qrMatrix } from './matrix.js';
import { type QrImageOptions, bitsOf, ecLevelOf, formatOf, wholeNumber, QR_BOUNDS } from './options.js';
import { qrPc437 } from './pc437.js';
import { qrPng } from './png.js';
import { qrSvgOf } from './svg.js';

const FIELD = 'Fis_QR';
const TYPES = ['png', 'bmp', 'svg', 'pc437'] as const;
type FisQrType = (typeof TYPES)[number];

export interface FisQrOptions extends QrImageOptions {
  type: FisQrType;
}

/** Defaults: a PNG of 2 px per module (a printer's dots), the spec's /qr quiet zone of 1, level M. */
export const FIS_QR_DEFAULTS: FisQrOptions = { type: 'png', size: 2, margin: 1, ecLevel: 'M' };

/**
 * Reads the attribute's value. A bare `Fis_QR` (empty or `true`) takes the defaults; unknown names,
 * repeated names and bad values are refused naming Fis_QR.
 */
export function parseFisQr(value: string): FisQrOptions {
  const o: FisQrOptions = { ...FIS_QR_DEFAULTS };
  const v = value.trim();
  if (v === '' || v.toLowerCase() === 'true') return o;
  const seen = new Set<string>();
  for (const part of v.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    const what = `${FIELD} ${name}`;
    const raw = eq < 0 ? '' : decoded(what, part.slice(eq + 1));
    if (seen.has(name)) throw new FiscalError('#INVALID_VALUE', { field: FIELD, detail: `${name} is given twice` });
    seen.add(name);
    if (name === 'type') o.type = formatOf(what, raw, TYPES) as FisQrType;
    else if (name === 'size') o.size = wholeNumber(what, raw, QR_BOUNDS.size.min, QR_BOUNDS.size.max);
    else if (name === 'margin') o.margin = wholeNumber(what, raw, QR_BOUNDS.margin.min, QR_BOUNDS.margin.max);
    else if (name === 'ec_level') o.ecLevel = ecLevelOf(what, raw);
    else if (name === 'bits') o.bits = bitsOf(what, raw);
    else throw new FiscalError('#INVALID_VALUE', { field: FIELD, detail: `unknown setting "${name}"; known: type (${TYPES.join(', ')}), size, margin, ec_level, bits` });
  }
  // pc437 counts characters per module, not printer dots: one unless given
  if (o.type === 'pc437' && !seen.has('size')) o.size = 1;
  return o;
}

function decoded(field: string, value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new FiscalError('#INVALID_VALUE', { field, detail: `"${value}" is not URL-encoded` });
  }
}

/** Base64 of the image of `code` (Fis.Code) as the attribute asks (pc437: base64 of its UTF-8 text). */
export function fisQrImage(code: string, attributeValue: string): string {
  const o = parseFisQr(attributeValue);
  const m = qrMatrix(code, { ecLevel: o.ecLevel, field: 'Fis.Code' });
  const body = o.type === 'png' ? qrPng(m, o) : o.type === 'bmp' ? qrBmp(m, o) : Buffer.from(o.type === 'svg' ? qrSvgOf(m, o) : qrPc437(m, o), 'utf8');
  return body.toString('base64');
}

/** The file interface's `<name>.bmp`: always a BMP, with the attribute's size, margin, level and bits. */
export function fisQrBmp(code: string, attributeValue: string): Buffer {
  const o = parseFisQr(attributeValue);
  return qrBmp(qrMatrix(code, { ecLevel: o.ecLevel, field: 'Fis.Code' }), o);
}
