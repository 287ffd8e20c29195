/**
 * QR images for the routes (/qr, /recorder/lastdh/qr), the receipt renderers and Fis_QR: one call
 * from text and options to the bytes of a format and their content type.
 */
import { qrBmp } from './bmp.js';
import { qrEps } from './eps.js';
import { qrMatrix } from './matrix.js';
import { type QrFormat, type QrImageOptions } from './options.js';
import { qrPc437 } from './pc437.js';
import { qrPdf } from './pdf.js';
import { qrPng } from './png.js';
import { qrSvgOf } from './svg.js';

export { qrMatrix, darkRuns, type QrMatrix, type EcLevel, EC_LEVELS } from './matrix.js';
export { QR_BOUNDS, QR_FORMATS, type QrFormat, type QrImageOptions } from './options.js';
export { pc437Bytes } from './pc437.js';
export { fisQrImage, fisQrBmp, parseFisQr, type FisQrOptions } from './fis-qr.js';

export const QR_CONTENT_TYPES: Readonly<Record<QrFormat, string>> = {
  png: 'image/png',
  bmp: 'image/bmp',
  svg: 'image/svg+xml; charset=utf-8',
  pc437: 'text/plain; charset=utf-8',
  pdf: 'application/pdf',
  eps: 'application/postscript',
};

export interface QrImage {
  body: Buffer;
  contentType: string;
}

/** Defaults of the image functions when the caller gives no options. */
export const QR_DEFAULTS: QrImageOptions = { ecLevel: 'M', size: 4, margin: 1 };

export type SyncQrFormat = Exclude<QrFormat, 'pdf'>;

/** The formats that are made synchronously (all but PDF, which pdfkit streams). */
export function qrImageSync(text: string, format: SyncQrFormat, options: QrImageOptions = QR_DEFAULTS, field = 'text'): Buffer {
  const m = qrMatrix(text, { ecLevel: options.ecLevel, field });
  switch (format) {
    case 'png':
      return qrPng(m, options);
    case 'bmp':
      return qrBmp(m, options);
    case 'svg':
      return Buffer.from(qrSvgOf(m, options), 'utf8');
    case 'pc437':
      return Buffer.from(qrPc437(m, options), 'utf8');
    case 'eps':
      return Buffer.from(qrEps(m, options), 'latin1');
  }
}

export async function qrImage(text: string, format: QrFormat, options: QrImageOptions = QR_DEFAULTS, field = 'text'): Promise<QrImage> {
  const body = format === 'pdf' ? await qrPdf(qrMatrix(text, { ecLevel: options.ecLevel, field }), options) : qrImageSync(text, format, options, field);
  return { body, contentType: QR_CONTENT_TYPES[format] };
}

/** `data:image/png;base64,...` for an <img> of an HTML receipt. */
export function qrPngDataUrl(text: string, options: QrImageOptions = QR_DEFAULTS): string {
  return `data:image/png;base64,${qrImageSync(text, 'png', options).toString('base64')}`;
}

/** The SVG text, to put inline into an HTML receipt. */
export function qrSvg(text: string, options: QrImageOptions = QR_DEFAULTS): string {
  return qrSvgOf(qrMatrix(text, { ecLevel: options.ecLevel }), options);
}

/** The block-character text, for text and ESC/POS receipts (see pc437.ts for the characters). */
export function qrText(text: string, options: QrImageOptions = { ...QR_DEFAULTS, size: 1 }): string {
  return qrPc437(qrMatrix(text, { ecLevel: options.ecLevel }), options);
}

/** A one-page PDF of the code (vector rectangles). */
export { qrPdf } from './pdf.js';
